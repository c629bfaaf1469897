#!/usr/bin/env bash
# docker-test.sh - builds the image from docker/Dockerfile with the classic
# builder and checks it: /livez, one analysis, and a clean drain on
# `docker stop` (a search running when the stop is sent is answered, the
# container exits 0). Prints the image's size.
#
#   deploy/docker-test.sh                 (make docker-test)
#
# The Docker engine: when none answers, dockerd is started here in the
# background (its log in a temporary file) and stopped again at the end,
# leaving the host as it was: --iptables=false --ip-forward=false (no
# firewall rules, no FORWARD policy, no sysctl changed), and its docker0
# bridge is deleted afterwards when it was not there before. The build
# therefore uses the host's network (--network host) to reach Debian's
# mirror, which it does with any engine; the container's published port goes
# through docker-proxy.
# The base image: debian:12-slim when the engine has it, else the local
# gomokud-base:bookworm, made by deploy/docker-base.sh (debootstrap) when
# missing: there is no registry to pull from.
# Environment: DOCKER_TEST_IMAGE (gomokud:test), DOCKER_TEST_BASE (the base to
# use, skipping the choice above), DOCKER_TEST_BUILD_TIMEOUT (900 s).
# Loopback only: the container's port 8080 is published on a free port of
# 127.0.0.1 chosen by Docker. Every step is bounded in time.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
IMAGE=${DOCKER_TEST_IMAGE:-gomokud:test}
BUILD_LIMIT=${DOCKER_TEST_BUILD_TIMEOUT:-900}
NAME=gomokud-test-$$
LOCAL_BASE=gomokud-base:bookworm

for tool in docker dockerd curl; do
    command -v "$tool" >/dev/null 2>&1 || { echo "docker-test: $tool is missing (scripts/deps.sh docker)" >&2; exit 1; }
done

