#!/bin/sh
# calibrate_levels.sh GOMOKUD - the Elo ladder of the play levels (make calibrate-levels).
#
# Plays each level against the next (gomokud selfplay --a-level N+1 --b-level N)
# from selfplay's balanced freestyle openings, colours swapped, on one thread,
# then writes docs/levels.md: the command, each pair's wins-draws-losses and
# the Elo ladder anchored at level 1 = 0. The top level plays at
# LEVEL_TOP_MS per move (its server default is a whole second).
#   LEVEL_GAMES   games per pair (default 24)
#   LEVEL_TOP_MS  time per move of the top level (default 200)
#   LEVEL_LOG     progress log (default build/calibrate-levels.log)
#   LEVEL_OUT     the report (default docs/levels.md)
set -eu
GOMOKUD=${1:?usage: calibrate_levels.sh GOMOKUD}
GAMES=${LEVEL_GAMES:-24}
TOP_MS=${LEVEL_TOP_MS:-200}
LOG=${LEVEL_LOG:-build/calibrate-levels.log}
OUT=${LEVEL_OUT:-docs/levels.md}
mkdir -p "$(dirname "$LOG")" "$(dirname "$OUT")"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

"$GOMOKUD" selfplay --list-levels > "$TMP/levels"
N=$(wc -l < "$TMP/levels")
START=$(date +%s)
echo "# calibrate-levels: $((N - 1)) pairs of $GAMES games, top level at $TOP_MS ms/move" >> "$LOG"
a=1
while [ "$a" -lt "$N" ]; do
    b=$((a + 1))
    echo "# level $b vs level $a" >> "$LOG"
    "$GOMOKUD" selfplay --a-level "$b" --b-level "$a" --games "$GAMES" --threads 1 --time-ms "$TOP_MS" \
        --log "$LOG" > "$TMP/pair-$a" 2> "$TMP/err-$a" || { cat "$TMP/err-$a" >&2; exit 1; }
    # "... : +W =D -L of N, score S%, Elo ..."
    sed -n 's/.*: +\([0-9]*\) =\([0-9]*\) -\([0-9]*\) of \([0-9]*\),.*/\1 \2 \3 \4/p' "$TMP/pair-$a" > "$TMP/wdl-$a"
    [ -s "$TMP/wdl-$a" ] || { echo "calibrate_levels.sh: no result for level $b vs $a" >&2; exit 1; }
    a=$b
done
SECONDS_TAKEN=$(( $(date +%s) - START ))

{
    echo "# Play levels: the Elo ladder"
    echo
    echo "Measured by \`make calibrate-levels\` (tools/calibrate_levels.sh) on $(date -u +%Y-%m-%d), in ${SECONDS_TAKEN} s"
    echo "on one core. Each level played the next one up $GAMES times from \`gomokud selfplay\`'s balanced"
    echo "freestyle openings (each opening twice, colours swapped), exactly as POST /v1/move plays:"
    echo "the level's node cap and lines, its seeded choice (the seed is the game's number), and"
    echo "engines that start every search afresh. Level $N, full strength, played at $TOP_MS ms a move"
    echo "(the server's default is 1000 ms, so level $N is somewhat stronger when served)."
    echo
    echo '```'
    echo "gomokud selfplay --a-level N+1 --b-level N --games $GAMES --threads 1 --time-ms $TOP_MS"
    echo '```'
    echo
    echo "The Elo of a pair is -400 log10(1/s - 1) for the higher level's score s, with s kept within"
    echo "1/(2 games) of 0 and 1 so that a clean sweep stays finite; the 95% interval is the normal"
    echo "approximation over games. The ladder adds the steps up from level 1 = 0; the errors of the"
    echo "steps add up too, so the top is known to a few hundred Elo at best."
    echo
    echo "| pair | wins | draws | losses | score | Elo step | 95% |"
    echo "|---|---|---|---|---|---|---|"
    a=1
    while [ "$a" -lt "$N" ]; do
        read -r w d l n < "$TMP/wdl-$a"
        awk -v a="$a" -v w="$w" -v d="$d" -v l="$l" -v n="$n" 'function elo(s) { return -400 * log(1 / s - 1) / log(10) + 0 }
            function clampd(s) { lo = 0.5 / n; return s < lo ? lo : s > 1 - lo ? 1 - lo : s }
            BEGIN { s = (w + 0.5 * d) / n; v = (w * (1 - s) ^ 2 + d * (0.5 - s) ^ 2 + l * s ^ 2) / n; se = sqrt(v / n);
                    printf "| %d vs %d | %d | %d | %d | %.1f%% | %+.0f | %+.0f to %+.0f |\n", a + 1, a, w, d, l, 100 * s,
                        elo(clampd(s)), elo(clampd(s - 1.96 * se)), elo(clampd(s + 1.96 * se)) }'
        a=$((a + 1))
    done
    echo
    echo "| level | name | nodes a move | depth | lines | temperature | safe | Elo |"
    echo "|---|---|---|---|---|---|---|---|"
    total=0
    a=1
    while read -r num name nodes depth mpv temp safe _; do
        if [ "$a" -gt 1 ]; then
            read -r w d l n < "$TMP/wdl-$((a - 1))"
            step=$(awk -v w="$w" -v d="$d" -v n="$n" 'BEGIN { s = (w + 0.5 * d) / n; lo = 0.5 / n;
                s = s < lo ? lo : s > 1 - lo ? 1 - lo : s; printf "%.0f", -400 * log(1 / s - 1) / log(10) + 0 }')
            total=$((total + step))
        fi
        [ "$nodes" = 0 ] && nodes="full ($TOP_MS ms here)"
        [ "$depth" = 0 ] && depth=-
        echo "| $num | $name | $nodes | $depth | $mpv | $temp | $safe | $total |"
        a=$((a + 1))
    done < "$TMP/levels"
} > "$OUT"
echo "# wrote $OUT" >> "$LOG"
