#!/usr/bin/env python3
"""Where were a match's games lost? A judge engine's view of every position.

usage: tools/judge_games.py --judge CMD [options] SGF...

Reads c-gomoku-cli's SGF files (as tools/match.sh writes them), picks the
games of one engine (A by default) by colour and result, and asks a pbrain
engine, the judge (a stronger engine, or ours with more time), for its move
and evaluation in every position of those games where that engine was to
move after the opening. Then, per game, it finds the first move after which
the judge announces a forced win against the engine from a position it rated
no worse than --threshold: a single move that let a win in. The rest of the
lost games were lost move by move.

It also finds the other way to lose points: the first position where the
judge announced a forced win for the engine, the engine played another move
than the judge's, and the judge no longer announced it at the engine's next
move. That move let a win slip. (A win the judge itself stops seeing after
its own move is its horizon, not a slip.) Use --result any to see them in
the games that were won, drawn and lost.

Last, how good the engine's moves were in the judge's eyes: over every
move between two positions the judge rated within --undecided of even,
how often it was the judge's own move, and the median change of the
judge's rating from one of the engine's positions to its next (the move
and the reply) where it was and where it was not. A move that costs
nothing changes it by the judge's own noise.

  --judge CMD        the judge's command line (run with --cwd as its directory)
  --cwd DIR          directory the judge starts in (default .)
  --ms N             the judge's time a position, in ms (default 500)
  --engine NAME      whose positions (the SGF's PB/PW name; default A)
  --colour C         black, white or both (default both)
  --result R         loss, win, draw or any: the engine's result (default loss)
  --threshold N      rated at least this before the move (default -400)
  --undecided N      moves between positions rated within N are scored (1000)
  --cache FILE       the judge's answers, one a line, read first and added to:
                     an interrupted run goes on where it stopped
  --requests FILE    also write a screen: `gomokud analyze` requests for the
                     engine's positions of its first --early moves (10) after
                     the opening that the judge rated within --undecided,
                     each once, at --nodes (200000) nodes, the judge's move in
                     the id ("17.h8"); tools/screen_score.py scores answers

Evaluations are the judge's, from the side to move's view: Rapfi's "Eval"
(a mate as +M or -M and plies) or gomokud's "score" (with "mate N" in own
moves, counted here as 2N-1 plies for a win and 2N for a loss). Void
games (the engine never moved) are left out.
"""
import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys

import sgf

MATE = 100000
RULES = {0: 'freestyle', 1: 'standard', 4: 'renju'}  # c-gomoku-cli's rule numbers


def parse_eval(line):
    """A judge's MESSAGE line -> evaluation (mates as +-(MATE - plies)), or None."""
    m = re.search(r'\bEval ([+-]?)M(\d+)', line)
    if m:
        return (MATE - int(m.group(2))) * (-1 if m.group(1) == '-' else 1)
    m = re.search(r'\bscore (-?\d+)(?: mate ([+-]?\d+))?', line)
    if m and m.group(2):
        n = int(m.group(2))
        return MATE - (2 * n - 1) if n > 0 else -(MATE - 2 * -n)
    m = m or re.search(r'\bEval (-?\d+)', line)
    return int(m.group(1)) if m else None


def show(v):
    if v is None:
        return '?'
    if abs(v) > MATE // 2:
        return ('+M%d' if v > 0 else '-M%d') % (MATE - abs(v))
    return str(v)


