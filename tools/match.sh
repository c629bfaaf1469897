#!/bin/bash
# A match of two pbrain engines through c-gomoku-cli, played in chunks of
# openings so that it can be stopped and resumed, and bounded in time.
#
# usage: tools/match.sh -o OPENINGS -d OUTDIR [options] ENGINE_A ENGINE_B
#   -o FILE     openings, one a line: `gomokud opengen` output ("h8 i9 j10  # score -3")
#               or c-gomoku-cli's pos notation ("h8i9j10"); each is played twice,
#               colours swapped
#   -d DIR      results: chunk-NNN.sgf and .log per chunk, progress.txt (the score so far)
#   -r RULE     freestyle (default), standard or renju
#   -t TC       both engines' time control, c-gomoku-cli's match/turn seconds (default 20/0.5)
#   -T TC       engine B's time control instead (time odds), e.g. 10/0.25
#   -c N        games at once (default 1; two on a two-core machine, one per core)
#   -k N        openings a chunk (default 20, so 40 games)
#   -m MINUTES  start no chunk after this many minutes (default: no limit)
#   -s E0,E1    stop once an SPRT of H0 (A is E0 Elo stronger) against H1 (E1)
#               decides, alpha = beta = 0.05 (tools/match_score.py --sprt; checked
#               after each chunk, so the chunk that decides is played out)
#   -C DIR      directory the engines start in (Rapfi reads its config.toml there; default .)
#   -x PATH     the c-gomoku-cli binary (default: $CGC, else c-gomoku-cli on PATH)
# A finished chunk is kept; an unfinished one is played again from its start.
# Scores: tools/match_score.py DIR/chunk-*.sgf (progress.txt has its line after each chunk).
set -eu

usage() { sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 2; } # the comment above

here=$(cd "$(dirname "$0")" && pwd)
openings= out= rule=freestyle tc=20/0.5 tc_b= conc=1 chunk=20 minutes= sprt= rundir=. cgc=${CGC:-c-gomoku-cli}
while getopts o:d:r:t:T:c:k:m:s:C:x:h opt; do
    case $opt in
    o) openings=$OPTARG ;;
    d) out=$OPTARG ;;
    r) rule=$OPTARG ;;
    t) tc=$OPTARG ;;
    T) tc_b=$OPTARG ;;
    c) conc=$OPTARG ;;
    k) chunk=$OPTARG ;;
    m) minutes=$OPTARG ;;
    s) sprt=$OPTARG ;;
    C) rundir=$OPTARG ;;
    x) cgc=$OPTARG ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] && [ -n "$openings" ] && [ -n "$out" ] || usage
case $rule in
freestyle) rule_n=0 ;;
standard) rule_n=1 ;;
renju) rule_n=4 ;;
*) echo "match.sh: unknown rule '$rule' (freestyle, standard or renju)" >&2; exit 2 ;;
esac
for n in "$conc" "$chunk" ${minutes:+"$minutes"}; do
    case $n in '' | *[!0-9]* | 0) echo "match.sh: '$n' is not a positive whole number" >&2; exit 2 ;; esac
done
num='-?[0-9]+([.][0-9]+)?'
if [ -n "$sprt" ] && ! { [[ $sprt =~ ^$num,$num$ ]] && awk -F, '{ exit !($1 < $2) }' <<<"$sprt"; }; then
    echo "match.sh: -s needs ELO0,ELO1 with ELO0 < ELO1, not '$sprt'" >&2
    exit 2
fi
abs() { case $1 in /*) echo "$1" ;; *) echo "$(pwd)/$1" ;; esac; }
a=$(abs "$1") b=$(abs "$2")
for e in "$a" "$b"; do [ -x "$e" ] || { echo "match.sh: $e is not an executable" >&2; exit 2; }; done
command -v "$cgc" >/dev/null 2>&1 || [ -x "$cgc" ] || {
    echo "match.sh: c-gomoku-cli not found; build it (see the README, \"Matches against other engines\") and pass -x PATH" >&2
    exit 2
}
cgc=$(command -v "$cgc" || abs "$cgc")
mkdir -p "$out"
out=$(cd "$out" && pwd)
rundir=$(cd "$rundir" && pwd)

# the openings in pos notation, one file a chunk
sed 's/#.*//; s/[[:space:]]//g; /^$/d' "$openings" >"$out/openings.pos"
total=$(wc -l <"$out/openings.pos")
[ "$total" -gt 0 ] || { echo "match.sh: no openings in $openings" >&2; exit 2; }
chunks=$(((total + chunk - 1) / chunk))
echo "A = $a" >"$out/engines.txt"
echo "B = $b" >>"$out/engines.txt"
echo "rule $rule, tc $tc${tc_b:+ (B $tc_b)}, $total openings in $chunks chunks of $chunk" >>"$out/engines.txt"

start=$(date +%s)
score() { python3 "$here/match_score.py" ${sprt:+--sprt "$sprt"} "$out"/chunk-*.sgf; }
for ((i = 0; i < chunks; i++)); do
    name=$(printf 'chunk-%03d' "$i")
    [ -e "$out/$name.done" ] && continue
    if [ -n "$minutes" ] && [ $(($(date +%s) - start)) -ge $((minutes * 60)) ]; then
        echo "match.sh: $minutes minutes up; run the same command again to go on" >&2
        break
    fi
    sed -n "$((i * chunk + 1)),$(((i + 1) * chunk))p" "$out/openings.pos" >"$out/$name.pos"
    games=$((2 * $(wc -l <"$out/$name.pos")))
    rm -f "$out/$name.sgf" # (a chunk cut short is played again, and does not count)
    if [ -n "$sprt" ] && [ "$i" -gt 0 ] && line=$(score) && [[ $line == *" accepted at pair "* ]]; then
        echo "match.sh: the SPRT has decided: ${line#*pairs, }" >&2
        break
    fi
    if [ -n "$tc_b" ]; then
        engines=(-each maxmemory=268435456 tolerance=3 -engine name=A "cmd=$a" "tc=$tc" -engine name=B "cmd=$b" "tc=$tc_b")
    else
        engines=(-each "tc=$tc" maxmemory=268435456 tolerance=3 -engine name=A "cmd=$a" -engine name=B "cmd=$b")
    fi
    (cd "$rundir" && "$cgc" "${engines[@]}" \
        -rule "$rule_n" -boardsize 15 -games "$games" -repeat -concurrency "$conc" -drawafter 225 \
        -openings "file=$out/$name.pos" type=pos order=sequential -sgf "$out/$name.sgf") >"$out/$name.log" 2>&1
    touch "$out/$name.done"
    score | tee "$out/progress.txt"
done
