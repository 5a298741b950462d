"""What kind of process a test starts, seen through Python's audit hook on ``subprocess.Popen``.

The kit's tests are tiered by what they start: a browser, a desktop (Xvfb and its tools), a container, a child
certification (another pytest or driverkit), or Node. Each such test carries the marker of that kind (declared in
pyproject.toml) so ``scripts/test.sh --quick`` can leave them out. This module tells the kinds apart from the
command line a test runs; tests/conftest.py uses it to refuse, in the quick tier, a test that starts one of these
without its marker, so a marker cannot silently go missing.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Final

# Marker names, by the kind of process they announce.
KINDS: Final = ("browser", "desktop", "container", "child_run", "node")

_BROWSERS: Final = ("chromium", "chrome", "headless_shell", "chromium-headless-shell")
_DESKTOP: Final = ("Xvfb", "xdotool", "openbox", "xauth", "xdpyinfo", "xwd", "xrandr")
_CONTAINERS: Final = ("docker", "dockerd", "containerd", "podman", "bwrap", "unshare")


def _argv(arguments: object) -> list[str]:
    if isinstance(arguments, (str, bytes)):
        return [os.fsdecode(arguments)]
    if isinstance(arguments, Sequence):
        return [os.fsdecode(part) for part in arguments]
    return []


def kind_of(executable: object, arguments: object) -> str | None:
    """The marker a test starting this command needs, or None for an ordinary helper process (git, a shell...)."""
    argv = _argv(arguments)
    path = os.fsdecode(executable) if isinstance(executable, (str, bytes)) else (argv[0] if argv else "")
    program = os.path.basename(path)
    if program in _BROWSERS:
        return "browser"
    if program == "node":
        # Playwright's own driver is a Node process, which then starts the browser.
        return "browser" if any("playwright" in part for part in argv) else "node"
    if program in _DESKTOP:
        return "desktop"
    if program in _CONTAINERS:
        return "container"
    if program == "driverkit":
        return "child_run"
    python = program.startswith("python") or os.path.realpath(path) == os.path.realpath(sys.executable)
    modules = [argv[index + 1] for index in range(len(argv) - 1) if argv[index] == "-m"]
    if python and any(module.split(".")[0] == "pytest" or module.startswith("conformance") for module in modules):
        return "child_run"
    return None


__all__ = ["KINDS", "kind_of"]
