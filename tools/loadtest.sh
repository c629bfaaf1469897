#!/usr/bin/env bash
# loadtest.sh - overload and soak tests of gomokud on loopback.
#
#   tools/loadtest.sh load [path/to/gomokud]     (make loadtest)
#   tools/loadtest.sh soak [path/to/gomokud]     (make soak)
#
# load: a server with 2 workers and a queue of 16 takes LOADTEST_SECONDS (60)
#   of POST /v1/analyze (50 ms searches) from wrk at LOADTEST_CONNECTIONS (24)
#   keep-alive connections, about ten times what it can run. Meanwhile /livez
#   is polled every second and the server's RSS sampled from /proc. Then
#   (LOADTEST_SIGTERM=1, the default) a last burst is cut by SIGTERM: the
#   server must exit 0 and every request must still get 200 or 503.
#   Fails when any status other than 200 or 503 appears, a 503 lacks
#   Retry-After, /livez fails once, a connection is reset or gets an empty
#   reply, or RSS grows by more than LOADTEST_RSS_SLACK_KIB (8192) KiB.
#   The result cache is off, so that every request is a search.
# soak: SOAK_REQUESTS (100000) requests in all: valid analyses, malformed
#   JSON, impossible positions, batches, wrong methods (wrk), and
#   SOAK_HANGUPS (400) clients that hang up mid-search or mid-body. Fails on
#   an unexpected status, a 503 without Retry-After, a dead server, or RSS
#   at the end more than LOADTEST_RSS_SLACK_KIB above the start.
#
# RSS "start" is taken after a short warm-up, once the transposition tables
# and allocator arenas are in use. LOADTEST_TT_MIB sets tt_mib (load 4,
# soak 1). Only 127.0.0.1 is ever contacted; every
# step is bounded in time. Needs wrk, curl, awk.
set -euo pipefail

MODE=${1:-load}
BIN=${2:-build/bin/gomokud}
SECS=${LOADTEST_SECONDS:-60}
CONNS=${LOADTEST_CONNECTIONS:-24}
THREADS=2
SLACK=${LOADTEST_RSS_SLACK_KIB:-8192}
SIGTERM_PHASE=${LOADTEST_SIGTERM:-1}
SOAK_REQUESTS=${SOAK_REQUESTS:-100000}
SOAK_HANGUPS=${SOAK_HANGUPS:-400}
HERE=$(cd "$(dirname "$0")" && pwd)
LUA="$HERE/loadtest.lua"
LOAD_BODY='{"moves":["h8","h9"],"limits":{"time_ms":50}}'
SLOW_BODY='{"moves":["h8","h9","j10"],"limits":{"time_ms":400}}'

case "$MODE" in load | soak) ;; *) echo "usage: $0 load|soak [gomokud]" >&2; exit 2 ;; esac
for tool in wrk curl awk; do
    command -v "$tool" >/dev/null 2>&1 || { echo "loadtest: $tool is missing (scripts/deps.sh bench)" >&2; exit 1; }
done
[ -x "$BIN" ] || { echo "loadtest: no server binary at $BIN" >&2; exit 1; }

TMP=$(mktemp -d)
PID=
SAMPLER=
cleanup() {
    [ -n "$SAMPLER" ] && kill "$SAMPLER" 2>/dev/null || true
    if [ -n "$PID" ]; then
        kill "$PID" 2>/dev/null || true
        wait "$PID" 2>/dev/null || true
    fi
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start_server() {
    "$BIN" serve --bind 127.0.0.1 --port 0 --workers 2 --queue-length 16 --max-batch 4 --tt-mib "${LOADTEST_TT_MIB:-4}" \
        --max-time-ms 2000 --default-time-ms 50 --max-connections 256 --retry-after-s 1 \
        --drain-timeout-ms 2000 --result-cache 0 --log-level info "$@" 2>"$TMP/server.log" &
    PID=$!
    PORT=
    for _ in $(seq 100); do
        PORT=$(sed -n 's/.*msg=listening.* port=\([0-9]*\).*/\1/p' "$TMP/server.log" | head -n 1)
        [ -n "$PORT" ] && break
        kill -0 "$PID" 2>/dev/null || { echo "loadtest: the server did not start:" >&2; cat "$TMP/server.log" >&2; exit 1; }
        sleep 0.1
    done
    [ -n "$PORT" ] || { echo "loadtest: no port in the log" >&2; exit 1; }
    URL="http://127.0.0.1:$PORT"
}

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$PID/status"; }

# Every second: RSS to rss.txt, /livez status to livez.txt.
sampler() {
    while :; do
        rss_kib >>"$TMP/rss.txt" 2>/dev/null || true
        code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$URL/livez" || true)
        echo "$code" >>"$TMP/livez.txt"
        sleep 1
    done
}

# p50 and p99 (ms) of the server-side durations of 200 answers to
# /v1/analyze in the access log from line $1 on.
server_latency() {
    tail -n "+$1" "$TMP/server.log" | sed -n 's/.*path=\/v1\/analyze status=200 duration_ms=\([0-9.]*\).*/\1/p' |
        sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) { print "n 0"; exit }
            i50 = int(NR * 0.50); if (i50 < 1) i50 = 1; i99 = int(NR * 0.99); if (i99 < 1) i99 = 1
            printf "n %d p50 %.2f p99 %.2f max %.2f\n", NR, v[i50], v[i99], v[NR] }'
}

