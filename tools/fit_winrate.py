#!/usr/bin/env python3
"""fit_winrate.py - fits the win rate the engine reports,
1 / (1 + exp(-(score + c) / S)) with c = +B when black is to move and -B
when white is (ENGINE_WINRATE_SCALE_* and ENGINE_WINRATE_BLACK_* in
engine/engine.h; standard takes freestyle's), to the results of games.

    python3 tools/fit_winrate.py --rule freestyle [--positions N] [--nodes K]
        [--seed S] [--gomokud build/bin/gomokud] GAMES.sgf ...

GAMES are SGF files of c-gomoku-cli (tools/match.sh writes them), played at
the strength the win rate should describe (self-play at 20 s + 0.5 s a
move for the committed values). From every game won by one side it takes
every third position from the fourth move after the opening to ten plies
before the end, draws N of them with the seed (default 700 and 1), scores
each with `gomokud analyze` at K nodes (default 100,000), and fits S and B
to the side to move's result by cross-entropy (a logistic regression on
the score and the colour to move, by Newton's method; B is what the
evaluation misses of black's edge). Positions the analysis proves (a mate)
are counted apart: their win rate is 0 or 1 whatever the curve. Prints S
and B, the cross-entropy there, with S alone (B = 0), at the rule's
committed values and at the evaluation's training scale, and the results
against the curve by sixths of score + c.
"""
import argparse
import json
import math
import os
import random
import re
import subprocess
import sys

import sgf


def games(paths):
    """(moves, black_won) of every decided game, moves in our notation"""
    for g in sgf.read(paths):
        if g.winner is not None:
            yield [sgf.point(m, g.size) for m in g.moves], g.winner == "B"


def positions(decided, opening):
    """(moves, the side to move won, black is to move)"""
    for moves, black_won in decided:
        for k in range(opening + 4, len(moves) - 10, 3):
            yield moves[:k], int((k % 2 == 0) == black_won), k % 2 == 0


def curve(x, black, s, b):
    z = (x + (b if black else -b)) / s
    return 1 / (1 + math.exp(-z)) if z > -700 else 0.0


def cross_entropy(data, s, b=0.0):
    t = 0.0
    for x, y, black in data:
        q = min(max(curve(x, black, s, b), 1e-9), 1 - 1e-9)
        t -= y * math.log(q) + (1 - y) * math.log(1 - q)
    return t / len(data)


def fit_scale(data):
    """S alone (B = 0): the cross-entropy is unimodal in log S, golden-section search"""
    lo, hi = 20.0, 20000.0
    for _ in range(80):
        m1, m2 = lo * (hi / lo) ** 0.382, lo * (hi / lo) ** 0.618
        if cross_entropy(data, m1) < cross_entropy(data, m2):
            hi = m2
        else:
            lo = m1
    return (lo * hi) ** 0.5


