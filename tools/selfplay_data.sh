#!/bin/sh
# selfplay_data.sh - `make selfplay-data`: self-play games for the evaluation's
# fit, as shards of build/bin/gen-data run two at a time, then per shard the
# leaf positions drawn from its games (gen-data --leaves: positions a random
# move or two off the games, labelled by a search, for the threat-mask fit).
# Each shard file is its own checkpoint: run it again (or with more GAMES or
# LEAVES) and it goes on where it stopped. Settings come from the
# environment (see the Makefile).
set -eu
dir=${SELFPLAY_DIR:-data/selfplay}
rules=${SELFPLAY_RULES:-freestyle renju standard}
shards=${SELFPLAY_SHARDS:-2}
games=${SELFPLAY_GAMES:-5000}
nodes=${SELFPLAY_NODES:-5000}
leaves=${SELFPLAY_LEAVES:-15000}
jobs=${SELFPLAY_JOBS:-2}
bin=${GEN_DATA:-build/bin/gen-data}
mkdir -p "$dir"

# one "rule shard" pair a line, for xargs
shard_list() {
    for r in $rules; do
        s=0
        while [ "$s" -lt "$shards" ]; do
            echo "$r $s"
            s=$((s + 1))
        done
    done
}

shard_list | xargs -P "$jobs" -n 2 sh -c \
    '"$0" --rule "$1" --shard "$2" --games '"$games"' --nodes '"$nodes"' --out '"$dir"'/"$1-$2".games && echo "$1 shard $2: $(wc -l < '"$dir"'/"$1-$2".games) games"' "$bin"
shard_list | xargs -P "$jobs" -n 2 sh -c \
    '"$0" --leaves '"$dir"'/"$1-$2".games --positions '"$leaves"' --nodes '"$nodes"' --shard "$2" --out '"$dir"'/"$1-$2".leaves && echo "$1 shard $2: $(wc -l < '"$dir"'/"$1-$2".leaves) leaf positions"' "$bin"
