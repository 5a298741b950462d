"""Sessions: one runtime process per ``session_id``, kept alive between calls and retired when it misbehaves.

The deadline is enforced here, on the runtime process, not by the client's wait (spec/003: execution limits are
enforced inside the runtime and code that exceeds them is stopped): a call that outlives ``deadline_s`` has its
whole process group killed, and its session is retired so no later call sees a half-finished namespace.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from .limits import ExecutionLimits
from .protocol import OutputItem, RequestError, text_item, validate_output

RUNTIME_SCRIPT: Final = Path(__file__).with_name("runtime.py")
_HEADER: Final = struct.Struct(">I")
_MAX_REPLY_BYTES: Final = 64 * 1024 * 1024


class RuntimeGone(Exception):
    """The runtime process is no longer usable (deadline, crash, protocol failure); the message says which."""


def network_isolation_prefix() -> list[str] | None:
    """A command prefix that gives the runtime no network (``unshare -n``, or ``-r -n`` when not root), or None."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    for prefix in ([unshare, "-n"], [unshare, "-r", "-n"]):
        try:
            probe = subprocess.run([*prefix, "true"], capture_output=True, timeout=5, check=False)
        except (OSError, subprocess.SubprocessError):
            continue
        if probe.returncode == 0:
            return prefix
    return None


@dataclass(frozen=True)
class RuntimeSettings:
    limits: ExecutionLimits
    display: str | None
    command_prefix: Sequence[str] = ()


