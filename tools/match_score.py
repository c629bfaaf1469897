#!/usr/bin/env python3
"""Scores c-gomoku-cli matches from their SGF files.

usage: tools/match_score.py [--engine NAME] [--keep-void] FILE.sgf...

Counts the games of engine NAME (default "A", the first engine of
tools/match.sh) in every file: wins, losses and draws, by colour, the score
with its Elo difference and a 95% interval. The interval comes from the
colour-swapped pairs (with -repeat, c-gomoku-cli's games 2k-1 and 2k,
GN[...], play one opening with colours swapped): in gomoku the opening
often decides both games of a pair, so the pairs, not the games, are the
independent draws (as in fishtest's pentanomial model). A game without a move of the engines' own (void: a
runner or engine failure before the first move) is left out unless
--keep-void. Prints one line, e.g.
  A 446-411-23 of 880 (52.0%), black 268-162-10, white 178-249-13, void 0: Elo +14 [-3, +31], 440 pairs
"""
import math
import re
import sys

GAME = re.compile(r"\(;FF\[4\](.*?)\)", re.S)
PROP = re.compile(r"(PB|PW|RE|GN)\[([^\]]*)\]")


def elo(p):
    p = min(max(p, 1e-6), 1 - 1e-6)
    return round(-400.0 * math.log10(1.0 / p - 1.0))  # an int: never "-0"


def main(argv):
    engine, keep_void, files = "A", False, []
    it = iter(argv)
    for a in it:
        if a == "--engine":
            engine = next(it, None)
            if engine is None:
                sys.exit("--engine needs a name")
        elif a == "--keep-void":
            keep_void = True
        elif a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        else:
            files.append(a)
    if not files:
        sys.exit("usage: tools/match_score.py [--engine NAME] [--keep-void] FILE.sgf...")
    void = 0
    by_colour = {"B": [0, 0, 0], "W": [0, 0, 0]}
    pairs = {}
    n_seen = 0
    for fi, f in enumerate(files):
        with open(f, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        for g in GAME.finditer(text):
            body = g.group(1)
            props = dict(PROP.findall(body.split(";", 1)[0]))
            n_seen += 1
            if props.get("PB") != engine and props.get("PW") != engine:
                continue
            own_moves = len(re.findall(r";[BW]\[[a-z]{2}\]C\[\d+ms\]", body))
            if own_moves == 0 and not keep_void:
                void += 1
                continue
            colour = "B" if props.get("PB") == engine else "W"
            res = props.get("RE", "0")
            if res.startswith(colour + "+"):
                pts, k = 1.0, 0
            elif res.startswith("B+") or res.startswith("W+"):
                pts, k = 0.0, 1
            else:
                pts, k = 0.5, 2
            by_colour[colour][k] += 1
            gn = props.get("GN", "")
            pair = (int(gn) - 1) // 2 if gn.isdigit() else "g%d" % n_seen
            pairs.setdefault((fi, pair), []).append(pts)
    b, wh = by_colour["B"], by_colour["W"]
    w, l, d = (b[k] + wh[k] for k in range(3))
    n = w + l + d
    if n == 0:
        print("%s: no games" % engine)
        return 1
    score = (w + d / 2) / n
    # the spread of the per-pair scores around their mean (a lone game of
    # an unfinished pair counts as a pair of one)
    ps = [sum(v) / len(v) for v in pairs.values()]
    m = sum(ps) / len(ps)
    var = sum((x - m) ** 2 for x in ps) / max(1, len(ps) - 1)
    se = math.sqrt(var / len(ps)) if len(ps) > 1 else 0.5
    print("%s %d-%d-%d of %d (%.1f%%), black %d-%d-%d, white %d-%d-%d, void %d: Elo %+.0f [%+.0f, %+.0f], %d pairs"
          % (engine, w, l, d, n, 100 * score, b[0], b[1], b[2], wh[0], wh[1], wh[2], void,
             elo(score), elo(score - 1.96 * se), elo(score + 1.96 * se), len(ps)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
