#!/usr/bin/env bash
# docker-base.sh - makes the Debian 12 base image locally, for machines whose
# Docker engine cannot pull from a registry.
#
#   deploy/docker-base.sh [TAG]        (default TAG: gomokud-base:bookworm)
#
# debootstrap --variant=minbase bookworm into a temporary folder, trimmed the
# way debian:12-slim is (no documentation, manual pages or locales; dpkg is
# told to keep leaving them out), then `docker import`ed as TAG. Build with it:
#   docker build --build-arg BASE_IMAGE=gomokud-base:bookworm -f docker/Dockerfile .
# Needs root (debootstrap), debootstrap and docker (scripts/deps.sh docker) and
# the Debian mirror (DEBIAN_MIRROR, default http://deb.debian.org/debian).
# Bounded: debootstrap gets DOCKER_BASE_TIMEOUT seconds (600).
set -euo pipefail

TAG=${1:-gomokud-base:bookworm}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
LIMIT=${DOCKER_BASE_TIMEOUT:-600}

[ "$(id -u)" = 0 ] || { echo "docker-base: debootstrap needs root; run: sudo $0 $TAG" >&2; exit 1; }
for tool in debootstrap docker tar; do
    command -v "$tool" >/dev/null 2>&1 || { echo "docker-base: $tool is missing (scripts/deps.sh docker)" >&2; exit 1; }
done

ROOT=$(mktemp -d)
cleanup() { rm -rf "$ROOT"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "docker-base: debootstrap --variant=minbase bookworm from $MIRROR" >&2
timeout "$LIMIT" debootstrap --variant=minbase bookworm "$ROOT/fs" "$MIRROR" >"$ROOT/debootstrap.log" 2>&1 ||
    { echo "docker-base: debootstrap failed:" >&2; tail -n 20 "$ROOT/debootstrap.log" >&2; exit 1; }

fs=$ROOT/fs
# The same sources as the official image: the release, its updates, security.
cat >"$fs/etc/apt/sources.list" <<SOURCES
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
SOURCES
# What debian:12-slim leaves out, now and for every later apt-get install.
cat >"$fs/etc/dpkg/dpkg.cfg.d/docker-slim" <<'SLIM'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
SLIM
cat >"$fs/etc/apt/apt.conf.d/docker-clean" <<'CLEAN'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache ""; Dir::Cache::srcpkgcache "";
CLEAN
echo 'Acquire::Languages "none";' >"$fs/etc/apt/apt.conf.d/docker-no-languages"
find "$fs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
find "$fs/usr/share/doc" -mindepth 1 -type d -empty -delete
rm -rf "$fs"/usr/share/{man,groff,info,locale,lintian,linda}/* \
    "$fs"/var/cache/apt/archives/*.deb "$fs"/var/cache/apt/*.bin "$fs"/var/lib/apt/lists/* \
    "$fs"/var/log/* "$fs"/tmp/* "$fs"/dev/*
: >"$fs/etc/machine-id"

tar -C "$fs" --numeric-owner -c . |
    docker import --change 'CMD ["bash"]' --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --message "debootstrap --variant=minbase bookworm (deploy/docker-base.sh)" - "$TAG" >/dev/null
echo "docker-base: $TAG, $(docker image inspect -f '{{.Size}}' "$TAG" | awk '{ printf "%.1f MB", $1 / 1e6 }')" >&2