def fit_scale_and_black(data):
    """S and B: logistic regression of the result on u = score and v = +-1
    (the colour to move), z = a u + d v, by Newton's method; S = 1 / a, B = d / a"""
    a, d = 1 / fit_scale(data), 0.0
    for _ in range(100):
        g0 = g1 = h00 = h01 = h11 = 0.0
        for x, y, black in data:
            v = 1.0 if black else -1.0
            z = a * x + d * v
            q = 1 / (1 + math.exp(-z)) if z > -700 else 0.0
            w = q * (1 - q)
            g0 += (q - y) * x
            g1 += (q - y) * v
            h00 += w * x * x
            h01 += w * x * v
            h11 += w * v * v
        det = h00 * h11 - h01 * h01
        if det <= 0:
            break
        da, dd = (h11 * g0 - h01 * g1) / det, (h00 * g1 - h01 * g0) / det
        a, d = a - da, d - dd
        if a <= 0:
            sys.exit("fit_winrate.py: the results do not rise with the score")
        if abs(da) < 1e-12 and abs(dd) < 1e-9:
            break
    return 1 / a, d / a


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rule", required=True, choices=["freestyle", "standard", "renju"])
    ap.add_argument("--positions", type=int, default=700)
    ap.add_argument("--nodes", type=int, default=100000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--opening", type=int, default=3, help="stones of the openings (default 3)")
    ap.add_argument("--gomokud", default="build/bin/gomokud")
    ap.add_argument("--training-scale", type=float, default=None,
                    help="the scale to compare with (default: the committed one, engine/eval_tables.c)")
    ap.add_argument("games", nargs="+")
    a = ap.parse_args()

    engine = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "engine")
    if a.training_scale is None:
        with open(os.path.join(engine, "eval_tables.c")) as f:
            a.training_scale = float(re.search(r"eval_winrate_scale = ([0-9.]+);", f.read()).group(1))
    with open(os.path.join(engine, "engine.h")) as f:
        header, name = f.read(), "RENJU" if a.rule == "renju" else "FREESTYLE"
        committed = float(re.search(r"#define ENGINE_WINRATE_SCALE_%s ([0-9.]+)" % name, header).group(1))
        committed_b = float(re.search(r"#define ENGINE_WINRATE_BLACK_%s \(?(-?[0-9.]+)\)?" % name, header).group(1))
    decided = list(games(a.games))
    pool = list(positions(decided, a.opening))
    if not pool:
        sys.exit("fit_winrate.py: no decided game in the files")
    random.Random(a.seed).shuffle(pool)
    pool = pool[: a.positions]
    req = "".join(json.dumps({"rule": a.rule, "moves": m, "limits": {"nodes": a.nodes}}) + "\n" for m, _, _ in pool)
    out = subprocess.run([a.gomokud, "analyze"], input=req, capture_output=True, text=True, check=True).stdout
    answers = [json.loads(line) for line in out.splitlines()]
    if len(answers) != len(pool):
        sys.exit("fit_winrate.py: %d answers to %d positions" % (len(answers), len(pool)))

    data, mates, mates_right = [], 0, 0
    for (_, won, black), ans in zip(pool, answers):
        if "score" not in ans:
            sys.exit("fit_winrate.py: refused: %s" % json.dumps(ans))
        if ans.get("mate") is not None:
            mates += 1
            mates_right += (ans["mate"] > 0) == bool(won)
            continue
        data.append((ans["score"], won, black))
    if len(data) < 50:
        sys.exit("fit_winrate.py: only %d positions without a mate" % len(data))

    s0 = fit_scale(data)
    s, b = fit_scale_and_black(data)
    print("%s: %d positions of %d decided games, %d nodes each; %d proven (%d of them the game's result), %d fitted"
          % (a.rule, len(pool), len(decided), a.nodes, mates, mates_right, len(data)))
    print("S %.1f, black %+.1f: cross-entropy %.4f (S alone %.1f: %.4f; committed %.1f, %+.1f: %.4f; "
          "training scale %.1f: %.4f; a coin: %.4f); side to move won %.3f"
          % (s, b, cross_entropy(data, s, b), s0, cross_entropy(data, s0), committed, committed_b,
             cross_entropy(data, committed, committed_b), a.training_scale, cross_entropy(data, a.training_scale),
             math.log(2), sum(y for _, y, _ in data) / len(data)))
    rows = sorted((x + (b if black else -b), y, x, black) for x, y, black in data)
    n = len(rows)
    for k in range(6):
        part = rows[k * n // 6:(k + 1) * n // 6]
        mean = sum(r[0] for r in part) / len(part)
        print("  score + c %6.0f..%6.0f (mean %6.0f): won %.2f, curve %.2f"
              % (part[0][0], part[-1][0], mean, sum(r[1] for r in part) / len(part),
                 sum(curve(r[2], r[3], s, b) for r in part) / len(part)))


if __name__ == "__main__":
    main()
