#!/bin/sh
# run.sh - the board page's browser test (make test-web).
#
#   tests/web/run.sh [path/to/gomokud]
#
# Needs Debian's chromium (scripts/deps.sh web installs it as root), Node.js
# with npm (installed from Debian's packages as root when missing), and
# playwright-core, which this script installs with `npm ci` from
# tests/web/package-lock.json into WEB_TOOLS_DIR (build/web-tools; never
# committed) when it is missing or another version. Then it starts gomokud on
# a free loopback port with an API key (the page must ask for it), runs tests/web/board.test.cjs against it (bounded by
# WEB_TEST_TIMEOUT_S, 150 s), stops the server with SIGTERM and checks it
# exits 0. Screenshots: build/web-board.png and build/web-phone.png.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=${1:-$ROOT/build/bin/gomokud}
TOOLS=${WEB_TOOLS_DIR:-$ROOT/build/web-tools}
OUT=${WEB_OUT_DIR:-$ROOT/build}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
LIMIT=${WEB_TEST_TIMEOUT_S:-150}

say() { echo "test-web: $*" >&2; }

[ -x "$BIN" ] || { say "no server binary at $BIN"; exit 1; }
[ -x "$CHROMIUM" ] || { say "no chromium at $CHROMIUM; run: sudo scripts/deps.sh web (apt-get install chromium)"; exit 1; }

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
        say "installing Debian's nodejs and npm"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >&2
        apt-get install -y -qq --no-install-recommends nodejs npm >&2
    else
        say "Node.js and npm are missing; run: sudo apt-get install -y nodejs npm"
        exit 1
    fi
fi

# playwright-core at the locked version (no browser download: the -core
# package has none; the test uses Debian's chromium).
want=$(sed -n 's/.*"playwright-core": *"\([^"]*\)".*/\1/p' "$HERE/package.json" | head -n 1)
have=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$TOOLS/node_modules/playwright-core/package.json" 2>/dev/null |
    head -n 1 || true)
if [ "$have" != "$want" ]; then
    say "installing playwright-core $want into $TOOLS"
    mkdir -p "$TOOLS"
    cp "$HERE/package.json" "$HERE/package-lock.json" "$TOOLS/"
    (cd "$TOOLS" && npm ci --no-audit --no-fund --loglevel=error >&2)
fi

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

# With an API key, as a protected deployment runs: the page must ask for it.
# Without the opening book: the steps play opening positions, which the book
# answers at once, and the live analysis must be seen on a real search.
KEY="web-test-$$"
"$BIN" serve --bind 127.0.0.1 --port 0 --workers 2 --tt-mib 8 --max-time-ms 10000 --api-keys "$KEY" \
    --book-file "" 2>"$TMP/server.log" &
PID=$!
PORT=
i=0
while [ $i -lt 100 ]; do
    PORT=$(sed -n 's/.*msg=listening.* port=\([0-9]*\).*/\1/p' "$TMP/server.log" | head -n 1)
    [ -n "$PORT" ] && break
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.1
    i=$((i + 1))
done
if [ -z "$PORT" ]; then
    say "the server did not start:"
    cat "$TMP/server.log" >&2
    exit 1
fi
say "gomokud on port $PORT; chromium: $("$CHROMIUM" --version 2>/dev/null | head -n 1)"

rc=0
WEB_API_KEY="$KEY" WEB_TOOLS_DIR="$TOOLS" CHROMIUM="$CHROMIUM" timeout -k 5 "$LIMIT" node "$HERE/board.test.cjs" \
    "http://127.0.0.1:$PORT/" "$OUT" || rc=$?
[ $rc = 124 ] && say "timed out after $LIMIT s"

kill -TERM "$PID"
src=0
wait "$PID" || src=$?
PID=
if [ $src != 0 ]; then
    say "the server exited $src on SIGTERM"
    rc=1
fi
if [ $rc != 0 ]; then
    say "failed; the server's log:"
    tail -n 40 "$TMP/server.log" >&2
fi
exit $rc