# Runs wrk (wrk_run args) in the background until the access log has $1 more
# lines, then stops it with SIGINT (wrk still prints its summary). wrk's own
# per-thread stop does not end the run before its duration.
wrk_count() { # requests, seconds (bound), output file, extra env...
    local want=$1 secs=$2 out=$3
    shift 3
    local from
    from=$(wc -l <"$TMP/server.log")
    (exec env LOADTEST_THREADS=$THREADS LOADTEST_REQUESTS="$want" "$@" \
        wrk -t"$THREADS" -c"$CONNS" -d"${secs}s" --timeout 10s -s "$LUA" "$URL/v1/analyze" >"$out" 2>&1) &
    local w=$! # wrk itself (exec), so that SIGINT reaches it
    while kill -0 "$w" 2>/dev/null; do
        [ $(($(wc -l <"$TMP/server.log") - from)) -ge "$want" ] && kill -INT "$w" 2>/dev/null
        sleep 0.5
    done
    wait "$w" || true
}

wrk_run() { # seconds, output file, extra env...
    local secs=$1 out=$2
    shift 2
    env LOADTEST_THREADS=$THREADS "$@" wrk -t"$THREADS" -c"$CONNS" -d"${secs}s" --timeout 10s -s "$LUA" "$URL/v1/analyze" >"$out" 2>&1
}

FAIL=0
bad() { echo "FAIL: $*"; FAIL=1; }

check_statuses() { # file, allowed statuses (regex)
    local f=$1 allowed=$2
    awk -v ok="$allowed" '/^status / && $2 !~ ("^(" ok ")$") { print $2 }' "$f" >"$TMP/unexpected"
    [ -s "$TMP/unexpected" ] && bad "unexpected statuses: $(tr '\n' ' ' <"$TMP/unexpected")"
    local nr
    nr=$(awk '/^503_without_retry_after/ { print $2 }' "$f")
    [ "${nr:-1}" = 0 ] || bad "$nr 503 answers without Retry-After"
    local rd wr
    rd=$(awk '/^errors / { print $5 }' "$f")
    wr=$(awk '/^errors / { print $7 }' "$f")
    [ "${rd:-1}" = 0 ] && [ "${wr:-1}" = 0 ] || bad "connections reset or empty replies (read $rd, write $wr)"
    return 0
}

report_rss() { # start, end
    local max
    max=$(sort -n "$TMP/rss.txt" | tail -n 1)
    echo "rss_kib start $1 end $2 max ${max:-$2} growth $(($2 - $1)) (allowed $SLACK)"
    [ $(($2 - $1)) -le "$SLACK" ] || bad "RSS grew by $(($2 - $1)) KiB"
}

if [ "$MODE" = load ]; then
    start_server
    echo "loadtest: server pid $PID port $PORT, 2 workers, queue 16, 50 ms searches, $CONNS connections, ${SECS}s"
    wrk_run 5 "$TMP/warmup.txt" LOADTEST_BODY="$LOAD_BODY"
    RSS0=$(rss_kib)
    LINE0=$(($(wc -l <"$TMP/server.log") + 1))
    : >"$TMP/rss.txt"
    sampler &
    SAMPLER=$!
    wrk_run "$SECS" "$TMP/wrk.txt" LOADTEST_BODY="$LOAD_BODY"
    kill "$SAMPLER" 2>/dev/null || true
    wait "$SAMPLER" 2>/dev/null || true
    SAMPLER=
    RSS1=$(rss_kib)
    grep -E '^(status|503_|errors|latency)|Requests/sec' "$TMP/wrk.txt"
    check_statuses "$TMP/wrk.txt" "200|503"
    echo "server-side latency of 200s (ms): $(server_latency "$LINE0")"
    LIVEZ_N=$(wc -l <"$TMP/livez.txt")
    LIVEZ_BAD=$(grep -vc '^200$' "$TMP/livez.txt" || true)
    echo "livez polls $LIVEZ_N failures $LIVEZ_BAD"
    [ "$LIVEZ_BAD" = 0 ] || bad "/livez failed $LIVEZ_BAD times"
    report_rss "$RSS0" "$RSS1"
    if [ "$SIGTERM_PHASE" = 1 ]; then
        # A last burst with longer searches, cut by SIGTERM after 2 s.
        LINE1=$(($(wc -l <"$TMP/server.log") + 1))
        wrk_run 6 "$TMP/term.txt" LOADTEST_BODY="$SLOW_BODY" &
        WRK=$!
        sleep 2
        kill -TERM "$PID"
        rc=0
        wait "$PID" || rc=$?
        PID=
        wait "$WRK" || true
        echo "sigterm: server exit code $rc; burst: $(grep -E '^status' "$TMP/term.txt" | tr '\n' ' ')"
        grep -E '^errors' "$TMP/term.txt" | sed 's/^/sigterm: /'
        [ "$rc" = 0 ] || bad "the server exited $rc after SIGTERM"
        awk '/^status / && $2 != 200 && $2 != 503 { print }' "$TMP/term.txt" | grep -q . && bad "SIGTERM burst: unexpected status"
        # Every request the server accepted must have been answered 200 or
        # 503: the access log of the burst has no other status (499 would be
        # a request dropped without an answer). wrk's read/write errors here
        # are its reconnects at the end: connections still in the kernel's
        # listen backlog when the socket closes (reset, never accepted), and
        # writes to the closed port.
        tail -n "+$LINE1" "$TMP/server.log" | sed -n 's/.*msg=access .* status=\([0-9]*\).*/\1/p' |
            sort | uniq -c | awk '{ printf "sigterm: server answered status %s x %s\n", $2, $1 }'
        odd=$(tail -n "+$LINE1" "$TMP/server.log" | grep 'msg=access' | grep -vcE 'status=(200|503) ' || true)
        [ "$odd" = 0 ] || bad "SIGTERM burst: $odd accepted requests not answered 200/503"
        grep -q 'msg=stopped' "$TMP/server.log" || bad "no 'stopped' line in the server log"
    fi
