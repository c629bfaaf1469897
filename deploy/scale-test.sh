#!/usr/bin/env bash
# scale-test.sh - gomokud replicas behind nginx on loopback: throughput of 3
# replicas against 1, then replicas stopped and restarted under load with no
# failed request.
#
#   deploy/scale-test.sh [path/to/gomokud]        (make scale-test)
#
# Replicas: build/bin/gomokud, 1 worker each, on free ports of 127.0.0.1, the
# result cache off (every request is a search). nginx: deploy/nginx/nginx.conf
# and gomokud.conf as shipped, copied into a temporary prefix with the
# replicas' addresses and a free listening port; not a daemon, no root-only
# path. Load: wrk (tools/loadtest.lua tallies the statuses) at
# SCALE_CONNECTIONS (12) keep-alive connections of POST /v1/analyze with a
# fixed node budget (SCALE_BODY).
#   1. throughput through nginx with 1 replica, then with 3 (SCALE_SECONDS,
#      10 s each);
#   2. SCALE_CHAOS_SECONDS (30) of load during which one replica gets SIGTERM
#      and is restarted, then every replica in turn (a rolling restart); each
#      restart waits for the replica's /readyz before the next.
# Fails when any answer is not 2xx, wrk sees a socket error (connect, read,
# write, timeout), a replica exits non-zero after SIGTERM, or does not come
# back ready. Bounded: every wait has a limit, wrk runs under timeout.
# Needs nginx, wrk, curl (scripts/deps.sh scale).
set -euo pipefail

BIN=${1:-build/bin/gomokud}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
LUA="$REPO/tools/loadtest.lua"
SECS=${SCALE_SECONDS:-10}
CHAOS_SECS=${SCALE_CHAOS_SECONDS:-30}
CONNS=${SCALE_CONNECTIONS:-12}
BODY=${SCALE_BODY:-'{"moves":["h8","h9"],"limits":{"nodes":5000}}'}
N=3

for tool in nginx wrk curl awk; do
    command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] ||
        { echo "scale-test: $tool is missing (scripts/deps.sh scale)" >&2; exit 1; }
done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$BIN" ] || { echo "scale-test: no server binary at $BIN" >&2; exit 1; }