class Judge:
    def __init__(self, cmd, cwd, ms):
        self.p = subprocess.Popen(shlex.split(cmd), cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1)
        self.ms, self.size, self.rule = ms, None, None

    def send(self, s):
        self.p.stdin.write(s + '\n')
        self.p.stdin.flush()

    def read(self):
        line = self.p.stdout.readline()
        if not line:
            sys.exit('judge_games: the judge exited')
        return line.strip()

    def ask(self, size, rule, moves):
        """(move 'x,y', evaluation) for the side to move after moves."""
        if size != self.size:
            self.send('START %d' % size)
            while self.read() != 'OK':
                pass
            self.size, self.rule = size, None
        if rule != self.rule:
            self.send('INFO rule %d' % rule)
            self.rule = rule
        for k, v in (('timeout_turn', self.ms), ('timeout_match', 100000000), ('time_left', 100000000)):
            self.send('INFO %s %d' % (k, v))
        self.send('BOARD')
        for i, (x, y) in enumerate(moves):
            self.send('%d,%d,%d' % (x, y, 1 if (len(moves) - i) % 2 == 0 else 2))
        self.send('DONE')
        last = None
        while True:
            line = self.read()
            if re.fullmatch(r'\d+,\d+', line):
                return line, last
            if line.startswith('MESSAGE'):
                v = parse_eval(line)
                if v is not None:
                    last = v

    def close(self):
        try:
            self.send('END')
            self.p.wait(timeout=5)
        except Exception:
            self.p.kill()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--judge', required=True)
    ap.add_argument('--cwd', default='.')
    ap.add_argument('--ms', type=int, default=500)
    ap.add_argument('--engine', default='A')
    ap.add_argument('--colour', choices=('black', 'white', 'both'), default='both')
    ap.add_argument('--result', choices=('loss', 'win', 'draw', 'any'), default='loss')
    ap.add_argument('--threshold', type=int, default=-400)
    ap.add_argument('--undecided', type=int, default=1000)
    ap.add_argument('--cache')
    ap.add_argument('--requests')
    ap.add_argument('--early', type=int, default=10)
    ap.add_argument('--nodes', type=int, default=200000)
    ap.add_argument('sgf', nargs='+')
    a = ap.parse_args()

    cache = {}
    if a.cache and os.path.exists(a.cache):
        for line in open(a.cache):
            f = line.split()
            if len(f) == 3:
                cache[f[0]] = (f[1], None if f[2] == '?' else parse_eval('Eval ' + f[2]))
    out = open(a.cache, 'a') if a.cache else None
    judge = None
    games = []
    requests, screened = [], set()
    for g in sgf.read(a.sgf):
        for colour, name in (('B', g.black), ('W', g.white)):
            if name != a.engine or a.colour not in ('both', 'black' if colour == 'B' else 'white'):
                continue
            if a.result != 'any' and g.result_for(colour) != a.result:
                continue
            rule, size, moves = g.rule, g.size, g.moves
            if a.requests and rule not in RULES:
                sys.exit('judge_games: %s: rule %d has no name for gomokud analyze' % (g.tag, rule))
            seq = []  # (ply, evaluation, the judge's move, the game's move)
            for k in range(g.opening, len(moves)):
                if (k % 2 == 0) != (colour == 'B'):
                    continue
                # the position alone: the same one in two games is asked once
                # (up to 16x16 every coordinate is one hex digit; beyond, the
                # moves are separated so that (0,1)(17,0) and (0,17)(1,0) differ)
                key = 'r%d.s%d:%s' % (rule, size, ('' if size <= 16 else ',').join('%x.%x' % m for m in moves[:k]))
                if key not in cache:
                    judge = judge or Judge(a.judge, a.cwd, a.ms)
                    cache[key] = judge.ask(size, rule, moves[:k])
                    if out:
                        out.write('%s %s %s\n' % (key, cache[key][0], show(cache[key][1])))
                        out.flush()
                judged, v = cache[key]
                seq.append((k, v, judged, '%d,%d' % moves[k]))
                if a.requests and (k - g.opening) // 2 < a.early and v is not None and abs(v) <= a.undecided \
                        and key not in screened and re.fullmatch(r'\d+,\d+', judged):
                    screened.add(key)
                    requests.append(json.dumps({
                        'id': '%d.%s' % (len(requests), sgf.point(tuple(map(int, judged.split(','))), size)),
                        'rule': RULES[rule], 'board_size': size,
                        'moves': [list(m) for m in moves[:k]], 'limits': {'nodes': a.nodes}}) + '\n')
            if seq:  # (a void game: no move of the engine's to judge)
                games.append((g.tag, 'black' if colour == 'B' else 'white', g.result_for(colour), seq))
    if judge:
        judge.close()
    if a.requests:
        with open(a.requests, 'w') as f:
            f.writelines(requests)

    let_in, had_win, slipped = [], [], []
    changes = {True: [], False: []}  # the judge's move or not -> rating changes
    for tag, colour, result, seq in games:
        found = slip = None  # the first move that let a win in, and the first that let one slip
        for (k0, v0, judged, played), (k1, v1, _, _) in zip(seq, seq[1:]):
            if v0 is None or v1 is None:
                continue
            if abs(v0) <= a.undecided and abs(v1) <= a.undecided:
                changes[judged == played].append(v1 - v0)
            if not found and v1 < -MATE // 2 and abs(v0) < MATE // 2 and v0 >= a.threshold:
                found = (k0, v0, v1)
            if not slip and v0 > MATE // 2 and judged != played and v1 < MATE // 2:
                slipped.append(result)
                slip = '%s %s: let a win slip at ply %d, %s, then %s (the judge played %s, the engine %s)' % (
                    tag, colour, k0, show(v0), show(v1), judged, played)
        evals = ' '.join('%d:%s' % (k, show(v)) for k, v, _, _ in seq)
        if any(v is not None and v > MATE // 2 for _, v, _, _ in seq):
            had_win.append(result)
        if found:
            let_in.append(found)
            print('%s %s: ply %d, rated %s, then %s | %s' % (tag, colour, found[0], show(found[1]),
                                                            show(found[2]), evals))
        else:
            print('%s %s: no single move | %s' % (tag, colour, evals))
        if slip:
            print(slip)
    line = '%d games of %s (%s, %s): %d let a forced win in with one move' % (
        len(games), a.engine, a.colour, a.result, len(let_in))
    if let_in:
        line += ' (rated %d or better before it; median %g, median ply %g, the win median %g plies)' % (
            a.threshold, statistics.median(v for _, v, _ in let_in), statistics.median(k for k, _, _ in let_in),
            statistics.median(MATE + v for _, _, v in let_in))
    print(line)

    def by_result(results):
        return ', '.join('%d %s' % (results.count(r), w) for r, w in (('win', 'won'), ('draw', 'drawn'), ('loss', 'lost'))
                         if r in results)

    line = '%d of them with a forced win of %s\'s at some point' % (len(had_win), a.engine)
    if had_win:
        line += ' (%s)' % by_result(had_win)
    line += '; %d let it slip with one move' % len(slipped)
    if slipped:
        line += ' (then %s)' % by_result(slipped)
    print(line)

    def median(v):
        return '%+g' % statistics.median(v) if v else '-'

    same, other = changes[True], changes[False]
    n = len(same) + len(other)
    print('%d moves between positions rated within %d: the judge\'s own %d (%.0f%%), rating change median %s; '
          'another %d, median %s' % (n, a.undecided, len(same), 100.0 * len(same) / n if n else 0, median(same),
                                     len(other), median(other)))


if __name__ == '__main__':
    main()
