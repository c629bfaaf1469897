#!/usr/bin/env python3
"""heldout_puzzles.py - the held-back tactics suite, built from a snapshot of
the public puzzle collection the suite in tests/data/tactics.jsonl was drawn
from (github.com/lfz084/lfz084.github.io, puzzle/json/*.json).

    python3 tools/heldout_puzzles.py GIT_DIR COMMIT [--per-kind N] [--seed S] > heldout.jsonl
    build/bin/gomokud bench tactics --file heldout.jsonl --time-ms 1000

GIT_DIR is a clone (bare is fine) of that repository and COMMIT the revision
to read. Every 15x15 puzzle given as a move order ("stones", black first)
whose side to move agrees with the order's parity is a candidate; those of
the public suite are left out in any of the 8 symmetries, and so are
repeats (the collections share puzzles). Kinds: mode 32 is a VCF
("vcf"), mode 64 a VCT ("vct"), modes 67, 164 and 165 a win in three own
moves, the first of them maybe quiet ("win3"; the bench counts it with the
VCTs). N of each kind are drawn with the seed (default 200 and 1), so the
file is the same on every machine for the same snapshot.

The collection gives no solutions, so the lines carry no winning_moves: the
bench then counts a puzzle as solved when the engine proves a win within the
time and its proof line replays to a five. The output is not committed: it
is the check that a solver change fits the method, not the public file.
"""
import argparse
import json
import random
import subprocess
import sys

KINDS = {32: "vcf", 64: "vct", 67: "win3", 164: "win3", 165: "win3"}
RULES = {2: "renju"}  # the collection's rule 2; its move-order puzzles are all of it at b15820d


def git(gitdir, *args):
    return subprocess.run(["git", "--git-dir", gitdir, *args], capture_output=True, check=True).stdout


def moves_of(stones):
    """'H8I9J10' -> ['h8', 'i9', 'j10']"""
    out, i = [], 0
    while i < len(stones):
        j = i + 1
        while j < len(stones) and stones[j].isdigit():
            j += 1
        out.append(stones[i:j].lower())
        i = j
    return out


def xy(m):
    return ord(m[0]) - ord("a"), int(m[1:]) - 1


def canonical(moves):
    """The smallest of the 8 symmetric images of the stones (colour kept)."""
    pts = [(xy(m), i % 2) for i, m in enumerate(moves)]
    images = []
    for t in range(8):
        img = []
        for (x, y), c in pts:
            if t & 1:
                x = 14 - x
            if t & 2:
                y = 14 - y
            if t & 4:
                x, y = y, x
            img.append((x, y, c))
        images.append(tuple(sorted(img)))
    return min(images)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gitdir")
    ap.add_argument("commit")
    ap.add_argument("--per-kind", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--public", default="tests/data/tactics.jsonl")
    a = ap.parse_args()

    seen = set()
    with open(a.public, encoding="utf-8") as f:
        for line in f:
            seen.add(canonical(json.loads(line)["moves"]))

    names = git(a.gitdir, "ls-tree", "-r", "--name-only", "-z", a.commit, "puzzle/json").decode().split("\0")
    pool = {k: [] for k in set(KINDS.values())}
    for name in sorted(n for n in names if n.endswith(".json")):
        try:
            doc = json.loads(git(a.gitdir, "show", a.commit + ":" + name))
        except (subprocess.CalledProcessError, ValueError):
            continue
        if not isinstance(doc, dict):
            continue
        for i, p in enumerate(doc.get("puzzles", [])):
            kind = KINDS.get(p.get("mode"))
            if not kind or p.get("size") != 15 or p.get("rule") not in RULES or not p.get("stones"):
                continue
            ref = "%s#%d" % (name, i)
            moves = moves_of(p["stones"])
            side = p.get("side")
            if side not in (1, 2) or (len(moves) % 2 == 0) != (side == 1) or len(set(moves)) != len(moves):
                continue
            if not all(m[0] in "abcdefghijklmno" and m[1:].isdigit() and 1 <= int(m[1:]) <= 15 for m in moves):
                continue
            key = canonical(moves)
            if key in seen:
                continue
            seen.add(key)
            pool[kind].append({
                "src": "lfz084/lfz084.github.io@%s:%s" % (a.commit[:7], ref),
                "rule": RULES[p["rule"]],
                "size": 15,
                "moves": moves,
                "to_move": "black" if side == 1 else "white",
                "kind": kind,
                "winning_moves": [],
            })
    rng = random.Random(a.seed)
    for kind in sorted(pool):
        picked = pool[kind] if len(pool[kind]) <= a.per_kind else rng.sample(pool[kind], a.per_kind)
        print("%s: %d of %d" % (kind, len(picked), len(pool[kind])), file=sys.stderr)
        for p in picked:
            print(json.dumps(p, ensure_ascii=False))


if __name__ == "__main__":
    main()