TMP=$(mktemp -d)
mkdir -p "$TMP/ng/logs" "$TMP/ng/temp"
declare -a PIDS PORTS
NGINX_PID=
WRK=
cleanup() {
    [ -n "$WRK" ] && kill "$WRK" 2>/dev/null || true
    for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
    [ -n "$NGINX_PID" ] && kill -QUIT "$NGINX_PID" 2>/dev/null || true
    for p in "${PIDS[@]:-}" $NGINX_PID; do [ -n "$p" ] && timeout 15 tail --pid="$p" -f /dev/null 2>/dev/null || true; done
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

FAIL=0
bad() { echo "FAIL: $*"; FAIL=1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# start_replica INDEX PORT (0: any free port, read from the "listening" line)
start_replica() {
    local i=$1 port=$2 log="$TMP/replica$1.log" from
    touch "$log"
    from=$(wc -l <"$log")
    "$BIN" serve --bind 127.0.0.1 --port "$port" --workers 1 --tt-mib 16 --result-cache 0 \
        --drain-timeout-ms 5000 --log-level info 2>>"$log" &
    PIDS[i]=$!
    local got=
    for _ in $(seq 100); do
        got=$(tail -n "+$((from + 1))" "$log" | sed -n 's/.*msg=listening.* port=\([0-9]*\).*/\1/p' | head -n 1)
        [ -n "$got" ] && break
        kill -0 "${PIDS[i]}" 2>/dev/null || { echo "scale-test: replica $i did not start:" >&2; tail -n 5 "$log" >&2; exit 1; }
        sleep 0.05
    done
    [ -n "$got" ] || { echo "scale-test: replica $i logged no port" >&2; exit 1; }
    PORTS[i]=$got
}

# wait_ready INDEX: /readyz 200 within 10 s
wait_ready() {
    for _ in $(seq 200); do
        [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "http://127.0.0.1:${PORTS[$1]}/readyz" || true)" = 200 ] && return 0
        sleep 0.05
    done
    bad "replica $1 not ready 10 s after its start"
    return 1
}

# stop_replica INDEX: SIGTERM, wait (bounded) for its exit, check exit code 0
stop_replica() {
    local i=$1 pid=${PIDS[$1]} rc=0
    kill -TERM "$pid"
    timeout 20 tail --pid="$pid" -f /dev/null || { bad "replica $i still running 20 s after SIGTERM"; kill -KILL "$pid"; }
    wait "$pid" || rc=$?
    PIDS[i]=
    [ "$rc" = 0 ] || bad "replica $i exited $rc after SIGTERM"
}

write_replicas() { # how many replicas nginx sends to
    : >"$TMP/ng/gomokud-replicas.conf"
    for i in $(seq 1 "$1"); do
        echo "server 127.0.0.1:${PORTS[i]} max_fails=1 fail_timeout=2s;" >>"$TMP/ng/gomokud-replicas.conf"
    done
}

# A free port for nginx: a random one nothing listens on; nginx's own bind
# is the real test, retried with another port when it fails.
start_nginx() {
    cp "$REPO/deploy/nginx/nginx.conf" "$REPO/deploy/nginx/gomokud.conf" "$TMP/ng/"
    for _ in $(seq 10); do
        NPORT=$((20000 + RANDOM % 40000))
        (exec 3<>"/dev/tcp/127.0.0.1/$NPORT") 2>/dev/null && continue
        sed "s/^\( *\)listen 8080;/\1listen 127.0.0.1:$NPORT;/" "$REPO/deploy/nginx/gomokud.conf" >"$TMP/ng/gomokud.conf"
        : >"$TMP/ng/logs/error.log"
        "$NGINX" -p "$TMP/ng" -c "$TMP/ng/nginx.conf" -e "$TMP/ng/logs/error.log" &
        NGINX_PID=$!
        for _ in $(seq 50); do
            [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "http://127.0.0.1:$NPORT/nginx-livez" || true)" = 200 ] && return 0
            kill -0 "$NGINX_PID" 2>/dev/null || break
            sleep 0.1
        done
        kill -QUIT "$NGINX_PID" 2>/dev/null || true
        wait "$NGINX_PID" 2>/dev/null || true
        NGINX_PID=
    done
    echo "scale-test: nginx did not start:" >&2
    tail -n 5 "$TMP/ng/logs/error.log" >&2
    exit 1
}

reload_nginx() {
    local before
    before=$(pgrep -P "$NGINX_PID" | sort | tr '\n' ' ')
    kill -HUP "$NGINX_PID"
    # The reload is done when the old workers are gone.
    for _ in $(seq 100); do
        local after
        after=$(pgrep -P "$NGINX_PID" | sort | tr '\n' ' ')
        [ -n "$after" ] && ! grep -qwF -- "${before%% *}" <<<"$after" && return 0
        sleep 0.1
    done
    bad "nginx did not reload"
}

# run_wrk SECONDS OUTPUT
run_wrk() {
    env LOADTEST_THREADS=2 LOADTEST_BODY="$BODY" timeout $(($1 + 30)) \
        wrk -t2 -c"$CONNS" -d"$1s" --timeout 10s -s "$LUA" "http://127.0.0.1:$NPORT/v1/analyze" >"$2" 2>&1
}

check_wrk() { # output, phase name
    local f=$1 phase=$2
    awk '/^status / && $2 !~ /^2/ { print $2 " x " $3 }' "$f" >"$TMP/odd"
    [ -s "$TMP/odd" ] && bad "$phase: answers that are not 2xx: $(tr '\n' ' ' <"$TMP/odd")"
    local e
    e=$(awk '/^errors / { print $3 + $5 + $7 + $9 }' "$f")
    [ "${e:-1}" = 0 ] || bad "$phase: wrk socket errors: $(grep '^errors' "$f")"
    return 0
}
rps() { awk '/Requests\/sec/ { printf "%.0f", $2 }' "$1"; }
ok_count() { awk '/^status 2/ { s += $3 } END { print s + 0 }' "$1"; }

for i in $(seq 1 $N); do start_replica "$i" 0; done
for i in $(seq 1 $N); do wait_ready "$i"; done
write_replicas 1
start_nginx
echo "scale-test: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) before the run; replicas on ports ${PORTS[*]} (1 worker each); nginx on $NPORT; $CONNS connections; body $BODY"

# ---- 1. throughput: 1 replica, then 3 -------------------------------------------
run_wrk 2 "$TMP/warmup.txt" || true
run_wrk "$SECS" "$TMP/one.txt" || bad "wrk failed (1 replica)"
check_wrk "$TMP/one.txt" "1 replica"
write_replicas $N
reload_nginx
run_wrk "$SECS" "$TMP/three.txt" || bad "wrk failed (3 replicas)"
check_wrk "$TMP/three.txt" "3 replicas"
R1=$(rps "$TMP/one.txt")
R3=$(rps "$TMP/three.txt")
lat() { awk '/^latency_all_ms/ { print "p50 " $3 " ms, p99 " $5 " ms" }' "$1"; }
echo "scale-test: 1 replica : $R1 req/s ($(ok_count "$TMP/one.txt") answers in ${SECS} s; $(lat "$TMP/one.txt"))"
echo "scale-test: 3 replicas: $R3 req/s ($(ok_count "$TMP/three.txt") answers in ${SECS} s; $(lat "$TMP/three.txt"))"
awk -v a="$R1" -v b="$R3" -v l="$(cut -d' ' -f1 /proc/loadavg)" \
    'BEGIN { if (a > 0) printf "scale-test: 3 replicas / 1 = %.2fx (load average now %s: other jobs share the cores)\n", b / a, l }'

# ---- streams pass through unbuffered -------------------------------------------
# An NDJSON analysis of 1.5 s through nginx: its progress lines must reach the
# client while the search runs (X-Accel-Buffering: no), not all at the end.
TS=$(now)
timeout 20 curl -sN --max-time 15 -H 'Accept: application/x-ndjson' \
    -d '{"moves":["h8","h9","j10"],"limits":{"time_ms":1500}}' "http://127.0.0.1:$NPORT/v1/analyze" |
    while IFS= read -r line; do echo "$(since "$TS") $line"; done >"$TMP/stream.txt" || true
lines=$(wc -l <"$TMP/stream.txt")
first=$(awk 'NR == 1 { print $1 }' "$TMP/stream.txt")
last=$(awk 'END { print $1 }' "$TMP/stream.txt")
tail -n 1 "$TMP/stream.txt" | grep -q '"best_move":.*"final":true' || bad "the stream through nginx did not end with its final answer"
echo "scale-test: NDJSON through nginx: $lines lines, the first after ${first:-?} s, the last after ${last:-?} s"
[ "$lines" -ge 2 ] && [ "$(awk -v f="${first:-99}" -v l="${last:-0}" 'BEGIN { print (l - f >= 0.5) }')" = 1 ] ||
    bad "the stream came through nginx in one piece (buffered?)"

# ---- 2. SIGTERM one replica, restart it, then a rolling restart, under load ----------
LOG0=$(wc -l <"$TMP/ng/logs/gomokud-access.log")
env LOADTEST_THREADS=2 LOADTEST_BODY="$BODY" timeout $((CHAOS_SECS + 30)) \
    wrk -t2 -c"$CONNS" -d"${CHAOS_SECS}s" --timeout 10s -s "$LUA" "http://127.0.0.1:$NPORT/v1/analyze" >"$TMP/chaos.txt" 2>&1 &
WRK=$!
T0=$(now)
sleep 3
echo "scale-test: t=$(since "$T0") s SIGTERM to replica 2 (pid ${PIDS[2]})"
stop_replica 2
echo "scale-test: t=$(since "$T0") s replica 2 exited; restarting it on port ${PORTS[2]}"
start_replica 2 "${PORTS[2]}"
wait_ready 2 || true
echo "scale-test: t=$(since "$T0") s replica 2 ready again"
sleep 2
for i in $(seq 1 $N); do
    stop_replica "$i"
    start_replica "$i" "${PORTS[i]}"
    wait_ready "$i" || true
    echo "scale-test: t=$(since "$T0") s rolling restart: replica $i stopped, restarted and ready"
    sleep 1
done
[ "$(awk -v t="$(since "$T0")" -v d="$CHAOS_SECS" 'BEGIN { print (t < d - 2) }')" = 1 ] ||
    bad "the restarts outlasted the load (SCALE_CHAOS_SECONDS too short)"
wait "$WRK" || bad "wrk failed (restarts)"
WRK=
check_wrk "$TMP/chaos.txt" "restarts"
echo "scale-test: under restarts: $(ok_count "$TMP/chaos.txt") answers, $(rps "$TMP/chaos.txt") req/s; $(grep -E '^status' "$TMP/chaos.txt" | tr '\n' ' ')"
grep '^errors' "$TMP/chaos.txt" | sed 's/^/scale-test: wrk /'
# What nginx did: requests that needed a second replica, and why.
tail -n "+$((LOG0 + 1))" "$TMP/ng/logs/gomokud-access.log" | awk '
    { for (i = 1; i <= NF; i++) if ($i ~ /^ustatus=/) u = substr($i, 9) }
    u ~ /,/ { retried++; if (u ~ /503/) r503++; if (u ~ /502|504/) rerr++ }
    END { printf "scale-test: nginx retried %d requests on another replica (%d after a 503 from a draining replica, %d after a connection error)\n", retried, r503, rerr }'
for i in $(seq 1 $N); do
    echo "scale-test: replica $i: $(grep -c 'msg=draining' "$TMP/replica$i.log") drains, $(grep -c 'status=503' "$TMP/replica$i.log") answers 503, $(grep -c 'msg=stopped' "$TMP/replica$i.log") clean stops"
done

if [ "$FAIL" != 0 ]; then
    echo "scale-test: FAILED"
    exit 1
fi
echo "scale-test: OK"
