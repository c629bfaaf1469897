#!/usr/bin/env python3
"""Scores a move screen: how often an engine plays the judge's move.

usage: tools/screen_score.py ANSWERS.jsonl [OTHER.jsonl]

The requests come from `tools/judge_games.py --requests FILE`: positions of
a match's early moves that the judge rated as undecided, each with the
judge's move in its id ("17.h8"). Feed them to a build's `gomokud analyze`
and give its answers here: it prints how many best moves are the judge's.
With a second file (another build on the same requests) it compares the two
on the positions both answered, with the positions where only one of them
played the judge's move: those decide the difference, and their count sets
its noise (about twice the square root of their sum, either way, at 95%).
"""
import json
import sys


def answers(path):
    """id -> best move, for the answers that are not problems"""
    out = {}
    with open(path) as f:
        for line in f:
            o = json.loads(line)
            if 'best_move' in o and '.' in str(o.get('id', '')):
                out[o['id']] = o['best_move']
    return out


def main(argv):
    if len(argv) not in (1, 2) or argv[0] in ('-h', '--help'):
        print(__doc__.strip())
        return 0 if argv and argv[0] in ('-h', '--help') else 2
    runs = [answers(p) for p in argv]
    common = sorted(set.intersection(*(set(r) for r in runs)), key=lambda i: int(i.split('.')[0]))
    if not common:
        print('no answers to score')
        return 1
    hit = [[r[i] == i.split('.', 1)[1] for i in common] for r in runs]
    for path, h in zip(argv, hit):
        print("%s: the judge's move in %d of %d (%.1f%%)" % (path, sum(h), len(h), 100.0 * sum(h) / len(h)))
    if len(runs) == 2:
        first = sum(a and not b for a, b in zip(*hit))
        second = sum(b and not a for a, b in zip(*hit))
        print('only the first %d, only the second %d: %+d for the second (noise about +-%.0f)' % (
            first, second, second - first, 2 * (first + second) ** 0.5))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