else
    # A 1 MiB table per worker: a bigger one fills page by page over the run,
    # which shows as RSS growth that is not a leak.
    LOADTEST_TT_MIB=${LOADTEST_TT_MIB:-1}
    start_server --queue-length 64 --max-batch 8
    echo "soak: server pid $PID port $PORT, $SOAK_REQUESTS requests ($SOAK_HANGUPS hang-ups)"
    wrk_count 5000 120 "$TMP/warmup.txt" LOADTEST_MIX=soak
    sleep 1
    RSS0=$(rss_kib)
    : >"$TMP/rss.txt"
    : >"$TMP/livez.txt"
    sampler &
    SAMPLER=$!
    # Clients that hang up: half mid-search (curl gives up after 50 ms on a
    # 400 ms search), half mid-body (a raw connection that closes early).
    (
        for i in $(seq "$SOAK_HANGUPS"); do
            if [ $((i % 2)) = 0 ]; then
                curl -s -o /dev/null --max-time 0.05 -H 'Content-Type: application/json' \
                    -d "$SLOW_BODY" "$URL/v1/analyze" || true
            else
                exec 3<>"/dev/tcp/127.0.0.1/$PORT"
                printf 'POST /v1/analyze HTTP/1.1\r\nHost: x\r\nContent-Length: 200\r\n\r\n{"moves":["h8",' >&3
                exec 3>&-
            fi
        done
    ) &
    HANG=$!
    # The access log also gets the hang-ups and the /livez polls: a margin.
    wrk_count $((SOAK_REQUESTS + 100)) 900 "$TMP/wrk.txt" LOADTEST_MIX=soak
    wait "$HANG" || true
    sleep 2 # let the last cut-off searches end
    kill "$SAMPLER" 2>/dev/null || true
    wait "$SAMPLER" 2>/dev/null || true
    SAMPLER=
    kill -0 "$PID" 2>/dev/null || bad "the server died"
    RSS1=$(rss_kib)
    grep -E '^(status|503_|errors|latency)|requests in' "$TMP/wrk.txt"
    check_statuses "$TMP/wrk.txt" "200|400|405|422|503"
    total=$(awk '/^status / { s += $3 } END { print s + 0 }' "$TMP/wrk.txt")
    echo "requests answered by wrk $total + hang-up clients $SOAK_HANGUPS = $((total + SOAK_HANGUPS))"
    hang=$(curl -s --max-time 5 "$URL/metrics" | awk '/^gomokud_client_hangups_total / { print $2 }')
    echo "server saw hang-ups while waiting for a search: ${hang:-?}; requests logged 499 (client left): $(grep -c 'status=499' "$TMP/server.log" || true)"
    LIVEZ_BAD=$(grep -vc '^200$' "$TMP/livez.txt" || true)
    echo "livez polls $(wc -l <"$TMP/livez.txt") failures $LIVEZ_BAD"
    [ "$LIVEZ_BAD" = 0 ] || bad "/livez failed $LIVEZ_BAD times"
    report_rss "$RSS0" "$RSS1"
fi

if [ "$FAIL" != 0 ]; then
    echo "loadtest $MODE: FAILED"
    exit 1
fi
echo "loadtest $MODE: OK"
