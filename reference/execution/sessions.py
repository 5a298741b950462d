"""Sessions: one sandboxed runtime per ``session_id``, kept alive between calls and retired when it misbehaves.

The deadline is enforced here, on the runtime's sandbox, not by the client's wait (spec/003: execution limits are
enforced inside the runtime and code that exceeds them is stopped): a call that outlives ``deadline_s`` has its
sandbox's PID namespace killed (every descendant, ``setsid`` or not), and its session is retired so no later call
sees a half-finished namespace. Sessions end explicitly (:meth:`SessionPool.end`), after ``idle_timeout_s`` without
calls, or when a new session needs room and they are the oldest idle one.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import signal
import struct
import subprocess
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Final

from .limits import ExecutionLimits
from .node import NodeUnavailable
from .protocol import OutputItem, RequestError, text_item, validate_output
from .sandbox import Launcher

_HEADER: Final = struct.Struct(">I")
# The only images a runtime makes (runtime.py: PNG; runtime.cjs: PNG or JPEG); anything else in a reply was forged.
_IMAGE_URL: Final = re.compile(r"data:image/(?:png|jpeg);base64,[A-Za-z0-9+/]*={0,2}")


class RuntimeGone(Exception):
    """The runtime process is no longer usable (deadline, crash, protocol failure); the message says which."""


@dataclass(frozen=True)
class RuntimeSettings:
    limits: ExecutionLimits
    display: str | None
    launcher: Launcher


def reply_budget(limits: ExecutionLimits) -> int:
    """The largest reply frame a runtime within its limits can send (JSON escaping and notes included)."""
    images = limits.max_images * (limits.max_image_bytes * 4 // 3 + 1024)
    return 6 * limits.max_text_bytes + images + 64 * 1024


def clamp_output(items: list[OutputItem], limits: ExecutionLimits) -> list[OutputItem]:
    """Enforce the output limits on the service side: the code shares the runtime's process and could bypass it."""
    text_left = limits.max_text_bytes + _NOTE_ALLOWANCE
    images_left = limits.max_images
    kept: list[OutputItem] = []
    for item in items:
        if item["type"] == "input_text":
            encoded = item["text"].encode("utf-8", "surrogatepass")
            if text_left <= 0:
                continue
            if len(encoded) > text_left:
                kept.append(text_item(encoded[:text_left].decode("utf-8", "ignore")))
                text_left = 0
            else:
                text_left -= len(encoded)
                kept.append(item)
        elif images_left > 0 and len(item["image_url"]) <= limits.max_image_bytes * 4 // 3 + 64:
            images_left -= 1
            kept.append(item)
    return kept or [text_item("Finished with no output.")]


_NOTE_ALLOWANCE: Final = 4096
_MAX_RETIRED_NOTES: Final = 10_000


Spawn = Callable[..., "subprocess.Popen[bytes]"]


