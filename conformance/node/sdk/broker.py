"""The Node SDK as a subject of the kit's checks: its objects built and called from Python through the Node host.

``driverkit certify --sdk=node`` runs the same scenarios against the npm ``openai`` the kit installed. The Node
side (``conformance/node/js/sdk.mjs``, loaded with the host's generic ``invoke`` op) is an object broker: Python
constructs the SDK's classes there and calls their methods; whatever the SDK calls back (a driver method, a
registered function, an approval, ``fetch``, a ledger save, an event observer) is a Python callable that runs
here. So a scenario's probes, timeline and cassette transport are the very ones the Python SDK is checked with,
and the checks compare the same observations.

A callback arrives as an event on the request that is running; it is answered on a worker thread (the bridge's
reader must keep reading, and a held function call must not block the others) with a separate ``answer`` request.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import itertools
import json
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Final

from openai.lib.responses_tool_runner import ToolRunnerError

from conformance.node.bridge import NodeError, NodeHost, NodeHostError, rebuild_error

# A whole runner run crosses in one request; the longest bundled scenario holds calls for a few seconds.
RUN_SECONDS: Final = 120.0
CALL_SECONDS: Final = 30.0
CALLBACK_WORKERS: Final = 8


def sdk_module(name: str = "sdk.mjs") -> Path:
    """The broker ``sdk.mjs``, or one of the modules that extend it (``sdk_computer.mjs``, ...), inside the installed
    kit (package data next to the host)."""
    return Path(str(resources.files("conformance.node").joinpath("js").joinpath(name)))


OPENAI_ENVIRONMENT: Final = "DRIVERKIT_NODE_OPENAI"


def openai_folder() -> Path | None:
    """The npm openai package folder ``DRIVERKIT_NODE_OPENAI`` names (a project folder with node_modules/openai,
    or the package folder itself), or None for the one installed with the kit."""
    given = os.environ.get(OPENAI_ENVIRONMENT)
    if not given:
        return None
    folder = Path(given).resolve()
    for candidate in (folder, folder / "node_modules" / "openai"):
        if (candidate / "package.json").is_file() and (candidate / "helpers" / "browser.mjs").is_file():
            return candidate
    raise NodeHostError(f"{OPENAI_ENVIRONMENT}={given}: no npm openai package there (nor in its node_modules)")


class NodeToolRunnerError(ToolRunnerError, NodeError):
    """The Node SDK's ``ResponsesToolRunnerError``, with its receipts under the Python names checks read."""

    js_class = "ResponsesToolRunnerError"


class Data(dict[str, Any]):
    """A JSON object from Node, readable as attributes too (``response.output_text``, ``event.type``)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON, as the Python SDK's models give it (checks summarize either SDK's output items alike)."""
        plain: dict[str, Any] = json.loads(json.dumps(self))
        return plain


@dataclass(frozen=True)
class Later:
    """A callback's answer to finish off the ordered callback thread (a held function call), so other callbacks,
    such as a second independent call, can start meanwhile."""

    finish: Callable[[], Any]


@dataclass(frozen=True)
class Signal:
    """An AbortSignal seen from Python: whether it was aborted when it crossed, and the broker's handle on it (to
    read later whether it is aborted now)."""

    aborted: bool
    handle: int | None = None


@dataclass
class JsObject:
    """A Node object kept by the broker; ``fields`` are its plain data fields as they were when it crossed."""

    sdk: NodeSdk
    handle: int
    fields: dict[str, Any] = field(default_factory=dict)

    def call(self, name: str, *args: Any, timeout: float = CALL_SECONDS) -> Any:
        return self.sdk.invoke("call", {"target": self, "name": name, "args": list(args)}, timeout=timeout)

    def kind_of(self, name: str) -> str:
        """The JavaScript ``typeof`` of member ``name`` ("undefined" when absent)."""
        return str(self.sdk.invoke("member", {"target": self, "name": name}))


