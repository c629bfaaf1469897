#!/usr/bin/env python3
"""Scores c-gomoku-cli matches from their SGF files.

usage: tools/match_score.py [--engine NAME] [--keep-void]
                            [--sprt ELO0,ELO1 [--alpha A] [--beta B]] FILE.sgf...

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

--sprt ELO0,ELO1 adds the sequential probability ratio test of H0 (A is
ELO0 Elo stronger) against H1 (ELO1), with error rates --alpha and --beta
(0.05 each), as `gomokud selfplay --sprt` runs it: the generalised SPRT on
the complete pairs' scores (pentanomial), taken in order (file, then GN),
its log-likelihood ratio LLR = N (s1 - s0) (2m - s0 - s1) / (2v) for N pairs
of mean score m and variance v, no verdict before the fifth pair, and the
test over at the first pair whose LLR leaves (ln(beta / (1 - alpha)),
ln((1 - beta) / alpha)). The line then ends with the LLR, e.g.
  ..., 281 pairs, LLR 1.58 (-2.94, 2.94)
or, once decided, with the verdict and the pair that gave it (later games
do not change it):
  ..., 8 pairs, LLR 2.96 (-2.94, 2.94) H1 accepted at pair 6
"""
import math
import sys

import sgf


def elo(p):
    p = min(max(p, 1e-6), 1 - 1e-6)
    return round(-400.0 * math.log10(1.0 / p - 1.0))  # an int: never "-0"


SPRT_MIN_PAIRS = 5  # as gomokud selfplay: no verdict on fewer pairs


def expected_score(e):
    return 1.0 / (1.0 + 10.0 ** (-e / 400.0))


def llr(counts, elo0, elo1):
    """The GSPRT's LLR of pentanomial counts (pair scores 0, 1/4, ..., 1),
    as server/cmd_selfplay.c's selfplay_llr computes it."""
    k = len(counts)
    n = [float(c) for c in counts]
    if sum(n) == 0:
        return 0.0
    if sum(1 for c in counts if c > 0) < 2:  # one kind only: half a result at each end
        n[0] += 0.5
        n[-1] += 0.5
    total = sum(n)
    mean = sum(n[i] * i / (k - 1) for i in range(k)) / total
    var = sum(n[i] * (i / (k - 1) - mean) ** 2 for i in range(k)) / total
    s0, s1 = expected_score(elo0), expected_score(elo1)
    return total * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)


def sprt(pairs, elo0, elo1, alpha, beta):
    """Runs the test over the complete pairs in order; returns the LLR, the
    bounds, the verdict ("H1", "H0" or "") and the pair that gave it."""
    lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    counts, value, n = [0] * 5, 0.0, 0
    for key in sorted(pairs):
        games = pairs[key]
        if len(games) != 2:
            continue
        counts[int(round(2 * sum(games)))] += 1
        n += 1
        value = llr(counts, elo0, elo1)
        if n >= SPRT_MIN_PAIRS and (value >= upper or value <= lower):
            return value, lower, upper, "H1" if value >= upper else "H0", n
    return value, lower, upper, "", n


def number(arg, name):
    try:
        return float(arg)
    except (TypeError, ValueError):
        sys.exit("%s needs a number, not %r" % (name, arg))


def main(argv):
    engine, keep_void, files = "A", False, []
    test, alpha, beta = None, 0.05, 0.05
    it = iter(argv)
    for a in it:
        if a == "--engine":
            engine = next(it, None)
            if engine is None:
                sys.exit("--engine needs a name")
        elif a == "--keep-void":
            keep_void = True
        elif a == "--sprt":
            v = next(it, None) or ""
            parts = v.split(",")
            if len(parts) != 2:
                sys.exit("--sprt needs ELO0,ELO1, not %r" % v)
            test = (number(parts[0], "--sprt"), number(parts[1], "--sprt"))
            if test[0] >= test[1]:
                sys.exit("--sprt needs ELO0 < ELO1")
        elif a in ("--alpha", "--beta"):
            v = number(next(it, None), a)
            if not 0 < v < 0.5:
                sys.exit("%s needs a number between 0 and 0.5" % a)
            if a == "--alpha":
                alpha = v
            else:
                beta = v
        elif a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        else:
            files.append(a)
    if not files:
        sys.exit("usage: tools/match_score.py [--engine NAME] [--keep-void] [--sprt ELO0,ELO1] FILE.sgf...")
    void = 0
    by_colour = {"B": [0, 0, 0], "W": [0, 0, 0]}
    pairs = {}
    n_seen = 0
    for g in sgf.read(files):
        n_seen += 1
        colour = g.colour_of(engine)
        if colour is None:
            continue
        if g.void and not keep_void:
            void += 1
            continue
        k = ("win", "loss", "draw").index(g.result_for(colour))
        by_colour[colour][k] += 1
        pair = (0, (int(g.gn) - 1) // 2) if g.gn.isdigit() else (1, n_seen)  # a game without GN: a pair of its own
        pairs.setdefault((g.file, pair), []).append((1.0, 0.0, 0.5)[k])
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
    tail = ""
    if test:
        value, lower, upper, verdict, at = sprt(pairs, test[0], test[1], alpha, beta)
        tail = ", LLR %.2f (%.2f, %.2f)" % (value, lower, upper)
        if verdict:
            tail += " %s accepted at pair %d" % (verdict, at)
    print("%s %d-%d-%d of %d (%.1f%%), black %d-%d-%d, white %d-%d-%d, void %d: Elo %+.0f [%+.0f, %+.0f], %d pairs%s"
          % (engine, w, l, d, n, 100 * score, b[0], b[1], b[2], wh[0], wh[1], wh[2], void,
             elo(score), elo(score - 1.96 * se), elo(score + 1.96 * se), len(ps), tail))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
