#!/usr/bin/env bash
# Build kit/exec:latest (containers/execution) on top of kit/desktop, which is built first when missing.
#
# Idempotent like build-desktop-image.sh: the image is labelled with a hash of its prepared context and a build is
# skipped when that hash is current. The context is assembled in a temporary directory (removed on exit): the
# Dockerfile, the entrypoint, the reference.execution package and PyAutoGUI's wheels, built with the kit's Python
# (KIT_PYTHON; default the checkout's .venv/bin/python, else python3) through pip's ordinary index. The script
# runs from the checkout or from the installed kit (conformance/_data/containers): it asks that Python where the
# reference.execution package is.
# Environment: KIT_EXEC_IMAGE overrides the tag.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
image="${KIT_EXEC_IMAGE:-kit/exec:latest}"
checkout_python="$here/../../.venv/bin/python"
[ -x "$checkout_python" ] || checkout_python=python3
python="${KIT_PYTHON:-$checkout_python}"
execution="$("$python" -c 'import pathlib, reference.execution as m; print(pathlib.Path(m.__file__).parent)')" || {
    echo "build-image.sh: $python cannot import reference.execution; set KIT_PYTHON to the kit's Python" >&2
    exit 1
}

docker version --format '{{.Server.Version}}' >/dev/null 2>&1 || {
    echo "build-image.sh: no docker engine answers; run containers/start-dockerd.sh first" >&2
    exit 1
}
docker image inspect kit/desktop:latest >/dev/null 2>&1 || bash "$here/../build-desktop-image.sh"

context="$(mktemp -d -t kit-exec-context.XXXXXX)"
trap 'rm -rf "$context"' EXIT
cp "$here/Dockerfile" "$here/entrypoint.sh" "$context/"
mkdir -p "$context/app/reference/execution" "$context/wheels"
cp "$execution/../__init__.py" "$context/app/reference/"
cp "$execution/"*.py "$context/app/reference/execution/"
# --no-deps: PyAutoGUI's declared python3-xlib fork would shadow python-xlib; the list below is complete.
"$python" -m pip wheel --quiet --no-deps --wheel-dir "$context/wheels" \
    pyautogui pyscreeze pymsgbox pytweening pygetwindow pyrect mouseinfo pyperclip

context_hash="$(cd "$context" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)"
current="$(docker image inspect "$image" --format '{{index .Config.Labels "kit.context-hash"}}' 2>/dev/null || true)"
if [ "$current" = "$context_hash" ]; then
    echo "execution image $image is up to date ($context_hash)"
    exit 0
fi
echo "building $image (context $context_hash)"
DOCKER_BUILDKIT=0 docker build --network host --rm --force-rm \
    --label "kit.context-hash=$context_hash" -t "$image" "$context"
echo "execution image $image built"
