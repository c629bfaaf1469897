#!/bin/bash
# Tests of tools/match.sh, tools/match_score.py, tools/fit_winrate.py,
# tools/judge_games.py and tools/screen_score.py (no engines needed): the scorer on a hand-made SGF
# file, the win-rate fit against a stand-in for the analysis, the match
# driver against a stand-in for c-gomoku-cli that records its arguments and
# writes games whose results follow from them, and the judge against a
# stand-in pbrain engine. Prints one line per check; exits non-zero on a failure.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
check() { # check NAME EXPECTED ACTUAL
    if [ "$2" == "$3" ]; then echo "ok   $1"; else echo "FAIL $1: expected [$2], got [$3]"; fails=$((fails + 1)); fi
}

# 1. The scorer. Pairs (games 2k-1, 2k): A wins both (1); black wins both
#    (1/2, twice); a draw and a loss (1/4); a void game (no engine move)
#    left out: 4-3-1, 56.25%, +44 Elo; the pairs' scores 1, 1/2, 1/2, 1/4
#    have a standard error of 0.157, so 0.5625 -+ 0.308: -187 to +331.
#    Counted for B with the void game (a white win), 4-4-1 of 9; its pairs
#    0, 1/2, 1/2, 3/4 and 1 (the lone game) give 0.5 -+ 0.325.
game() { # game GN BLACK WHITE RESULT [MOVES]
    printf '(;FF[4]GM[4]GN[%s]EV[x]RO[1.%s]RU[0]SZ[15]PB[%s]PW[%s]RE[%s]TE[t]\n;B[hh]C[opening move]%s)\n\n' \
        "$1" "$1" "$2" "$3" "$4" "${5-;W[ii]C[120ms];B[jj]C[88ms]}"
}
{
    game 1 A B B+1; game 2 B A W+1
    game 3 A B B+1; game 4 B A B+1
    game 5 A B B+1; game 6 B A B+1
    game 7 A B 0; game 8 B A B+1
    game 9 A B W+1 ''
} >"$tmp/s.sgf"
check "scorer: A" \
    "A 4-3-1 of 8 (56.2%), black 3-0-1, white 1-3-0, void 1: Elo +44 [-187, +331], 4 pairs" \
    "$(python3 "$here/tools/match_score.py" "$tmp/s.sgf")"
check "scorer: B, voids kept" \
    "B 4-4-1 of 9 (50.0%), black 3-1-0, white 1-3-1, void 0: Elo +0 [-269, +269], 5 pairs" \
    "$(python3 "$here/tools/match_score.py" --engine B --keep-void "$tmp/s.sgf")"

# 1b. The SPRT (the same formula and cases as tests/test_selfplay_sprt.c).
#    50 pairs scored 0, 1/4, 1/2, 3/4 and 1, counted 2, 10, 20, 14 and 4:
#    LLR 0.4041 at elo0 0, elo1 10. Six won pairs at 0, 50 reach 2.9628
#    (half a result at each end: one kind only), past the upper bound 2.944
#    at the sixth pair; later losses do not change the verdict. Five won
#    pairs give 2.1382: no verdict.
pair() { # pair K RESULT_OF_A_AS_BLACK RESULT_OF_A_AS_WHITE (B+1, W+1 or 0)
    game $((2 * $1 - 1)) A B "$2"; game $((2 * $1)) B A "$3"
}
{ # mixed so that no bound is crossed on the way
    k=0
    for ((i = 0; i < 20; i++)); do
        pair $((++k)) B+1 B+1                 # 1/2
        ((i < 14)) && pair $((++k)) B+1 0     # 3/4
        ((i < 10)) && pair $((++k)) W+1 0     # 1/4
        ((i < 4)) && pair $((++k)) B+1 W+1    # 1
        ((i < 2)) && pair $((++k)) W+1 B+1    # 0
    done
} >"$tmp/p.sgf"
check "scorer: SPRT, pentanomial" "LLR 0.40 (-2.94, 2.94)" \
    "$(python3 "$here/tools/match_score.py" --sprt 0,10 "$tmp/p.sgf" | grep -o 'LLR.*')"
{
    for k in 1 2 3 4 5; do pair $k B+1 W+1; done
} >"$tmp/w5.sgf"
{
    for k in 1 2 3 4 5 6; do pair $k B+1 W+1; done
    for k in 7 8; do pair $k W+1 B+1; done
} >"$tmp/w6.sgf"
check "scorer: SPRT, five won pairs" "LLR 2.14 (-2.94, 2.94)" \
    "$(python3 "$here/tools/match_score.py" --sprt 0,50 "$tmp/w5.sgf" | grep -o 'LLR.*')"
