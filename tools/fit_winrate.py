#!/usr/bin/env python3
"""fit_winrate.py - fits the scale S of the win rate the engine reports,
1 / (1 + exp(-score / S)) (ENGINE_WINRATE_SCALE_FREESTYLE and _RENJU in
engine/engine.h; standard takes freestyle's), to the results of games.

    python3 tools/fit_winrate.py --rule freestyle [--positions N] [--nodes K]
        [--seed S] [--gomokud build/bin/gomokud] GAMES.sgf ...

GAMES are SGF files of c-gomoku-cli (tools/match.sh writes them), played at
the strength the win rate should describe (self-play at 20 s + 0.5 s a
move for the committed value). From every game won by one side it takes
every third position from the fourth move after the opening to ten plies
before the end, draws N of them with the seed (default 700 and 1), scores
each with `gomokud analyze` at K nodes (default 100,000), and fits S to the
side to move's result by cross-entropy. Positions the analysis proves (a
mate) are counted apart: their win rate is 0 or 1 whatever S is. Prints S,
the cross-entropy at S, at the rule's committed scale and at the
evaluation's training scale, and the results against the curve by sixths of
the scores.
"""
import argparse
import json
import math
import os
import random
import re
import subprocess
import sys


def games(paths):
    """(moves, black_won) of every decided game, moves in our notation"""
    for path in paths:
        with open(path) as f:
            text = f.read()
        for g in text.split("(;")[1:]:
            res = re.search(r"RE\[([^\]]*)\]", g)
            if not res or not res.group(1)[:2] in ("B+", "W+"):
                continue
            mv = re.findall(r";[BW]\[([a-o])([a-o])\]", g)
            yield ["%s%d" % (x, 15 - (ord(y) - 97)) for x, y in mv], res.group(1).startswith("B+")


def positions(decided, opening):
    for moves, black_won in decided:
        for k in range(opening + 4, len(moves) - 10, 3):
            yield moves[:k], int((k % 2 == 0) == black_won)


def cross_entropy(data, s):
    t = 0.0
    for x, y in data:
        q = min(max(1 / (1 + math.exp(-x / s)), 1e-9), 1 - 1e-9)
        t -= y * math.log(q) + (1 - y) * math.log(1 - q)
    return t / len(data)


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
        committed = float(re.search(r"#define ENGINE_WINRATE_SCALE_%s ([0-9.]+)" % ("RENJU" if a.rule == "renju" else "FREESTYLE"),
                                    f.read()).group(1))
    decided = list(games(a.games))
    pool = list(positions(decided, a.opening))
    if not pool:
        sys.exit("fit_winrate.py: no decided game in the files")
    random.Random(a.seed).shuffle(pool)
    pool = pool[: a.positions]
    req = "".join(json.dumps({"rule": a.rule, "moves": m, "limits": {"nodes": a.nodes}}) + "\n" for m, _ in pool)
    out = subprocess.run([a.gomokud, "analyze"], input=req, capture_output=True, text=True, check=True).stdout
    answers = [json.loads(line) for line in out.splitlines()]
    if len(answers) != len(pool):
        sys.exit("fit_winrate.py: %d answers to %d positions" % (len(answers), len(pool)))

    data, mates, mates_right = [], 0, 0
    for (_, won), ans in zip(pool, answers):
        if "score" not in ans:
            sys.exit("fit_winrate.py: refused: %s" % json.dumps(ans))
        if ans.get("mate") is not None:
            mates += 1
            mates_right += (ans["mate"] > 0) == bool(won)
            continue
        data.append((ans["score"], won))
    if len(data) < 50:
        sys.exit("fit_winrate.py: only %d positions without a mate" % len(data))

    lo, hi = 20.0, 20000.0  # the cross-entropy is unimodal in log S: golden-section search
    for _ in range(80):
        m1, m2 = lo * (hi / lo) ** 0.382, lo * (hi / lo) ** 0.618
        if cross_entropy(data, m1) < cross_entropy(data, m2):
            hi = m2
        else:
            lo = m1
    s = (lo * hi) ** 0.5
    print("%s: %d positions of %d decided games, %d nodes each; %d proven (%d of them the game's result), %d fitted"
          % (a.rule, len(pool), len(decided), a.nodes, mates, mates_right, len(data)))
    print("S %.1f: cross-entropy %.4f (committed %.1f: %.4f; training scale %.1f: %.4f; a coin: %.4f); side to move won %.3f"
          % (s, cross_entropy(data, s), committed, cross_entropy(data, committed), a.training_scale,
             cross_entropy(data, a.training_scale), math.log(2),
             sum(y for _, y in data) / len(data)))
    data.sort()
    n = len(data)
    for k in range(6):
        part = data[k * n // 6:(k + 1) * n // 6]
        mean = sum(x for x, _ in part) / len(part)
        print("  scores %6d..%6d (mean %6.0f): won %.2f, curve %.2f"
              % (part[0][0], part[-1][0], mean, sum(y for _, y in part) / len(part),
                 sum(1 / (1 + math.exp(-x / s)) for x, _ in part) / len(part)))


if __name__ == "__main__":
    main()
