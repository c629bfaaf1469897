#!/bin/sh
# Makes sure the Debian packages a target needs are installed.
# Usage: scripts/deps.sh build|test|run|bench|clang|fuzz|docker|scale|web
# As root it installs what is missing with apt-get; otherwise it prints the
# exact command to run and fails.
set -eu

case "${1:-build}" in
    build|run) pkgs="gcc make pkg-config libcjson-dev libmicrohttpd-dev libcairo2-dev libgif-dev" ;;
    test)      pkgs="gcc make pkg-config libcjson-dev libmicrohttpd-dev libcairo2-dev libgif-dev libcriterion-dev libcurl4-openssl-dev python3 python3-jsonschema python3-yaml" ;;
    bench)     pkgs="gcc make pkg-config libcjson-dev libmicrohttpd-dev libcairo2-dev libgif-dev libcurl4-openssl-dev wrk" ;;
    clang)     pkgs="clang" ;;
    fuzz)      pkgs="clang libclang-rt-14-dev" ;;
    # make docker-test: the engine (dockerd) and client, debootstrap for a
    # base image made without a registry (deploy/docker-base.sh).
    docker)    pkgs="docker.io debootstrap curl iproute2" ;;
    # make scale-test: replicas behind nginx, loaded by wrk.
    scale)     pkgs="gcc make libcjson-dev libmicrohttpd-dev libcairo2-dev libgif-dev nginx wrk curl procps" ;;
    web)       pkgs="chromium fonts-dejavu-core" ;;
    *) echo "deps.sh: unknown target '$1'" >&2; exit 2 ;;
esac

missing=""
for p in $pkgs; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    case "$status" in
        *"install ok installed"*) ;;
        *) missing="$missing $p" ;;
    esac
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ]; then
    echo "deps: installing$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >&2
else
    echo "deps: missing Debian packages:$missing" >&2
    echo "deps: run: sudo apt-get install -y$missing" >&2
    exit 1
fi