def _popen(argv: list[str], kwargs: dict[str, Any]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(argv, **kwargs)


class Runtime:
    """One sandboxed runtime process and the pipes to it."""

    def __init__(self, settings: RuntimeSettings, spawn: Spawn = subprocess.Popen, language: str = "python") -> None:
        """Start the runtime through ``spawn`` (a ``subprocess.Popen`` run on the caller's chosen thread)."""
        limits = settings.limits
        self._limits = limits
        self.language = language
        args = [
            f"--memory={limits.memory_bytes}",
            f"--max-text-bytes={limits.max_text_bytes}",
            f"--max-images={limits.max_images}",
            f"--max-image-bytes={limits.max_image_bytes}",
        ]
        self._confinement = settings.launcher.confine(args, settings.display, language=language)
        self._init_pidfd: int | None = None
        self._stop_lock = threading.Lock()
        self._stopped = False
        try:
            self.process = spawn(
                self._confinement.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=self._confinement.env,
                pass_fds=self._confinement.pass_fds,
                start_new_session=True,  # its own process group, so a kill reaches the launcher too
            )
        except OSError:
            self._confinement.release()
            raise
        self._confinement.started()
        self.last_used = time.monotonic()
        self._calls = 0
        try:
            deadline = time.monotonic() + limits.startup_timeout_s
            self._watch_init(deadline)
            hello = self._receive(deadline)
        except RuntimeGone:
            self.stop()
            raise
        note = hello.get("note")
        # Set when the runtime has no desktop helpers (no display); the runtime repeats it to calls that need them.
        self.startup_note = note if isinstance(note, str) else None

    @property
    def uid(self) -> int:
        """The uid the runtime's code runs as, as the host sees it."""
        return self._confinement.uid

    def _watch_init(self, deadline: float) -> None:
        """Learn the sandbox's init (bwrap's ``--info-fd``) and hold a pidfd on it: its exit ends the tree."""
        fd = self._confinement.info_read_fd
        if fd is None:
            return
        chunks: list[bytes] = []
        while True:
            wait = deadline - time.monotonic()
            if wait <= 0:
                raise RuntimeGone("crashed")
            ready, _, _ = select.select([fd], [], [], wait)
            if not ready:
                continue
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            chunks.append(chunk)
            if b"}" in chunk:
                break
        try:
            pid = int(json.loads(b"".join(chunks))["child-pid"])
        except (ValueError, KeyError, TypeError):
            raise RuntimeGone("crashed") from None
        with contextlib.suppress(OSError):
            self._init_pidfd = os.pidfd_open(pid)

    def execute(self, code: str, deadline_s: float) -> list[OutputItem]:
        """Run ``code``; raises :class:`RuntimeGone` (after killing the process) if it fails to answer in time.

        The code runs in the runtime's process, so it can write to the reply pipe itself. It cannot make the
        service answer one call with another's reply: each request is numbered and its reply must carry that
        number, and bytes already waiting before a request (a reply written besides the runtime's own) retire
        the runtime as a protocol failure. Images must be the data URLs the runtimes make.
        """
        assert self.process.stdin is not None and self.process.stdout is not None
        if select.select([self.process.stdout.fileno()], [], [], 0)[0]:
            self.stop()
            raise RuntimeGone("protocol")
        self._calls += 1
        payload = json.dumps({"call": self._calls, "code": code}).encode("utf-8", "surrogatepass")
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
            if reply.get("call") != self._calls:
                raise ValueError("the reply answers another call")
            items = validate_output(reply.get("output"))
            if any(item["type"] == "input_image" and not _IMAGE_URL.fullmatch(item["image_url"]) for item in items):
                raise ValueError("an image that is not a PNG or JPEG data URL")
            return clamp_output(items, self._limits)
        except ValueError:
            self.stop()
            raise RuntimeGone("protocol") from None

    def _receive(self, deadline: float) -> dict[str, object]:
        header = self._read_exact(_HEADER.size, deadline)
        (length,) = _HEADER.unpack(header)
        if length > reply_budget(self._limits):
            self.stop()
            raise RuntimeGone("protocol")
        try:
            value = json.loads(self._read_exact(length, deadline))
        except ValueError:
            value = None
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
        """Kill the sandbox's whole tree, wait until it is gone, release the cgroup; safe to call twice.

        Never raises: a stop that failed half-way must still release what it can and leave the pool usable (the
        caller may be answering a DELETE, or evicting this runtime to make room for another session). Two threads
        may stop one runtime at once (a call that saw it die, and the service shutting down): the second waits for
        the first and finds it done.
        """
        with self._stop_lock:
            if not self._stopped:
                self._stopped = True
                self._stop()

    def _stop(self) -> None:
        try:
            if self._init_pidfd is not None:
                # SIGKILL to the PID namespace's init: the kernel kills every process in the namespace, setsid or
                # not, and the init's exit completes only once they are all gone.
                with contextlib.suppress(OSError):
                    signal.pidfd_send_signal(self._init_pidfd, signal.SIGKILL)
            if self.process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=10)
            if self._init_pidfd is not None:
                with contextlib.suppress(OSError):
                    select.select([self._init_pidfd], [], [], 10)
                    os.close(self._init_pidfd)
                self._init_pidfd = None
            if self._confinement.cgroup is not None:
                self._confinement.cgroup.kill_all()
            for stream in (self.process.stdin, self.process.stdout):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
        finally:
            self._confinement.release()


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
_RETIRED_REASONS: Final = {
    "deadline": "it exceeded the deadline",
    "crashed": "it exited",
    "protocol": "invalid reply",
    "idle": "it was idle too long",
    "evicted": "the service needed room for another session",
}


