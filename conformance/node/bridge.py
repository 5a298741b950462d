"""The Python end of the Node host: one ``node`` process per pytest process, JSON lines over its stdin and stdout.

:class:`NodeHost` starts ``conformance/node/js/host.mjs`` (shipped with the kit), sends requests and waits for their
answers, each under a deadline. What can go wrong in the host becomes a typed error here, never a hung run:

- a call past its deadline raises :class:`~conformance.harness.errors.DriverTimeout`, and the host is killed and
  started afresh (a driver stuck in a busy loop blocks the whole host, so nothing else could run there anyway);
  drivers opened in the old host are gone, which :attr:`NodeHost.generation` tells their cleanup;
- a host that exits (a driver calling ``process.exit``, a crash) fails every waiting request with
  :class:`NodeHostCrashed`, naming the exit status and the last lines the host wrote to stderr;
- an error thrown in JavaScript comes back as a :class:`NodeError` whose class name is the JavaScript one (so a
  certificate reads "TimeoutError: ..."); the Node SDK's ``BrowserError`` becomes a subclass of the Python SDK's
  ``BrowserError``, so the checks' "a safe, recoverable refusal" test holds for both languages.

``cancelled`` crosses as a value: a predicate already true makes the host's AbortSignal start aborted; otherwise
the host gets a live signal, and this side polls the predicate while it waits, sending ``abort`` when it turns
true. (A Python predicate cannot run in Node; polling every 20 ms keeps the delay far below any check's margin.)
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import itertools
import json
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import IO, Any, Final

from openai.lib.browser import BrowserError

from conformance.harness.errors import DriverTimeout, bounded

# Node 18 (Debian 12's nodejs) is the oldest the kit runs: the host, tsx and the npm openai helpers were checked
# on Debian's 18.20 (the npm openai declares node>=22 but needs nothing newer than 18). Playwright for Node needs 20,
# so a driver built on it (the reference Node browser driver) needs 20 itself.
MINIMUM_NODE_MAJOR: Final = 18
NODE_INSTALL_HINT: Final = "apt-get install -y nodejs npm (Debian 12 has Node 18), or set DRIVERKIT_NODE to a Node 18+"
HOST_START_SECONDS: Final = 15.0
CANCEL_POLL_SECONDS: Final = 0.02
STDERR_LINES_KEPT: Final = 20


def host_script() -> Path:
    """``host.mjs`` inside the installed kit (package data, next to the Python modules)."""
    return Path(str(resources.files("conformance.node").joinpath("js").joinpath("host.mjs")))


class NodeHostError(RuntimeError):
    """The Node host cannot be used: node is missing or too old, or the host did not start."""


class NodeHostCrashed(NodeHostError):
    """The host process ended while a request was waiting for it."""


class NodeError(Exception):
    """An error thrown in JavaScript: ``js_class`` and ``message`` as the host reported them."""

    js_class = "Error"


class NodeBrowserError(BrowserError, NodeError):
    """The Node SDK's ``BrowserError``, seen from Python as the Python SDK's one (a safe refusal)."""

    js_class = "BrowserError"


_error_classes: dict[tuple[str, bool], type[NodeError]] = {}


def rebuild_error(described: Mapping[str, Any]) -> NodeError:
    """A Python exception for a JavaScript one, of a class named like it so reasons read naturally."""
    name = str(described.get("class") or "Error")
    safe = bool(described.get("browser_error"))
    key = (name, safe)
    if key not in _error_classes:
        base: type[NodeError] = NodeBrowserError if safe else NodeError
        identifier = name if name.isidentifier() else "Error"
        _error_classes[key] = type(identifier, (base,), {"js_class": name, "__module__": "javascript"})
    return _error_classes[key](str(described.get("message", "")))


@dataclass
class _Pending:
    future: concurrent.futures.Future[dict[str, Any]] = field(default_factory=concurrent.futures.Future)
    on_event: Callable[[dict[str, Any]], None] | None = None


def find_node(explicit: str | None = None) -> str:
    """The ``node`` executable (``DRIVERKIT_NODE`` or PATH), checked to be Node 18 or newer."""
    candidate = explicit or os.environ.get("DRIVERKIT_NODE") or shutil.which("node")
    if not candidate:
        raise NodeHostError(f"node not found on PATH; install it: {NODE_INSTALL_HINT}")
    try:
        version = subprocess.run(
            [candidate, "--version"], capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError) as error:
        raise NodeHostError(f"{candidate} --version failed: {error}; {NODE_INSTALL_HINT}") from None
    major_text = version.lstrip("v").split(".", 1)[0]
    if not major_text.isdigit():
        raise NodeHostError(f"{candidate} --version printed {version!r}, not a Node version; {NODE_INSTALL_HINT}")
    if int(major_text) < MINIMUM_NODE_MAJOR:
        raise NodeHostError(
            f"{candidate} is Node {version}; the kit needs Node {MINIMUM_NODE_MAJOR} or newer: {NODE_INSTALL_HINT}"
        )
    return candidate


class NodeHost:
    """One Node host process; ``boot`` requests (loading the driver module) run again after every restart."""

    def __init__(self, node_args: Sequence[str] = (), node: str | None = None) -> None:
        self._node = find_node(node)
        self._node_args = tuple(node_args)
        self._boot: list[tuple[str, dict[str, Any], float]] = []
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._pending: dict[int, _Pending] = {}
        self._process: subprocess.Popen[bytes] | None = None
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES_KEPT)
        self._ready: concurrent.futures.Future[dict[str, Any]] = concurrent.futures.Future()
        self._ended: str | None = None
        # Bumped on every (re)start: a driver handle from an earlier generation no longer exists.
        self.generation = 0
        self.boot_answers: list[Any] = []

    # -- process ---------------------------------------------------------------------------------------------

    def start(self) -> NodeHost:
        command = [self._node, *self._node_args, str(host_script())]
        self._process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
        )
        ready: concurrent.futures.Future[dict[str, Any]] = concurrent.futures.Future()
        self._ready = ready
        self._ended = None
        self._stderr.clear()
        self.generation += 1
        process = self._process
        threading.Thread(target=self._read, args=(process, ready), name="driverkit-node-out", daemon=True).start()
        threading.Thread(target=self._drain, args=(process,), name="driverkit-node-err", daemon=True).start()
        try:
            self._ready.result(timeout=HOST_START_SECONDS)
        except concurrent.futures.TimeoutError:
            self._kill()
            raise NodeHostError(f"the Node host did not start within {HOST_START_SECONDS:g} s") from None
        except NodeHostCrashed as crashed:
            raise NodeHostError(f"the Node host did not start: {crashed}") from None
        self.boot_answers = [self.request(op, timeout=seconds, **fields) for op, fields, seconds in self._boot]
        return self

    def serves(self, generation: int) -> bool:
        """Whether the host that was running at ``generation`` is still the running one (it holds its drivers)."""
        process = self._process
        return generation == self.generation and process is not None and process.poll() is None

    def boot(self, op: str, timeout: float, **fields: Any) -> Any:
        """Run ``op`` now and again after each restart (how the host loads the driver module)."""
        self._boot.append((op, fields, timeout))
        return self.request(op, timeout=timeout, **fields)

    def restart(self) -> None:
        self._kill()
        self.start()

    def stop(self, timeout: float = 5.0) -> list[str]:
        """Ask the host to close its shared resources, then end it; what went wrong, one line each."""
        process = self._process
        if process is None or process.poll() is not None:
            return []
        problems: list[str] = []
        try:
            problems = [str(line) for line in self.request("shutdown", timeout=timeout) or []]
        except (DriverTimeout, NodeHostError, NodeError) as error:
            problems.append(f"the Node host did not shut down cleanly: {error}")
        self._kill()
        return problems

    def _kill(self) -> None:
        process = self._process
        if process is None:
            return
        if process.stdin is not None and not process.stdin.closed:
            with contextlib.suppress(OSError):
                process.stdin.close()
        try:
            process.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            # The whole session: a driver's browser started by the host goes with it.
            os.killpg(process.pid, 9)
            process.wait(timeout=5.0)

    def _read(self, process: subprocess.Popen[bytes], ready: concurrent.futures.Future[dict[str, Any]]) -> None:
        assert process.stdout is not None
        for raw in process.stdout:
            try:
                message = json.loads(raw)
            except ValueError:
                self._stderr.append(f"(not protocol) {bounded(raw.decode(errors='replace').strip(), 200)}")
                continue
            self._dispatch(message, ready)
        status = process.wait()
        ended = f"the Node host exited with status {status}" + self._stderr_tail()
        crashed = NodeHostCrashed(ended)
        if not ready.done():
            ready.set_exception(crashed)
        if process is not self._process:
            return  # a host the kit ended and replaced: its requests were already given up
        self._ended = ended
        with self._lock:
            waiting, self._pending = self._pending, {}
        for pending in waiting.values():
            if not pending.future.done():
                pending.future.set_exception(crashed)

    def _dispatch(self, message: dict[str, Any], ready: concurrent.futures.Future[dict[str, Any]]) -> None:
        identifier = message.get("id")
        if identifier is None:
            if message.get("ready") and not ready.done():
                ready.set_result(message)
            return
        with self._lock:
            pending = self._pending.get(identifier)
        if pending is None:
            return
        if "event" in message:
            if pending.on_event is not None:
                pending.on_event(message)
            return
        with self._lock:
            self._pending.pop(identifier, None)
        pending.future.set_result(message)

    def _drain(self, process: subprocess.Popen[bytes]) -> None:
        stream: IO[bytes] | None = process.stderr
        assert stream is not None
        for raw in stream:
            self._stderr.append(raw.decode(errors="replace").rstrip())

    def _stderr_tail(self) -> str:
        lines = [line for line in self._stderr if line.strip()]
        return f"; its last output: {bounded(' | '.join(lines[-5:]), 600)}" if lines else ""

    # -- requests --------------------------------------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        process = self._process
        if process is None or process.stdin is None or process.poll() is not None:
            raise NodeHostCrashed(self._ended or "the Node host is not running")
        data = (json.dumps(message) + "\n").encode()
        with self._lock:
            try:
                process.stdin.write(data)
                process.stdin.flush()
            except (BrokenPipeError, OSError):
                raise NodeHostCrashed(self._ended or "the Node host closed its input") from None

    def notify(self, op: str, **fields: Any) -> None:
        """Send ``op`` without waiting for its answer: safe from an ``on_event`` callback (the reader thread)."""
        self._send({"id": next(self._ids), "op": op, **fields})

    def request(
        self,
        op: str,
        *,
        timeout: float,
        what: str | None = None,
        on_event: Callable[[dict[str, Any]], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
        **fields: Any,
    ) -> Any:
        """Send ``op`` and return its value; see the module docstring for what each failure raises.

        A host that ended since the last request (a driver crashed it) is started afresh first, so one crash
        fails one check, not every check after it.
        """
        if self._process is not None and self._process.poll() is not None:
            self.start()
        identifier = next(self._ids)
        pending = _Pending(on_event=on_event)
        with self._lock:
            self._pending[identifier] = pending
        message = {"id": identifier, "op": op, **fields}
        if cancelled is not None:
            message["cancelled"] = bool(cancelled())
        deadline = time.monotonic() + timeout
        try:
            self._send(message)
            answer = self._wait(pending, identifier, deadline, cancelled if not message.get("cancelled") else None)
        except concurrent.futures.TimeoutError:
            with self._lock:
                self._pending.pop(identifier, None)
            # A host stuck in a call serves nothing else: end it (and start a fresh one unless shutting down).
            if op == "shutdown":
                self._kill()
            else:
                self.restart()
            raise DriverTimeout(what or op, timeout) from None
        if answer.get("ok"):
            return answer.get("value")
        raise rebuild_error(answer.get("error") or {})

    def _wait(
        self, pending: _Pending, identifier: int, deadline: float, cancelled: Callable[[], bool] | None
    ) -> dict[str, Any]:
        if cancelled is None:
            return pending.future.result(timeout=max(0.0, deadline - time.monotonic()))
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise concurrent.futures.TimeoutError
            try:
                return pending.future.result(timeout=min(CANCEL_POLL_SECONDS, remaining))
            except concurrent.futures.TimeoutError:
                if cancelled():
                    self._send({"id": next(self._ids), "op": "abort", "call": identifier})
                    return pending.future.result(timeout=max(0.0, deadline - time.monotonic()))


TYPESCRIPT_SUFFIXES: Final = (".ts", ".mts", ".cts")


def node_version(node: str) -> tuple[int, int]:
    text = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=10, check=True).stdout
    major, minor = (int(part) for part in text.strip().lstrip("v").split(".")[:2])
    return major, minor


def find_tsx(start: Path, kit_fallback: bool = True) -> Path | None:
    """tsx's ESM loader in the nearest ``node_modules`` above ``start``, else above the kit's host, or None."""
    for origin in (start, host_script().parent) if kit_fallback else (start,):
        for folder in (origin, *origin.parents):
            manifest = folder / "node_modules" / "tsx" / "package.json"
            if manifest.is_file():
                entry = json.loads(manifest.read_text("utf-8")).get("exports", {}).get(".", "./dist/loader.mjs")
                while isinstance(entry, dict):
                    entry = entry.get("import") or entry.get("default") or "./dist/loader.mjs"
                return (manifest.parent / str(entry)).resolve()
    return None


def node_argv(module: Path, node: str | None = None, kit_fallback: bool = True) -> list[str]:
    """Node flags a driver module needs: a way to run TypeScript, where the module is TypeScript.

    Node 22.6 and newer strip types themselves (``--experimental-strip-types``; on by default from 23.6), for
    TypeScript that needs no transformation (``import type`` for types, no enums). Older Node, such as Debian 12's
    20, has no such flag: the module runs through tsx's loader (``--import``), found in the nearest
    ``node_modules`` above the module (``npm install --save-dev tsx``) or the kit's own.
    """
    if module.suffix not in TYPESCRIPT_SUFFIXES:
        return []
    executable = find_node(node)
    if node_version(executable) >= (22, 6):
        return ["--experimental-strip-types", "--no-warnings=ExperimentalWarning"]
    loader = find_tsx(module.parent, kit_fallback)
    if loader is None:
        raise NodeHostError(
            f"{module.name} is TypeScript and this Node ({'.'.join(map(str, node_version(executable)))}) cannot strip "
            "types (Node 22.6+ can); install tsx next to the driver: npm install --save-dev tsx"
        )
    return ["--import", loader.as_uri()]
