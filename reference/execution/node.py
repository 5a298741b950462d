"""The JavaScript runtime's launch: Node running ``js/runtime.cjs`` with Playwright for Node on Debian's Chromium.

The runtime itself is ``js/runtime.cjs`` (run inside the session's sandbox, never imported); its npm packages are
in ``js/node_modules``, installed from the committed lockfile by ``scripts/setup.sh`` (``npm ci``) and bound
read-only into every JavaScript sandbox together with the script.

Two limits differ from the Python runtime's, because Chromium cannot run under them:

* address space: Chromium reserves about a terabyte of virtual memory at start (V8's sandbox and allocator cages)
  and crashes under any smaller ``RLIMIT_AS``, so a JavaScript runtime gets :data:`ADDRESS_SPACE_BYTES` per
  process. Its memory is bounded instead by the runtime's cgroup (the whole tree: Node, Chromium and anything the
  code starts, to ``ExecutionLimits.memory_bytes``; only when the service runs as root) and by Node's own heap
  limit (``--max-old-space-size``, half of ``memory_bytes``). An unprivileged service has no cgroup, so there the
  browser's memory is bounded by nothing but the host: this is reported in the sandbox's description.
* processes: ``RLIMIT_NPROC`` and the cgroup's pids limit count threads, and Node plus Chromium start well over
  a hundred; a JavaScript runtime gets :data:`PROCESS_FACTOR` times ``ExecutionLimits.max_processes``.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path
from typing import Final

JS_DIR: Final = Path(__file__).with_name("js")
JS_SCRIPT: Final = JS_DIR / "runtime.cjs"
JS_MOUNT: Final = "/opt/rdk-runtime-js"
ADDRESS_SPACE_BYTES: Final = 4 << 40
PROCESS_FACTOR: Final = 8
MIN_NODE_MAJOR: Final = 20  # what the pinned playwright-core requires
# The protocol moves to fds 3 (requests) and 4 (replies); 0-2 go to /dev/null, so Chromium or the code printing
# cannot corrupt it.
_REDIRECT: Final = 'exec "$0" "$@" 3<&0 4>&1 </dev/null >/dev/null 2>&1'


class NodeUnavailable(RuntimeError):
    """Node or the runtime's npm packages are missing; the message says how to install them."""


def node_binary() -> str:
    """The resolved ``node`` executable; raises :class:`NodeUnavailable` when it or the packages are missing."""
    found = shutil.which("node")
    if found is None:
        raise NodeUnavailable(f"the JavaScript runtime needs Node.js {MIN_NODE_MAJOR} or later on PATH")
    resolved = os.path.realpath(found)
    major = _node_major(resolved)
    if major < MIN_NODE_MAJOR:
        raise NodeUnavailable(f"the JavaScript runtime needs Node.js {MIN_NODE_MAJOR} or later; {resolved} is {major}")
    if not (JS_DIR / "node_modules" / "playwright-core" / "package.json").exists():
        raise NodeUnavailable(f"the JavaScript runtime's npm packages are missing: run `npm ci` in {JS_DIR}")
    return resolved


@functools.cache
def _node_major(node: str) -> int:
    try:
        version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30, check=True).stdout
        return int(version.strip().lstrip("v").split(".")[0])
    except (OSError, subprocess.SubprocessError, ValueError):
        return 0


def node_trees(node: str) -> list[str]:
    """Folders to bind read-only so ``node`` runs inside the sandbox (its installation, when outside ``/usr``)."""
    if node.startswith("/usr/"):
        return []
    return [str(Path(node).parents[1])]


def heap_megabytes(memory_bytes: int) -> int:
    return max(64, memory_bytes // (2 * 1024 * 1024))


def command(node: str, memory_bytes: int, runtime_args: list[str], script_dir: str = JS_MOUNT) -> list[str]:
    """The command the sandbox runs: a shell that moves the protocol to fds 3 and 4, then Node and the script."""
    script = f"{script_dir}/{JS_SCRIPT.name}"
    heap = f"--max-old-space-size={heap_megabytes(memory_bytes)}"
    return ["/bin/sh", "-c", _REDIRECT, node, heap, script, *runtime_args]