TMP=$(mktemp -d)
DOCKERD=
HAD_DOCKER0=
CONTAINER=
CURL=
cleanup() {
    [ -n "$CURL" ] && kill "$CURL" 2>/dev/null || true
    [ -n "$CONTAINER" ] && timeout 30 docker rm -f "$CONTAINER" >/dev/null 2>&1 || true
    if [ -n "$DOCKERD" ]; then
        echo "docker-test: stopping the dockerd started here (pid $DOCKERD)" >&2
        kill "$DOCKERD" 2>/dev/null || true
        for _ in $(seq 30); do kill -0 "$DOCKERD" 2>/dev/null || break; sleep 1; done
        kill -9 "$DOCKERD" 2>/dev/null || true
        if [ -z "$HAD_DOCKER0" ] && ip link show docker0 >/dev/null 2>&1; then
            ip link delete docker0 2>/dev/null || true
        fi
    fi
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

FAIL=0
bad() { echo "FAIL: $*"; FAIL=1; }

# ---- the engine ----------------------------------------------------------------
if ! timeout 10 docker info >/dev/null 2>&1; then
    [ "$(id -u)" = 0 ] || { echo "docker-test: no Docker engine answers; start one (sudo dockerd &) and run again" >&2; exit 1; }
    echo "docker-test: no Docker engine answers: starting dockerd (log: $TMP/dockerd.log)"
    HAD_DOCKER0=$(ip link show docker0 2>/dev/null || true)
    dockerd --iptables=false --ip-forward=false --ip-masq=false >"$TMP/dockerd.log" 2>&1 &
    DOCKERD=$!
    for _ in $(seq 60); do
        timeout 5 docker info >/dev/null 2>&1 && break
        kill -0 "$DOCKERD" 2>/dev/null || { echo "docker-test: dockerd exited:" >&2; tail -n 20 "$TMP/dockerd.log" >&2; DOCKERD=; exit 1; }
        sleep 1
    done
    timeout 5 docker info >/dev/null 2>&1 || { echo "docker-test: dockerd did not answer within 60 s" >&2; tail -n 20 "$TMP/dockerd.log" >&2; exit 1; }
fi
echo "docker-test: engine $(docker version -f '{{.Server.Version}}' 2>/dev/null)"

# ---- the base image ------------------------------------------------------------
if [ -n "${DOCKER_TEST_BASE:-}" ]; then
    BASE=$DOCKER_TEST_BASE
elif docker image inspect debian:12-slim >/dev/null 2>&1; then
    BASE=debian:12-slim
else
    BASE=$LOCAL_BASE
    if ! docker image inspect "$BASE" >/dev/null 2>&1; then
        echo "docker-test: no debian:12-slim and no $BASE: making it with debootstrap (a few minutes)"
        "$HERE/docker-base.sh" "$BASE"
    fi
fi
echo "docker-test: base image $BASE"

# ---- build ---------------------------------------------------------------------
echo "docker-test: DOCKER_BUILDKIT=0 docker build --network host --build-arg BASE_IMAGE=$BASE -f docker/Dockerfile -t $IMAGE ."
t0=$(date +%s)
if ! DOCKER_BUILDKIT=0 timeout "$BUILD_LIMIT" docker build --network host --build-arg BASE_IMAGE="$BASE" \
    -f "$REPO/docker/Dockerfile" -t "$IMAGE" "$REPO" >"$TMP/build.log" 2>&1; then
    echo "docker-test: the build failed:" >&2
    tail -n 30 "$TMP/build.log" >&2
    exit 1
fi
echo "docker-test: built in $(($(date +%s) - t0)) s"
SIZE=$(docker image inspect -f '{{.Size}}' "$IMAGE")
BASE_SIZE=$(docker image inspect -f '{{.Size}}' "$BASE")
awk -v s="$SIZE" -v b="$BASE_SIZE" -v i="$IMAGE" -v base="$BASE" \
    'BEGIN { printf "docker-test: image %s %.1f MB (base %s %.1f MB, gomokud and its libraries %.1f MB)\n", i, s / 1e6, base, b / 1e6, (s - b) / 1e6 }'

# ---- run -----------------------------------------------------------------------
# (An engine started here without IP forwarding warns that the container's
# outbound networking will not work: it needs none; the warning is kept in
# run.err and shown only when the run fails.)
CONTAINER=$(timeout 30 docker run -d --name "$NAME" -p 127.0.0.1::8080 --read-only --cap-drop ALL \
    --security-opt no-new-privileges:true -e GOMOKUD_WORKERS=1 \
    -e GOMOKUD_MAX_TIME_MS=60000 -e GOMOKUD_DRAIN_TIMEOUT_MS=60000 "$IMAGE" 2>"$TMP/run.err") ||
    { echo "docker-test: docker run failed:" >&2; cat "$TMP/run.err" >&2; exit 1; }
PORT=$(timeout 10 docker port "$CONTAINER" 8080/tcp | sed -n 's/^127\.0\.0\.1:\([0-9]*\)$/\1/p' | head -n 1)
[ -n "$PORT" ] || { echo "docker-test: the container's port is not published" >&2; docker logs "$CONTAINER" >&2; exit 1; }
URL="http://127.0.0.1:$PORT"
echo "docker-test: container ${CONTAINER:0:12} on $URL"

code=
for _ in $(seq 50); do
    code=$(curl -s -o "$TMP/livez" -w '%{http_code}' --max-time 2 "$URL/livez" || true)
    [ "$code" = 200 ] && break
    [ "$(docker inspect -f '{{.State.Running}}' "$CONTAINER")" = true ] || break
    sleep 0.2
done
if [ "$code" = 200 ]; then echo "docker-test: /livez 200 $(cat "$TMP/livez")"; else bad "/livez answered '$code'"; docker logs "$CONTAINER" 2>&1 | tail -n 20; exit 1; fi

code=$(curl -s -o "$TMP/analyze" -w '%{http_code}' --max-time 30 -H 'Content-Type: application/json' \
    -d '{"moves":["h8"],"limits":{"depth":4}}' "$URL/v1/analyze" || true)
best=$(sed -n 's/.*"best_move":"\([a-z][0-9]*\)".*/\1/p' "$TMP/analyze")
if [ "$code" = 200 ] && [ -n "$best" ]; then
    echo "docker-test: POST /v1/analyze depth 4 -> 200, best_move $best"
else
    bad "POST /v1/analyze -> '$code' $(head -c 300 "$TMP/analyze")"
fi

# The image's HEALTHCHECK (bash asking /livez) must turn the container
# healthy: its first run comes one interval (10 s) after the start.
health=
for _ in $(seq 100); do
    health=$(docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{end}}' "$CONTAINER")
    [ "$health" = starting ] || break
    sleep 0.25
done
if [ "$health" = healthy ]; then echo "docker-test: HEALTHCHECK healthy"; else bad "HEALTHCHECK status '$health'"; fi

# ---- drain on docker stop ------------------------------------------------------
# A depth-11 search (1.1M nodes, about 2 s here), then `docker stop` while it
# runs: the answer must still come, complete (the drain let it reach its
# depth rather than cutting it), and the container must exit 0. A fixed depth
# is the one limit that ends with "complete": true (a time or node limit
# reports false), so the container gets time and drain caps of 60 s that a
# slower machine cannot hit first.
curl -s -o "$TMP/long" -w '%{http_code}' --max-time 90 -H 'Content-Type: application/json' \
    -d '{"id":"drain","moves":["h8","h9","j10"],"limits":{"depth":11}}' "$URL/v1/analyze" >"$TMP/long.code" &
CURL=$!
busy=
for _ in $(seq 50); do
    busy=$(curl -s --max-time 2 "$URL/metrics" | awk '$1 == "gomokud_workers_busy" { print $2 }')
    [ "${busy:-0}" != 0 ] && break
    sleep 0.1
done
[ "${busy:-0}" != 0 ] || bad "the long search never showed in gomokud_workers_busy"
t0=$(date +%s.%N)
timeout 80 docker stop -t 70 "$CONTAINER" >/dev/null
t1=$(date +%s.%N)
wait "$CURL" || true
CURL=
rc=$(docker inspect -f '{{.State.ExitCode}}' "$CONTAINER")
code=$(cat "$TMP/long.code")
best=$(sed -n 's/.*"best_move":"\([a-z][0-9]*\)".*/\1/p' "$TMP/long")
complete=$(sed -n 's/.*"complete":\([a-z]*\).*/\1/p' "$TMP/long")
took=$(sed -n 's/.*"time_ms":\([0-9]*\).*/\1/p' "$TMP/long")
depth=$(sed -n 's/.*"depth":\([0-9]*\).*/\1/p' "$TMP/long")
echo "docker-test: docker stop took $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s; exit code $rc; the running search answered $code, best_move ${best:-none}, depth ${depth:-?}, time_ms ${took:-?}, complete ${complete:-?}"
[ "$rc" = 0 ] || bad "the container exited $rc after docker stop"
[ "$code" = 200 ] && [ -n "$best" ] || bad "the search running at the stop was not answered (status '$code')"
[ "$complete" = true ] && [ "$depth" = 11 ] || bad "the drain cut the running search short (depth ${depth:-?}, complete ${complete:-?})"
docker logs "$CONTAINER" 2>&1 | grep -q 'msg=stopped' || bad "no 'stopped' line in the container's log"
docker logs "$CONTAINER" 2>&1 | grep -E 'msg=(draining|stopped|signal)' | sed 's/^/docker-test: log: /' || true

if [ "$FAIL" != 0 ]; then
    echo "docker-test: FAILED"
    exit 1
fi
echo "docker-test: OK"