check "scorer: SPRT, decided at the sixth pair" "LLR 2.96 (-2.94, 2.94) H1 accepted at pair 6" \
    "$(python3 "$here/tools/match_score.py" --sprt 0,50 "$tmp/w6.sgf" | grep -o 'LLR.*')"
python3 "$here/tools/match_score.py" --sprt 10,0 "$tmp/w6.sgf" >/dev/null 2>&1
check "scorer: SPRT bounds in the wrong order are refused" "1" "$?"

# 2. The match driver. The stand-in runner: black wins every game, so each
#    colour-swapped pair is 1-1; it appends its arguments to calls.txt.
cat >"$tmp/cgc" <<'RUNNER'
#!/bin/bash
echo "$*" >>"$(dirname "$0")/calls.txt"
games=0 sgf= open=
while [ $# -gt 0 ]; do
    case $1 in
    -games) games=$2; shift ;;
    -sgf) sgf=$2; shift ;;
    file=*) open=${1#file=} ;;
    esac
    shift
done
[ "$games" -eq $((2 * $(wc -l <"$open"))) ] || { echo "games $games for $(wc -l <"$open") openings" >&2; exit 1; }
for ((g = 1; g <= games; g++)); do
    if ((g % 2)); then b=B w=A; else b=A w=B; fi
    printf '(;FF[4]GN[%d]PB[%s]PW[%s]RE[B+1]TE[t]\n;B[hh]C[opening move];W[ii]C[5ms];B[jj]C[7ms])\n\n' "$g" "$b" "$w"
done >"$sgf"
RUNNER
chmod +x "$tmp/cgc"
printf '#!/bin/sh\nexit 0\n' >"$tmp/engine" && chmod +x "$tmp/engine"
printf 'h8 i9 j10  # score 3\nh8i8\n\nj7 j8 j9\nk5 k6\nl5\n' >"$tmp/open.txt"
out=$(cd "$tmp" && "$here/tools/match.sh" -o open.txt -d m -k 2 -x ./cgc engine engine 2>&1 | tail -n 1)
check "match: score of 3 chunks" "A 5-5-0 of 10 (50.0%), black 5-0-0, white 0-5-0, void 0: Elo +0 [+0, +0], 5 pairs" "$out"
check "match: chunks done" "3" "$(ls "$tmp"/m/chunk-*.done | wc -l)"
check "match: openings as pos" "h8i9j10 h8i8 j7j8j9 k5k6 l5" "$(tr '\n' ' ' <"$tmp/m/openings.pos" | sed 's/ $//')"
check "match: runner calls" "3" "$(wc -l <"$tmp/calls.txt")"
check "match: equal time in every call" "3" "$(grep -c -- '-each tc=20/0.5 .* -engine name=A cmd=[^ ]*engine -engine name=B' "$tmp/calls.txt")"
rm "$tmp/m/chunk-001.done"
(cd "$tmp" && "$here/tools/match.sh" -o open.txt -d m -k 2 -T 10/0.25 -x ./cgc engine engine >/dev/null 2>&1)
check "match: resumed with one chunk" "4" "$(wc -l <"$tmp/calls.txt")"
check "match: time odds" "-engine name=B cmd=$tmp/engine tc=10/0.25" \
    "$(tail -n 1 "$tmp/calls.txt" | grep -o -- '-engine name=B [^ ]* tc=[^ ]*')"
check "match: the resumed chunk's openings" "j7j8j9 k5k6" "$(tr '\n' ' ' <"$tmp/m/chunk-001.pos" | sed 's/ $//')"
(cd "$tmp" && "$here/tools/match.sh" -o open.txt -d m -r gomoku -x ./cgc engine engine >/dev/null 2>&1)
check "match: an unknown rule is refused" "2" "$?"
(cd "$tmp" && "$here/tools/match.sh" -o open.txt -d m -k 0 -x ./cgc engine engine >/dev/null 2>&1)
check "match: a chunk of 0 is refused" "2" "$?"
check "match: refusals ran nothing" "4" "$(wc -l <"$tmp/calls.txt")"
# 3. The driver's SPRT: every pair scores 1/2 (black wins), so at elo0 0,
#    elo1 200 the LLR is -4.86 at the fifth pair: H0 accepted in the third
#    chunk of two openings, and the other two chunks are not played.
printf 'h8\ni9\nj10\nk11\nl12\nh9\nh10\nh11\nh12\nh13\n' >"$tmp/open10.txt"
calls=$(wc -l <"$tmp/calls.txt")
out=$(cd "$tmp" && "$here/tools/match.sh" -o open10.txt -d s -k 2 -s 0,200 -x ./cgc engine engine 2>&1 | tail -n 1)
check "match: SPRT stops the match" "match.sh: the SPRT has decided: LLR -4.86 (-2.94, 2.94) H0 accepted at pair 5" "$out"
check "match: SPRT, chunks played" "3" "$(($(wc -l <"$tmp/calls.txt") - calls))"
(cd "$tmp" && "$here/tools/match.sh" -o open10.txt -d s -s 5,0 -x ./cgc engine engine >/dev/null 2>&1)
check "match: SPRT bounds in the wrong order are refused" "2" "$?"
check "match: the refusal ran nothing" "3" "$(($(wc -l <"$tmp/calls.txt") - calls))"

# 4. tools/fit_winrate.py against a stand-in for `gomokud analyze` whose
#    answers give a known fit. 40 games of 60 moves, black wins games 0-29
#    and white 30-39; each gives the positions at plies 7, 10, ..., 49
#    (opening 3 + 4 to 10 before the end), 15 each. The stand-in scores
#    ply 10 (black to move) 0, ply 7 (white to move) 0, and ply 16 300 in
#    games 0-26 and 30-32; every other position it proves a win for the
#    side to move. So black to move at 0 wins 3 in 4, white to move at 0 1
#    in 4, black to move at 300 9 in 10: (0 + B) / S = ln 3 and (300 + B) / S
#    = ln 9, S = 300 / ln 3 = 273.1 and B = 300. Without the colour term
#    the best single scale is far worse.
python3 - "$tmp/fit.sgf" <<'PY'
import sys
cells = [chr(97 + x) + chr(97 + y) for y in range(15) for x in range(15)]
with open(sys.argv[1], "w") as f:
    for g in range(40):
        mv = "".join(";%s[%s]" % ("BW"[k % 2], cells[(k + 7 * g) % 225]) for k in range(60))
        f.write("(;FF[4]GM[4]GN[%d]SZ[15]RE[%s]%s)\n" % (g + 1, "B+1" if g < 30 else "W+1", mv))
PY
cat >"$tmp/fake-gomokud" <<'SH'
#!/usr/bin/env python3
import json, sys
for line in sys.stdin:
    moves = json.loads(line)["moves"]
    n, first = len(moves), moves[0]
    cell = (15 - int(first[1:])) * 15 + ord(first[0]) - 97
    g = next(g for g in range(40) if 7 * g % 225 == cell)
    score = 0 if n in (7, 10) else 300 if n == 16 and (g < 27 or 30 <= g < 33) else None
    print(json.dumps({"score": 29999, "mate": 1} if score is None else {"score": score, "mate": None}))
SH
chmod +x "$tmp/fake-gomokud"
out=$(python3 "$here/tools/fit_winrate.py" --rule freestyle --gomokud "$tmp/fake-gomokud" "$tmp/fit.sgf" 2>&1)
check "winrate fit: positions and proofs" "freestyle: 600 positions of 40 decided games, 100000 nodes each; 490 proven (223 of them the game's result), 110 fitted" \
    "$(echo "$out" | sed -n 1p)"
check "winrate fit: S and black's offset" "S 273.1, black +300.0" "$(echo "$out" | sed -n 2p | grep -o '^S [0-9.]*, black [-+0-9.]*')"
check "winrate fit: the rule's committed curve" \
    "committed $(sed -n 's/^#define ENGINE_WINRATE_SCALE_FREESTYLE //p' "$here/engine/engine.h"), +$(sed -n 's/^#define ENGINE_WINRATE_BLACK_FREESTYLE //p' "$here/engine/engine.h")" \
    "$(echo "$out" | sed -n 2p | grep -o 'committed [0-9.]*, [-+0-9.]*')"
python3 "$here/tools/fit_winrate.py" --rule freestyle --gomokud "$tmp/fake-gomokud" "$tmp/s.sgf" >/dev/null 2>&1
check "winrate fit: too few positions are refused" "1" "$?"

# 5. tools/judge_games.py against a stand-in judge that rates a position by
#    its stone count n alone (n 1: 20, 2: 30, 3: -500, 4: -100 as gomokud
#    prints it, 5: a loss in 7 plies, 6: gomokud's "mate -5", 10 plies,
#    7: -M5; the judge's move is o15 with one stone, else a1). Game 1: A as black loses; its positions
#    have 2, 4 and 6 stones: rated -100 at ply 4, then mated in 10: one move
#    let the win in. Game 2: A as white loses from 1, 3, 5 and 7 stones:
#    at -500 before the mate, below the threshold, so no single move.
#    Game 3, won by A, is not judged; B lost it as white (1, 3, 5 stones).
#    Game 4 is void (no engine moved): not counted.
#    Games 5 and 6, drawn, have A as white up to 13 stones: at 11 the
#    judge announces A's win (+M9) and plays a1; at 13 it is gone. In game
#    5 A played b2 there: it let the win slip. In game 6 A played a1, the
#    judge's own move: the judge's horizon, not a slip. Between the
#    positions rated within 1000, game 5's A played another move than the
#    judge's at 1 stone (20, then -500 at 3), game 6's the judge's (o15).
cat >"$tmp/judge" <<'SH'
#!/usr/bin/env python3
import sys
say = {1: 'Eval 20', 2: 'Eval 30', 3: 'Eval -500', 4: 'depth 9 seldepth 12 score -100 winrate 0.4',
       5: 'Eval -M7', 6: 'depth 3 seldepth 9 score -29990 mate -5 winrate 0.000', 7: 'Eval -M5',
       9: 'Eval 40', 11: 'Eval M9', 13: 'Eval 60'}
n, board = 0, False
for line in sys.stdin:
    line = line.strip()
    if line.startswith('START'): print('OK', flush=True)
    elif line == 'BOARD': n, board = 0, True
    elif line == 'DONE':
        board = False
        print('MESSAGE depth 1 Eval 0', flush=True)
        print('MESSAGE ' + say.get(n, 'Eval 0'), flush=True)
        print('14,14' if n == 1 else '0,0', flush=True)
    elif board: n += 1
    elif line == 'END': break
SH
chmod +x "$tmp/judge"
moves6=';W[ii]C[1ms];B[jj]C[1ms];W[kk]C[1ms];B[ll]C[1ms];W[mm]C[1ms];B[gg]C[1ms]'
{
    game 1 A B W+1 "$moves6"
    game 2 B A B+1 "$moves6;W[ff]C[1ms];B[ee]C[1ms]"
    game 3 A B B+1 "$moves6"
    game 4 A B W+1 ''
    game 5 B A 0 "$moves6;W[ff]C[1ms];B[ee]C[1ms];W[dd]C[1ms];B[cc]C[1ms];W[bb]C[1ms];B[ab]C[1ms];W[ac]C[1ms]"
    game 6 B A 0 "${moves6/W\[ii\]/W[oo]};W[ff]C[1ms];B[ee]C[1ms];W[dd]C[1ms];B[cc]C[1ms];W[aa]C[1ms];B[ab]C[1ms];W[ac]C[1ms]"
} >"$tmp/j.sgf"
out=$(python3 "$here/tools/judge_games.py" --judge "$tmp/judge" --cache "$tmp/j.cache" "$tmp/j.sgf")
check "judge: a move that let a win in" "j.sgf:1 black: ply 4, rated -100, then -M10 | 2:30 4:-100 6:-M10" \
    "$(echo "$out" | sed -n 1p)"
check "judge: lost move by move" "j.sgf:2 white: no single move | 1:20 3:-500 5:-M7 7:-M5" "$(echo "$out" | sed -n 2p)"
check "judge: summary" \
    "2 games of A (both, loss): 1 let a forced win in with one move (rated -400 or better before it; median -100, median ply 4, the win median 10 plies)" \
    "$(echo "$out" | sed -n 3p)"
check "judge: answers cached" "7" "$(wc -l <"$tmp/j.cache")"
out2=$(python3 "$here/tools/judge_games.py" --judge false --cache "$tmp/j.cache" "$tmp/j.sgf")
check "judge: a second run reads the cache alone" "$out" "$out2"
check "judge: by engine, colour and result" \
    "j.sgf:3 white: no single move | 1:20 3:-500 5:-M7 / 1 games of B (white, loss): 0 let a forced win in with one move / 0 of them with a forced win of B's at some point; 0 let it slip with one move / 1 moves between positions rated within 1000: the judge's own 0 (0%), rating change median -; another 1, median -520" \
    "$(python3 "$here/tools/judge_games.py" --judge "$tmp/judge" --engine B --colour white "$tmp/j.sgf" | paste -sd/ | sed 's|/| / |g')"
evals='1:20 3:-500 5:-M7 7:-M5 9:40 11:+M9 13:60'
check "judge: a win let slip, the judge's own horizon, the moves' rating changes" \
    "j.sgf:5 white: no single move | $evals / j.sgf:5 white: let a win slip at ply 11, +M9, then 60 (the judge played 0,0, the engine 1,1) / j.sgf:6 white: no single move | $evals / 2 games of A (both, draw): 0 let a forced win in with one move / 2 of them with a forced win of A's at some point (2 drawn); 1 let it slip with one move (then 1 drawn) / 2 moves between positions rated within 1000: the judge's own 1 (50%), rating change median -520; another 1, median -520" \
    "$(python3 "$here/tools/judge_games.py" --judge "$tmp/judge" --result draw "$tmp/j.sgf" | paste -sd/ | sed 's|/| / |g')"

# 6. The move screen: judge_games.py --requests writes `gomokud analyze`
#    requests for A's undecided early positions (|rating| <= 1000), each
#    position once, the judge's move in the id: games 1 and 2 give two
#    each, game 3 repeats game 1, games 5 and 6 add the positions at 9 and
#    13 stones (and game 6 its own at 3): 9 in all, 5 within A's first two
#    moves. tools/screen_score.py scores answers against those ids.
python3 "$here/tools/judge_games.py" --judge "$tmp/judge" --cache "$tmp/j.cache" --result any --requests "$tmp/rq.jsonl" \
    --nodes 5000 "$tmp/j.sgf" >/dev/null
check "screen: requests" "9" "$(wc -l <"$tmp/rq.jsonl")"
check "screen: a request" '{"id": "0.a15", "rule": "freestyle", "board_size": 15, "moves": [[7, 7], [8, 8]], "limits": {"nodes": 5000}}' \
    "$(head -1 "$tmp/rq.jsonl")"
check "screen: the judge's one-stone move in the id" "2.o1" "$(sed -n 3p "$tmp/rq.jsonl" | grep -o '"[0-9]*\.[a-o][0-9]*"' | tr -d '"')"
python3 "$here/tools/judge_games.py" --judge false --cache "$tmp/j.cache" --result any --requests "$tmp/rq2.jsonl" \
    --early 2 "$tmp/j.sgf" >/dev/null
check "screen: --early" "5" "$(wc -l <"$tmp/rq2.jsonl")"
printf '%s\n' '{"id":"0.a15","best_move":"a15"}' '{"id":"1.a15","best_move":"h8"}' '{"id":"2.o1","best_move":"o1"}' >"$tmp/a1.jsonl"
printf '%s\n' '{"id":"0.a15","best_move":"a15"}' '{"id":"1.a15","best_move":"a15"}' '{"id":"2.o1","best_move":"o1"}' \
    '{"type":"x","status":400,"detail":"a problem is not an answer"}' >"$tmp/a2.jsonl"
check "screen: scored" "$tmp/a1.jsonl: the judge's move in 2 of 3 (66.7%)" "$(python3 "$here/tools/screen_score.py" "$tmp/a1.jsonl")"
check "screen: two builds compared" \
    "$tmp/a1.jsonl: the judge's move in 2 of 3 (66.7%)|$tmp/a2.jsonl: the judge's move in 3 of 3 (100.0%)|only the first 0, only the second 1: +1 for the second (noise about +-2)" \
    "$(python3 "$here/tools/screen_score.py" "$tmp/a1.jsonl" "$tmp/a2.jsonl" | paste -sd'|')"

#    A rule gomokud analyze has no name for (c-gomoku-cli's 2) is refused,
#    with nothing written.
sed 's/RU\[0\]/RU[2]/' "$tmp/j.sgf" >"$tmp/r2.sgf"
python3 "$here/tools/judge_games.py" --judge "$tmp/judge" --requests "$tmp/rq3.jsonl" "$tmp/r2.sgf" >/dev/null 2>"$tmp/r2.err"
check "screen: an unknown rule is refused" "1 judge_games: j.sgf:1: rule 2 has no name for gomokud analyze" \
    "$? $(sed 's/r2.sgf/j.sgf/' "$tmp/r2.err")"
check "screen: the refusal wrote nothing" "no" "$([ -e "$tmp/rq3.jsonl" ] && echo yes || echo no)"
# 7. On boards above 16x16 the judge's cache keys separate the moves:
#    (0,1)(17,0) and (0,17)(1,0) are two positions, asked twice.
for first in 'ab];W[ra' 'ar];W[ba'; do
    printf '(;FF[4]GM[4]GN[1]RU[0]SZ[19]PB[A]PW[B]RE[W+1]\n;B[%s]C[1ms];B[cc]C[1ms])\n\n' "${first/]/]C[opening move]}"
done >"$tmp/big.sgf"
python3 "$here/tools/judge_games.py" --judge "$tmp/judge" --cache "$tmp/big.cache" "$tmp/big.sgf" >/dev/null
check "judge: 19x19 positions kept apart" "2" "$(wc -l <"$tmp/big.cache")"

[ "$fails" -eq 0 ] && echo "tools: all checks passed" || { echo "tools: $fails checks failed"; exit 1; }