class Runtime:
    """One runtime process and the pipes to it."""

    def __init__(self, settings: RuntimeSettings) -> None:
        limits = settings.limits
        self._scratch = tempfile.mkdtemp(prefix="rdk-exec-")
        xauthority = Path(self._scratch) / "Xauthority"
        xauthority.touch(mode=0o600)
        env = {"PATH": "/usr/bin:/bin", "HOME": self._scratch, "XAUTHORITY": str(xauthority)}
        if settings.display:
            env["DISPLAY"] = settings.display
        argv = [
            *settings.command_prefix,
            sys.executable,
            "-I",
            str(RUNTIME_SCRIPT),
            f"--memory={limits.memory_bytes}",
            f"--max-text-bytes={limits.max_text_bytes}",
            f"--max-images={limits.max_images}",
            f"--max-image-bytes={limits.max_image_bytes}",
        ]
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=self._scratch,
            env=env,
            start_new_session=True,  # its own process group, so a kill takes every child it started
        )
        self.last_used = time.monotonic()
        try:
            hello = self._receive(time.monotonic() + limits.startup_timeout_s)
        except RuntimeGone:
            self.stop()
            raise
        note = hello.get("note")
        # Set when the runtime has no desktop helpers (no display); the runtime repeats it to calls that need them.
        self.startup_note = note if isinstance(note, str) else None

    def execute(self, code: str, deadline_s: float) -> list[OutputItem]:
        """Run ``code``; raises :class:`RuntimeGone` (after killing the process) if it fails to answer in time."""
        assert self.process.stdin is not None
        payload = json.dumps({"code": code}).encode("utf-8", "surrogatepass")
        try:
            self.process.stdin.write(_HEADER.pack(len(payload)) + payload)
            self.process.stdin.flush()
        except OSError:
            self.stop()
            raise RuntimeGone("crashed") from None
        try:
            reply = self._receive(time.monotonic() + deadline_s)
        finally:
            self.last_used = time.monotonic()
        try:
            return validate_output(reply.get("output"))
        except ValueError:
            self.stop()
            raise RuntimeGone("protocol") from None

    def _receive(self, deadline: float) -> dict[str, object]:
        header = self._read_exact(_HEADER.size, deadline)
        (length,) = _HEADER.unpack(header)
        if length > _MAX_REPLY_BYTES:
            self.stop()
            raise RuntimeGone("protocol")
        value = json.loads(self._read_exact(length, deadline))
        if not isinstance(value, dict):
            self.stop()
            raise RuntimeGone("protocol")
        return value

    def _read_exact(self, size: int, deadline: float) -> bytes:
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        chunks: list[bytes] = []
        remaining = size
        while remaining:
            wait = deadline - time.monotonic()
            if wait <= 0:
                self.stop()
                raise RuntimeGone("deadline")
            ready, _, _ = select.select([fd], [], [], wait)
            if not ready:
                continue
            chunk = os.read(fd, remaining)
            if not chunk:
                self.stop()
                raise RuntimeGone("crashed")
            chunks.append(chunk)
            remaining -= len(chunk)
        return b"".join(chunks)

    def stop(self) -> None:
        """Kill the process group and remove the scratch directory; safe to call twice."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        shutil.rmtree(self._scratch, ignore_errors=True)


_RETIRED_NOTICE: Final = (
    "Note: this session's previous runtime was retired ({reason}); a fresh runtime was started, "
    "so variables from earlier calls are gone."
)
_GONE_MESSAGES: Final = {
    "deadline": "Execution stopped: the code ran past the {deadline:g}-second deadline. The runtime was shut down "
    "and this session's variables are gone; the next call starts a fresh runtime.",
    "crashed": "Execution stopped: the runtime exited unexpectedly (possibly over its memory limit). This "
    "session's variables are gone; the next call starts a fresh runtime.",
    "protocol": "Execution stopped: the runtime sent an invalid reply and was shut down. This session's "
    "variables are gone; the next call starts a fresh runtime.",
}
_RETIRED_REASONS: Final = {"deadline": "it exceeded the deadline", "crashed": "it exited", "protocol": "invalid reply"}


class SessionPool:
    """Runtimes by session ID. One call at a time per session; a bounded number of live sessions."""

    def __init__(self, settings: RuntimeSettings) -> None:
        self.settings = settings
        self._runtimes: dict[str, Runtime] = {}
        self._busy: set[str] = set()
        self._retired: dict[str, str] = {}
        self._lock = threading.Lock()
        self._closed = False

    def live_sessions(self) -> list[str]:
        with self._lock:
            return sorted(self._runtimes)

    def retired_sessions(self) -> list[str]:
        with self._lock:
            return sorted(self._retired)

    def execute(self, session_id: str, code: str) -> list[OutputItem]:
        with self._lock:
            if self._closed:
                raise RequestError(503, "The execution service is shutting down.")
            if session_id in self._busy:
                raise RequestError(409, "This session is already running code; wait for that call to finish.")
            if session_id not in self._runtimes and len(self._runtimes) >= self.settings.limits.max_sessions:
                raise RequestError(503, "Too many live sessions; end one before starting another.")
            self._busy.add(session_id)
            runtime = self._runtimes.get(session_id)
            retired_reason = self._retired.pop(session_id, None)
        notes: list[OutputItem] = []
        try:
            if runtime is None:
                try:
                    runtime = Runtime(self.settings)
                except (RuntimeGone, OSError):
                    raise RequestError(503, "The runtime could not be started.") from None
                with self._lock:
                    self._runtimes[session_id] = runtime
                if retired_reason is not None:
                    notes.append(text_item(_RETIRED_NOTICE.format(reason=_RETIRED_REASONS[retired_reason])))
            try:
                return notes + runtime.execute(code, self.settings.limits.deadline_s)
            except RuntimeGone as gone:
                reason = str(gone)
                with self._lock:
                    self._runtimes.pop(session_id, None)
                    self._retired[session_id] = reason
                return [*notes, text_item(_GONE_MESSAGES[reason].format(deadline=self.settings.limits.deadline_s))]
        finally:
            with self._lock:
                self._busy.discard(session_id)

    def end(self, session_id: str) -> bool:
        """Stop a session's runtime; True if there was one."""
        with self._lock:
            runtime = self._runtimes.pop(session_id, None)
        if runtime is None:
            return False
        runtime.stop()
        return True

    def close(self) -> None:
        with self._lock:
            self._closed = True
            runtimes = list(self._runtimes.values())
            self._runtimes.clear()
        for runtime in runtimes:
            runtime.stop()
