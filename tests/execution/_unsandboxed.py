"""The runtime launcher the service had before the sandbox: a plain child process of the service's own user.

Never used by the product. It exists for two measurements only: the benchmark's side-by-side latency, and the
attack suite's baseline run (``KIT_EXEC_UNSANDBOXED_BASELINE=1``), which shows that every attack does break an
unconfined runtime, so the suite's passing run means the sandbox held, not that the attacks were toothless.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from reference.execution import node
from reference.execution.limits import ExecutionLimits
from reference.execution.sandbox import RUNTIME_SCRIPT, Confinement


class UnsandboxedLauncher:
    description = "unsandboxed (measurement only)"
    network_isolated = False

    def __init__(self, limits: ExecutionLimits, scratch_root: str | None = None) -> None:
        self.limits = limits
        self.scratch_root = Path(scratch_root or tempfile.mkdtemp(prefix="rdk-exec-unsandboxed-"))
        self.scratch_root.mkdir(mode=0o700, parents=True, exist_ok=True)

    def confine(self, runtime_args: Sequence[str], display: str | None, *, language: str = "python") -> Confinement:
        scratch = Path(tempfile.mkdtemp(prefix="session-", dir=self.scratch_root))
        (scratch / "Xauthority").touch(mode=0o600)
        env = {"PATH": "/usr/bin:/bin", "HOME": str(scratch), "XAUTHORITY": str(scratch / "Xauthority")}
        if display:
            env["DISPLAY"] = display
        if language == "javascript":
            argv = node.command(node.node_binary(), self.limits.memory_bytes, list(runtime_args), str(node.JS_DIR))
        else:
            argv = [sys.executable, "-I", str(RUNTIME_SCRIPT), *runtime_args]
        # Its scratch folders go with scratch_root, which the benchmark and the attack targets remove.
        return Confinement(argv=argv, env=env, uid=-1)