class SessionPool:
    """Runtimes by session ID: one call at a time per session, a bounded number of live sessions, idle eviction.

    Runtimes are started from one long-lived thread: bwrap's ``--die-with-parent`` ties each sandbox to the
    thread that started it, so when the service process dies, however it dies, every sandbox dies with it.
    """

    def __init__(self, settings: RuntimeSettings) -> None:
        self.settings = settings
        self._runtimes: dict[str, Runtime] = {}
        self._busy: set[str] = set()
        self._retired: dict[str, str] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._spawner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="runtime-spawner")
        self._wake = threading.Event()
        self._evictor = threading.Thread(target=self._evict_idle, name="session-evictor", daemon=True)
        self._evictor.start()

    def _spawn(self, argv: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        # Only the process creation runs on the spawner thread; waiting for the runtime to be ready does not.
        return self._spawner.submit(_popen, argv, kwargs).result()

    def live_sessions(self) -> list[str]:
        with self._lock:
            return sorted(self._runtimes)

    def busy_sessions(self) -> list[str]:
        """Sessions with a call under way."""
        with self._lock:
            return sorted(self._busy)

    def retired_sessions(self) -> list[str]:
        with self._lock:
            return sorted(self._retired)

    def runtime(self, session_id: str) -> Runtime | None:
        """The live runtime of a session, if any (for tests and operators; never exposed over HTTP)."""
        with self._lock:
            return self._runtimes.get(session_id)

    def execute(self, session_id: str, code: str, language: str = "python") -> list[OutputItem]:
        """Run ``code`` in the session's runtime, starting one for ``language`` when the session has none."""
        evicted: Runtime | None = None
        with self._lock:
            if self._closed:
                raise RequestError(503, "The execution service is shutting down.")
            if session_id in self._busy:
                raise RequestError(409, "This session is already running code; wait for that call to finish.")
            running = self._runtimes.get(session_id)
            if running is not None and running.language != language:
                raise RequestError(
                    409,
                    f"This session runs {running.language}, not {language}; use another session_id for {language}.",
                )
            starting = len(self._busy - self._runtimes.keys())  # new sessions whose runtime is still starting
            live = len(self._runtimes) + starting
            if session_id not in self._runtimes and live >= self.settings.limits.max_sessions:
                evicted = self._pop_oldest_idle()
                if evicted is None:
                    raise RequestError(503, "Too many live sessions, all busy; end one before starting another.")
            self._busy.add(session_id)
            runtime = self._runtimes.get(session_id)
            retired_reason = self._retired.pop(session_id, None)
        notes: list[OutputItem] = []
        try:
            if evicted is not None:
                evicted.stop()
            if runtime is None:
                try:
                    runtime = Runtime(self.settings, self._spawn, language)
                except NodeUnavailable as missing:
                    raise RequestError(503, f"The {language} runtime is not installed here: {missing}.") from None
                except (RuntimeGone, OSError, RuntimeError):
                    raise RequestError(503, "The runtime could not be started.") from None
                with self._lock:
                    closed = self._closed
                    if not closed:
                        self._runtimes[session_id] = runtime
                if closed:
                    runtime.stop()
                    raise RequestError(503, "The execution service is shutting down.")
                if retired_reason is not None:
                    notes.append(text_item(_RETIRED_NOTICE.format(reason=_RETIRED_REASONS[retired_reason])))
            try:
                return notes + runtime.execute(code, self.settings.limits.deadline_s)
            except RuntimeGone as gone:
                reason = str(gone)
                with self._lock:
                    self._runtimes.pop(session_id, None)
                    self._remember(session_id, reason)
                return [*notes, text_item(_GONE_MESSAGES[reason].format(deadline=self.settings.limits.deadline_s))]
        finally:
            with self._lock:
                self._busy.discard(session_id)

    def _pop_oldest_idle(self) -> Runtime | None:
        idle = [(runtime.last_used, sid) for sid, runtime in self._runtimes.items() if sid not in self._busy]
        if not idle:
            return None
        _, oldest = min(idle)
        self._remember(oldest, "evicted")
        return self._runtimes.pop(oldest)

    def _remember(self, session_id: str, reason: str) -> None:
        """Note why a session's runtime went (told to its next call); the oldest notes are forgotten first."""
        self._retired.pop(session_id, None)
        self._retired[session_id] = reason
        while len(self._retired) > _MAX_RETIRED_NOTES:
            del self._retired[next(iter(self._retired))]

    def _evict_idle(self) -> None:
        timeout = self.settings.limits.idle_timeout_s
        while not self._wake.wait(min(timeout / 4, 30.0)):
            now = time.monotonic()
            with self._lock:
                stale = [
                    sid
                    for sid, runtime in self._runtimes.items()
                    if sid not in self._busy and now - runtime.last_used >= timeout
                ]
                gone = [self._runtimes.pop(sid) for sid in stale]
                for sid in stale:
                    self._remember(sid, "idle")
            for runtime in gone:
                runtime.stop()

    def end(self, session_id: str) -> bool:
        """Stop a session's runtime and forget the session; True if there was one. A busy session is ended too."""
        with self._lock:
            runtime = self._runtimes.pop(session_id, None)
            self._retired.pop(session_id, None)
        if runtime is None:
            return False
        runtime.stop()
        return True

    def close(self) -> None:
        with self._lock:
            self._closed = True
            runtimes = list(self._runtimes.values())
            self._runtimes.clear()
        self._wake.set()
        for runtime in runtimes:
            runtime.stop()
        self._spawner.shutdown(wait=True)
