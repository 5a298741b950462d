#!/usr/bin/env bash
# Make the local base image `debian:bookworm-slim` when the engine does not have it.
#
# No image registry is reachable from the machines the kit runs on, so the base image is bootstrapped from the
# Debian mirror this host's apt already uses (plain HTTP works everywhere) and imported under the tag the desktop
# Dockerfile names. With that tag present, `FROM debian:bookworm-slim` resolves locally and nothing is pulled.
# The host's apt sources are copied in so the image also sees bookworm-updates and bookworm-security (without
# them the image would get an older Chromium than the host).
#
# Idempotent: exits at once when the tag exists. Needs root, debootstrap and a running engine (start-dockerd.sh).
# Environment: KIT_DEBIAN_MIRROR overrides the mirror; KIT_ROOTFS_DIR is the scratch directory (removed after).
set -euo pipefail

tag="debian:bookworm-slim"
if docker image inspect "$tag" >/dev/null 2>&1; then
    echo "base image $tag already present"
    exit 0
fi
command -v debootstrap >/dev/null 2>&1 || {
    echo "make-base-image.sh: debootstrap not found; install it with: apt-get install -y --no-install-recommends debootstrap" >&2
    exit 1
}

sources=/etc/apt/sources.list.d/debian.sources
mirror="${KIT_DEBIAN_MIRROR:-}"
if [ -z "$mirror" ] && [ -r "$sources" ]; then
    # The first URIs line of the deb822 file is the main archive (the security archive comes later).
    mirror="$(awk '/^URIs:/ { print $2; exit }' "$sources")"
fi
mirror="${mirror:-http://deb.debian.org/debian}"

rootfs="$(mktemp -d "${KIT_ROOTFS_DIR:-/tmp}/kit-rootfs.XXXXXX")"
# The scratch tree is about 200 MB: remove it whatever happens.
trap 'rm -rf "$rootfs"' EXIT

echo "bootstrapping bookworm from $mirror"
debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$rootfs.log" 2>&1 || {
    echo "make-base-image.sh: debootstrap failed; last log lines:" >&2
    tail -n 20 "$rootfs.log" >&2
    rm -f "$rootfs.log"
    exit 1
}
rm -f "$rootfs.log"
if [ -r "$sources" ]; then
    rm -f "$rootfs/etc/apt/sources.list"
    cp "$sources" "$rootfs/etc/apt/sources.list.d/debian.sources"
fi
# Keep the image small like the registry's -slim variant: no apt lists or caches from the bootstrap.
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin
tar -C "$rootfs" -c . | docker import - "$tag" >/dev/null
echo "base image $tag imported: $(docker image inspect "$tag" --format '{{.Id}}')"
