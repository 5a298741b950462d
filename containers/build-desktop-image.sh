#!/usr/bin/env bash
# Build the desktop image (containers/desktop) as kit/desktop:latest, making the local base image first.
#
# Idempotent: the image carries a label with a hash of its build context, and a build is skipped when an image
# with the current hash exists. It starts nothing it does not stop: the build's containers are removed by the
# builder, and no engine is started here (run start-dockerd.sh first).
# Environment: KIT_DESKTOP_IMAGE overrides the tag.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
context="$here/desktop"
image="${KIT_DESKTOP_IMAGE:-kit/desktop:latest}"

docker version --format '{{.Server.Version}}' >/dev/null 2>&1 || {
    echo "build-desktop-image.sh: no docker engine answers; run containers/start-dockerd.sh first" >&2
    exit 1
}
bash "$here/make-base-image.sh"

# Hash file names, modes and contents so an edited entrypoint or a changed mode triggers a rebuild.
context_hash="$(cd "$context" && find . -type f -print0 | sort -z \
    | xargs -0 stat --format '%n %a' | sha256sum | cut -c1-16)-$(cd "$context" && find . -type f -print0 \
    | sort -z | xargs -0 cat | sha256sum | cut -c1-16)"
current="$(docker image inspect "$image" --format '{{index .Config.Labels "kit.context-hash"}}' 2>/dev/null || true)"
if [ "$current" = "$context_hash" ]; then
    echo "desktop image $image is up to date ($context_hash)"
    exit 0
fi

echo "building $image (context $context_hash)"
# --network host: apt inside the build needs the host's route to the Debian mirror; the legacy builder is the
# one that works with the engine's API version here (no buildx on bookworm).
DOCKER_BUILDKIT=0 docker build --network host --rm --force-rm \
    --label "kit.context-hash=$context_hash" -t "$image" "$context"
echo "desktop image $image built"