class NodeSdk:
    """One Node host serving the SDK broker, with the registry of Python callables the Node side may call."""

    def __init__(self, host: NodeHost | None = None) -> None:
        self.host = host or NodeHost().start()
        self._functions: dict[int, Callable[..., Any]] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        # Callbacks start one at a time in the order Node made them (so a timeline records Node's order, not the
        # thread scheduler's); one that answers with :class:`Later` finishes on the pool.
        self._ordered = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="driverkit-node-cb")
        self._workers = concurrent.futures.ThreadPoolExecutor(
            CALLBACK_WORKERS, thread_name_prefix="driverkit-node-later"
        )
        self._ordered_thread: int | None = None
        self._nesting = 0
        self._checkpoint: Callable[[], None] | None = None
        folder = openai_folder()
        if folder is not None:
            self.invoke("configure", {"folder": str(folder)})
        self.version: str = str(self.invoke("version", {})["version"])

    @property
    def active_checkpoint(self) -> Callable[[], None] | None:
        """The check :meth:`checkpoint` runs now: a ``cancelled`` probe handed out during a call keeps it, so the
        probe still propagates its call's predicate when a check asks it after the call."""
        return self._checkpoint

    def settle(self) -> None:
        """Wait until every callback Node made so far has run: observers (events, diagnostics) are not awaited by
        the SDK, so their callbacks may still be queued when the call that made them has already returned."""
        if threading.get_ident() == self._ordered_thread:
            return  # a callback calling into Node: what it waits for runs on the pool, and it must not wait on itself
        self._ordered.submit(lambda: None).result(timeout=CALL_SECONDS)

    @contextlib.contextmanager
    def checkpoint(self, check: Callable[[], None]) -> Iterator[None]:
        """While the block runs, run ``check`` after each Python callback has returned or raised and before Node
        learns its answer. During a Node call Python code runs only in callbacks, so a run's ``cancelled`` predicate
        checked here is seen as soon as anything can have changed it, before the runner can take another step."""
        outer, self._checkpoint = self._checkpoint, check
        try:
            yield
        finally:
            self._checkpoint = outer

    def _after_callback(self) -> None:
        check = self._checkpoint
        if check is not None:
            check()

    def close(self) -> list[str]:
        self._ordered.shutdown(wait=False, cancel_futures=True)
        self._workers.shutdown(wait=False, cancel_futures=True)
        return self.host.stop()

    # -- requests ---------------------------------------------------------------------------------------------

    def invoke(
        self, member: str, args: Mapping[str, Any], *, timeout: float = CALL_SECONDS, module: str = "sdk.mjs"
    ) -> Any:
        """Call export ``member`` of the broker (or of ``module``, one that extends it); a thrown error comes back
        raised (see :func:`raised`)."""
        # A callback that calls into Node (a driver closing its toolset, say) may need callbacks of its own before
        # it can return: while the ordered thread waits here, callbacks start on the pool instead.
        # Answering a callback is not such a call (it makes no callbacks): were it counted, callbacks Node makes
        # meanwhile (diagnostics it does not await, say) would start on the pool and lose Node's order.
        nested = threading.get_ident() == self._ordered_thread and member != "answer"
        if nested:
            self._nesting += 1
        try:
            answer = self.host.request(
                "invoke",
                timeout=timeout,
                what=f"Node SDK {member}",
                on_event=self._on_event,
                module=str(sdk_module(module)),
                member=member,
                args=self.encode(dict(args)),
            )
        except NodeError as error:
            raise raised(error) from None
        finally:
            if nested:
                self._nesting -= 1
        if isinstance(answer, dict) and "$thrown" in answer:
            raise raised(rebuild_error(answer["$thrown"]), answer["$thrown"])
        return self.decode(answer)

    def construct(self, name: str, *args: Any, timeout: float = CALL_SECONDS) -> Any:
        return self.invoke("construct", {"name": name, "args": list(args)}, timeout=timeout)

    def call_export(self, name: str, *args: Any) -> Any:
        return self.invoke("construct", {"name": name, "args": list(args), "call": True})

    def proxy(self, methods: Mapping[str, Callable[..., Any]]) -> JsObject:
        """A plain Node object whose methods are these Python callables (a driver, say)."""
        made = self.invoke("object", {"methods": dict(methods)})
        assert isinstance(made, JsObject)
        return made

    def client(
        self, fetch: Callable[[dict[str, Any]], dict[str, Any]], *, streams: JsObject | None = None, **options: Any
    ) -> JsObject:
        """A Node OpenAI client whose ``fetch`` is answered by ``fetch``; with ``streams`` (a ``streamLog``), it serves
        event streams event by event and logs when each is opened and closed (see ``client`` in sdk.mjs)."""
        request: dict[str, Any] = {"fetch": fetch, "options": options}
        if streams is not None:
            request["streams"] = streams
        made = self.invoke("client", request)
        assert isinstance(made, JsObject)
        return made

    # -- values -----------------------------------------------------------------------------------------------

    def encode(self, value: Any) -> Any:
        if isinstance(value, JsObject):
            return {"$js": value.handle}
        if isinstance(value, BaseException):
            return {"$error": describe(value)}
        if callable(value) and not isinstance(value, type):
            with self._lock:
                identifier = next(self._ids)
                self._functions[identifier] = value
            return {"$py": identifier}
        if isinstance(value, Mapping):
            return {str(key): self.encode(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.encode(item) for item in value]
        dump = getattr(value, "model_dump", None)
        if callable(dump):
            return self.encode(dump(mode="json", exclude_none=True))
        return value

    def decode(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self.decode(item) for item in value]
        if not isinstance(value, dict):
            return value
        if "$js" in value:
            return JsObject(self, int(value["$js"]), {k: self.decode(v) for k, v in value.get("fields", {}).items()})
        if "$error" in value:
            return raised(rebuild_error(value["$error"]), value["$error"])
        if "$signal" in value:
            handle = value["$signal"].get("handle")
            return Signal(bool(value["$signal"].get("aborted")), int(handle) if handle is not None else None)
        return Data({key: self.decode(item) for key, item in value.items()})

    # -- callbacks --------------------------------------------------------------------------------------------

    def _on_event(self, event: dict[str, Any]) -> None:
        if event.get("event") != "callback":
            return
        executor = self._workers if self._nesting else self._ordered
        executor.submit(self._start, int(event["cb"]), int(event["fn"]), list(event.get("args") or []))

    def _start(self, cb: int, fn: int, args: list[Any]) -> None:
        if threading.current_thread().name.startswith("driverkit-node-cb"):
            self._ordered_thread = threading.get_ident()
        function = self._functions.get(fn)
        try:
            if function is None:
                raise LookupError(f"the Python callable {fn} is gone")
            try:
                value = function(*(self.decode(arg) for arg in args))
            finally:
                self._after_callback()
        except BaseException as error:
            self._reply({"cb": cb, "ok": False, "error": describe(error)})
            return
        if isinstance(value, Later):
            self._workers.submit(self._finish, cb, value)
        else:
            self._reply({"cb": cb, "ok": True, "value": value})

    def _finish(self, cb: int, later: Later) -> None:
        try:
            try:
                value = later.finish()
            finally:
                self._after_callback()
        except BaseException as error:
            self._reply({"cb": cb, "ok": False, "error": describe(error)})
            return
        self._reply({"cb": cb, "ok": True, "value": value})

    def _reply(self, reply: dict[str, Any]) -> None:
        try:
            self.invoke("answer", reply)
        except Exception:
            return


class NodeArgumentError(ValueError, NodeError):
    """A ``TypeError`` or ``RangeError`` the Node SDK throws for arguments it refuses: JavaScript's idiom for what
    the Python SDK raises as ``ValueError``, so checks of "rejected before any request" read both alike."""

    @classmethod
    def refusing(cls, error: NodeError) -> NodeArgumentError:
        """``error`` (a plain Node ``Error``) as a refusal: a toolset refuses a call or a driver it must not use with
        an Error where the Python SDK raises ``ValueError``; both mean nothing reached the driver."""
        refused = cls(str(error))
        refused.js_class = error.js_class
        return refused


ARGUMENT_ERRORS: Final = frozenset({"TypeError", "RangeError"})


def describe(error: BaseException) -> dict[str, Any]:
    """How a Python exception crosses to Node: a Python SDK ``BrowserError`` becomes the Node one."""
    from openai.lib.browser import BrowserError

    return {
        "class": type(error).__name__,
        "message": str(error),
        "browser_error": isinstance(error, BrowserError),
    }


def raised(error: NodeError, described: Mapping[str, Any] | None = None) -> NodeError:
    """A runner error from Node with its receipts, else the rebuilt error as is."""
    text = described or {}
    if not text.get("runner_error") and "attempted_call_ids" not in text:
        if error.js_class in ARGUMENT_ERRORS:
            refused = NodeArgumentError(str(error))
            refused.js_class = error.js_class
            return refused
        return error
    runner = NodeToolRunnerError(
        str(error), list(text.get("attempted_call_ids", [])), list(text.get("completed_call_ids", []))
    )
    return runner


_shared: NodeSdk | None = None
_shared_lock = threading.Lock()


def shared_sdk() -> NodeSdk:
    """This process's Node SDK broker, started on first use (one host per pytest process, so per xdist worker)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = NodeSdk()
        return _shared


def close_shared() -> list[str]:
    global _shared
    with _shared_lock:
        sdk, _shared = _shared, None
    return sdk.close() if sdk is not None else []
