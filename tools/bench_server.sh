#!/bin/sh
# bench_server.sh - what the HTTP layer of gomokud costs, on loopback.
#
#   tools/bench_server.sh [path/to/gomokud]        (or: make bench-server)
#
# 1. Trivial requests (a depth-1 search, POST /v1/analyze) with keep-alive at
#    1, 16 and 64 connections, with wrk: requests/s, p50 and p99 latency.
# 2. Searches of BENCH_SEARCH_MS (100) ms, one at a time over one keep-alive
#    connection, with curl: the client-side latency minus the engine's own
#    time, i.e. what parsing, queueing, the thread hand-offs, rendering and
#    the network add to a search. The engine time comes two ways: the
#    response's time_ms (whole milliseconds, truncated, so that figure is
#    high by ~0.5 ms) and the server's search-time histogram in /metrics
#    (microseconds; the mean is exact).
#
# The result cache is off: every request here would otherwise be a hit, and
# the figures would measure the cache, not the path to a worker and back.
#
# Environment: BENCH_SECONDS (5) per wrk run, BENCH_WORKERS (2),
# BENCH_SEARCHES (20), BENCH_SEARCH_MS (100), BENCH_LOG_LEVEL (info: the
# access log is on, as in production; it goes to a temporary file).
# Needs wrk and curl (scripts/deps.sh bench). Loopback only; every step is
# bounded in time.
set -eu

BIN=${1:-build/bin/gomokud}
SECS=${BENCH_SECONDS:-5}
WORKERS=${BENCH_WORKERS:-2}
SEARCHES=${BENCH_SEARCHES:-20}
SEARCH_MS=${BENCH_SEARCH_MS:-100}
LOG_LEVEL=${BENCH_LOG_LEVEL:-info}
HERE=$(cd "$(dirname "$0")" && pwd)
LUA="$HERE/bench_server.lua"

for tool in wrk curl awk; do
    command -v "$tool" >/dev/null 2>&1 || { echo "bench_server: $tool is missing (scripts/deps.sh bench)" >&2; exit 1; }
done
[ -x "$BIN" ] || { echo "bench_server: no server binary at $BIN" >&2; exit 1; }

TMP=$(mktemp -d)
PID=
cleanup() {
    if [ -n "$PID" ]; then
        kill "$PID" 2>/dev/null || true
        wait "$PID" 2>/dev/null || true
    fi
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$BIN" serve --bind 127.0.0.1 --port 0 --workers "$WORKERS" --log-level "$LOG_LEVEL" \
    --max-connections 512 --max-time-ms 10000 --result-cache 0 2>"$TMP/server.log" &
PID=$!

PORT=
i=0
while [ $i -lt 100 ]; do
    PORT=$(sed -n 's/.*msg=listening.* port=\([0-9]*\).*/\1/p' "$TMP/server.log" | head -n 1)
    [ -n "$PORT" ] && break
    kill -0 "$PID" 2>/dev/null || { echo "bench_server: the server did not start:" >&2; cat "$TMP/server.log" >&2; exit 1; }
    sleep 0.1
    i=$((i + 1))
done
[ -n "$PORT" ] || { echo "bench_server: no 'listening' line from the server" >&2; exit 1; }
URL="http://127.0.0.1:$PORT"

echo "gomokud HTTP bench: $(nproc) cores, $WORKERS workers, log_level=$LOG_LEVEL, $SECS s per run"
echo
echo "1. trivial requests: POST /v1/analyze {\"moves\":[\"h8\"],\"limits\":{\"depth\":1}}, keep-alive"
printf '   %-12s %12s %10s %10s %8s\n' connections requests/s p50 p99 errors
for c in 1 16 64; do
    timeout $((SECS + 20)) wrk -t1 -c"$c" -d"${SECS}s" --timeout 5s --latency -s "$LUA" "$URL/v1/analyze" \
        >"$TMP/wrk.$c" 2>&1 || { echo "bench_server: wrk failed:" >&2; cat "$TMP/wrk.$c" >&2; exit 1; }
    awk -v c="$c" '
        /Requests\/sec/ { rps = $2 }
        $1 == "50%" { p50 = $2 }
        $1 == "99%" { p99 = $2 }
        /Non-2xx/ { err += $NF }
        /Socket errors/ { err += 1 }
        END { printf "   %-12s %12.0f %10s %10s %8d\n", c, rps, p50, p99, err }' "$TMP/wrk.$c"
done

echo
echo "2. ${SEARCH_MS} ms searches, $SEARCHES in a row on one keep-alive connection"
metric() { # value of one /metrics series
    curl -s --max-time 5 "$URL/metrics" | awk -v s="$1" '$1 == s { print $2 }'
}
sum0=$(metric gomokud_search_duration_seconds_sum)
cnt0=$(metric gomokud_search_duration_seconds_count)
printf '{"moves":["h8","h9","j10"],"limits":{"time_ms":%s}}' "$SEARCH_MS" >"$TMP/body.json"
set --
i=0
while [ $i -lt "$SEARCHES" ]; do
    set -- "$@" "$URL/v1/analyze"
    i=$((i + 1))
done
timeout $((SEARCHES * (SEARCH_MS / 1000 + 2) + 20)) \
    curl -s -H 'Content-Type: application/json' -H 'Expect:' --data-binary @"$TMP/body.json" \
    -w '\nTOTAL %{time_total} %{http_code}\n' "$@" >"$TMP/searches" ||
    { echo "bench_server: curl failed" >&2; exit 1; }
sum1=$(metric gomokud_search_duration_seconds_sum)
cnt1=$(metric gomokud_search_duration_seconds_count)

awk -v s0="$sum0" -v s1="$sum1" -v c0="$cnt0" -v c1="$cnt1" '
    match($0, /"time_ms":[0-9]+/) { eng[n] = substr($0, RSTART + 10, RLENGTH - 10) + 0 }
    $1 == "TOTAL" {
        if ($3 != 200) bad++
        lat[n] = $2 * 1000; sumlat += lat[n]; add[n] = lat[n] - eng[n]; n++
    }
    END {
        if (n == 0 || bad) { print "   failed: " n " answers, " bad + 0 " not 200"; exit 1 }
        for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (add[j] < add[i]) { t = add[i]; add[i] = add[j]; add[j] = t }
        searches = c1 - c0
        engine_mean = searches > 0 ? (s1 - s0) * 1000 / searches : 0
        printf "   client latency, mean:                %8.3f ms\n", sumlat / n
        printf "   engine time from /metrics, mean:     %8.3f ms  (%d searches)\n", engine_mean, searches
        printf "   added by the HTTP layer, mean:       %8.3f ms  (latency - engine time)\n", sumlat / n - engine_mean
        printf "   latency - time_ms, median / max:     %8.3f / %.3f ms  (time_ms is truncated: ~0.5 ms high)\n",
               add[int(n / 2)], add[n - 1]
    }' "$TMP/searches"
