#!/usr/bin/env bash
# Build the certification worker image (kit/certifier:latest; KIT_CERTIFIER_IMAGE overrides) for compose.yaml.
#
# Needs a checkout of the kit (the image installs it from source) and a running engine (containers/start-dockerd.sh).
# The kit and its dependencies are built into wheels on the host, with the host's pip and its index settings, and
# copied into a temporary build context: the image build itself needs only plain-HTTP apt.
# Environment: KIT_PYTHON (default: the checkout's .venv/bin/python), KIT_CERTIFIER_IMAGE.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
image="${KIT_CERTIFIER_IMAGE:-kit/certifier:latest}"
python="${KIT_PYTHON:-$root/.venv/bin/python}"

[ -f "$root/pyproject.toml" ] || {
    echo "build-image.sh: $root is not a checkout of the kit; run this script from one" >&2
    exit 1
}
docker version --format '{{.Server.Version}}' >/dev/null 2>&1 || {
    echo "build-image.sh: no docker engine answers; run containers/start-dockerd.sh first" >&2
    exit 1
}
bash "$here/../build-desktop-image.sh"

context="$(mktemp -d)"
trap 'rm -rf "$context"' EXIT
cp "$here/Dockerfile" "$here/worker.sh" "$context/"
"$python" -m pip wheel -q --disable-pip-version-check --wheel-dir "$context/wheels" "$root[desktop]"
DOCKER_BUILDKIT=0 docker build --network host --rm --force-rm -t "$image" "$context"
echo "certification worker image $image built"
