"""Recording probe drivers: the kit's own drivers for checking the SDK toolsets and runners.

A probe implements exactly the members it is told to, answers each call from a script, and writes every
call (including ``state()`` reads and callback invocations) to a shared :class:`ProbeLog`, so a check can
prove what the SDK did or did not ask for, and in which order.

Public API (kept small on purpose):

- :class:`ProbeLog` - the ordered record; :meth:`ProbeLog.callback` makes recording approval callbacks.
- :class:`ProbeCall` - one recorded call: ``name``, ``args`` (deep copies), ``cancelled_passed``.
- :class:`Script` - a sequence of replies consumed one per call (the last one repeats).
- :class:`Act` - a reply computed at call time by a function of the received argument (sync or async).
- :class:`Shared` - a reply handed over as the very object (not a copy), so a check can change it later.
- :func:`browser_probe` / :class:`ProbeBrowser` / :class:`AsyncProbeBrowser` - browser drivers.
- :func:`computer_probe` / :class:`ProbeComputer` / :class:`AsyncProbeComputer` - computer drivers.

A *reply* is what a probed call returns: a plain value is returned (deep-copied, so the SDK can never alias
the script), a :class:`BaseException` instance is raised, a :class:`Script` yields its next reply, an
:class:`Act` calls its function with the call's first argument and uses the result as the reply, and a
:class:`Shared` value is returned without copying.

Why methods are built per instance: the SDK discovers driver members with ``getattr``/``callable`` and decides
sync or async from the method itself (coroutine function, or a return annotation), and passes ``cancelled``
only when the signature declares it. The probe therefore creates real ``def``/``async def`` functions with or
without a ``cancelled`` keyword, and gives sync ones a concrete return annotation so their flavour is *known*
(an unannotated sync function would be "unknown" to the SDK and escape its constructor flavour check).
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, TypeAlias

from conformance.flavours import Flavour
from conformance.members import ALL_NAMES, COMPUTER_METHODS, DRIVER_METHOD_NAMES

# A one-pixel PNG: small, valid, and obviously synthetic.
PIXEL_DATA_URL: Final[str] = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg=="
)

DEFAULT_TAB_URL: Final[str] = "https://probe.example/"
DEFAULT_STATE: Final[dict[str, object]] = {
    "tabs": [{"id": "tab-1", "title": "Probe page", "url": DEFAULT_TAB_URL, "active": True}]
}


@dataclass(frozen=True)
class Script:
    """Replies handed out one per call, in order; the last reply repeats once the script runs out."""

    replies: tuple[object, ...]

    def __init__(self, *replies: object) -> None:
        if not replies:
            raise ValueError("Script needs at least one reply")
        object.__setattr__(self, "replies", replies)


@dataclass(frozen=True)
class Act:
    """A reply computed when the call arrives: ``function(first_argument)``.

    Inside an async probe an awaitable result is awaited. Use it to act on the toolset mid-call, e.g. to call
    ``close()`` or start an overlapping ``execute``; its return value (or raised exception) is the reply.
    """

    function: Callable[[object], object]


@dataclass(frozen=True)
class Shared:
    """A reply returned as this very object rather than a copy: the check keeps a reference and can change it
    after the SDK received it (to prove the SDK copied the result before a later step)."""

    value: object


@dataclass(frozen=True)
class ProbeCall:
    """One recorded call. ``args`` holds deep copies of the positional arguments as received;
    ``cancelled_passed`` says whether the caller supplied the ``cancelled`` keyword; ``cancelled`` is the
    predicate itself (or None)."""

    name: str
    args: tuple[object, ...]
    cancelled_passed: bool
    cancelled: Callable[[], bool] | None = field(default=None, compare=False, repr=False)

    @property
    def argument(self) -> object:
        """The first positional argument, or None for argument-less calls such as ``state()``."""
        return self.args[0] if self.args else None


_NOT_PASSED: Final = object()


class ProbeLog:
    """The ordered record of every probed call, shared by a probe driver and the callbacks made from it."""

    def __init__(self) -> None:
        self.calls: list[ProbeCall] = []
        self._cursor: dict[str, int] = {}

    def names(self) -> list[str]:
        """Names of the recorded calls, in order."""
        return [call.name for call in self.calls]

    def of(self, name: str) -> list[ProbeCall]:
        return [call for call in self.calls if call.name == name]

    def count(self, name: str) -> int:
        return sum(1 for call in self.calls if call.name == name)

    def record(self, name: str, args: tuple[object, ...], cancelled: object) -> ProbeCall:
        passed = cancelled is not _NOT_PASSED
        predicate = cancelled if passed and callable(cancelled) else None
        call = ProbeCall(name, copy.deepcopy(args), passed, predicate)
        self.calls.append(call)
        return call

    def next_reply(self, name: str, reply: object) -> object:
        """Resolve a :class:`Script` to the reply for this call of ``name`` (other replies pass through)."""
        if not isinstance(reply, Script):
            return reply
        index = self._cursor.get(name, 0)
        self._cursor[name] = index + 1
        return reply.replies[min(index, len(reply.replies) - 1)]

    def callback(
        self,
        name: str,
        reply: object = True,
        *,
        flavour: Flavour = "sync",
        declares_cancelled: bool = True,
    ) -> Callable[..., Any]:
        """A recording callback (confirm, url_policy, before_action, approve_safety_checks, observers...).

        It records its positional arguments under ``name`` and answers ``reply`` (see the module docstring).
        ``flavour`` picks ``def`` or ``async def``; ``declares_cancelled`` adds the keyword-only parameter.
        """
        return _make_function(self, name, lambda: reply, flavour, declares_cancelled)


def _resolve_sync(log: ProbeLog, name: str, reply: object, args: tuple[object, ...]) -> object:
    reply = log.next_reply(name, reply)
    if isinstance(reply, Act):
        reply = reply.function(args[0] if args else None)
    if isinstance(reply, BaseException):
        raise reply
    if isinstance(reply, Shared):
        return reply.value
    return copy.deepcopy(reply) if not inspect.isawaitable(reply) else reply


async def _resolve_async(log: ProbeLog, name: str, reply: object, args: tuple[object, ...]) -> object:
    reply = log.next_reply(name, reply)
    if isinstance(reply, Act):
        reply = reply.function(args[0] if args else None)
        if inspect.isawaitable(reply):
            reply = await reply
    if isinstance(reply, BaseException):
        raise reply
    if isinstance(reply, Shared):
        return reply.value
    return copy.deepcopy(reply)


# Concrete return annotation for sync probe functions: any non-awaitable text marks the flavour as known-sync.
ProbeReply: TypeAlias = object


def _make_function(
    log: ProbeLog,
    name: str,
    reply_of: Callable[[], object],
    flavour: Flavour,
    declares_cancelled: bool,
) -> Callable[..., Any]:
    """Build a recording ``def``/``async def`` taking any positional arguments."""
    # The Node SDK's calls reach Python as plain calls (conformance.node.sdk.broker), so a "node" probe is a sync one.
    if flavour != "async":
        if declares_cancelled:

            def sync_cancellable(*args: object, cancelled: object = _NOT_PASSED) -> ProbeReply:
                log.record(name, args, cancelled)
                return _resolve_sync(log, name, reply_of(), args)

            function: Callable[..., Any] = sync_cancellable
        else:

            def sync_plain(*args: object) -> ProbeReply:
                log.record(name, args, _NOT_PASSED)
                return _resolve_sync(log, name, reply_of(), args)

            function = sync_plain
    else:
        if declares_cancelled:

            async def async_cancellable(*args: object, cancelled: object = _NOT_PASSED) -> object:
                log.record(name, args, cancelled)
                return await _resolve_async(log, name, reply_of(), args)

            function = async_cancellable
        else:

            async def async_plain(*args: object) -> object:
                log.record(name, args, _NOT_PASSED)
                return await _resolve_async(log, name, reply_of(), args)

            function = async_plain
    function.__name__ = name
    function.__qualname__ = f"probe.{name}"
    return function


def _constant(reply: object) -> Callable[[], object]:
    """Bind ``reply`` now (a loop variable captured by a lambda would be read late)."""
    return lambda: reply


def default_browser_reply(member: str) -> object:
    """A valid result for ``member`` according to the documents (spec/000 member tables)."""
    if member in ("screenshot", "zoom"):
        return {"type": "input_image", "image_url": PIXEL_DATA_URL}
    if member == "read_page_scoped":
        return {"version": 1, "text": "", "elements": [], "omitted": [], "scopes": []}
    if member == "read_diagnostics":
        return {"version": 1, "text": "", "elements": [], "omitted": []}
    if member in ("read_page", "get_page_text", "find"):
        return f"{member} text"
    if member == "run_script":
        return ""
    if member in ("upload_file", "download_file"):
        return {"version": 1, "status": "completed", "effect": "completed", "cleanup": "completed"}
    return None


class _ProbeBase:
    _flavour: Flavour
    state: Callable[..., Any]

    def __init__(
        self,
        members: Iterable[str] | None = None,
        *,
        replies: Mapping[str, object] | None = None,
        state: object = DEFAULT_STATE,
        log: ProbeLog | None = None,
        declares_cancelled: bool = True,
        has_state: bool = True,
    ) -> None:
        chosen = tuple(DRIVER_METHOD_NAMES if members is None else members)
        unknown = sorted(set(chosen) - set(ALL_NAMES))
        if unknown:
            raise ValueError(f"probe members must be documented browser members, got {unknown}")
        unused = sorted(set(replies or {}) - set(chosen) - {"state"})
        if unused:
            raise ValueError(f"replies given for members the probe does not implement: {unused}")
        self.log = log if log is not None else ProbeLog()
        self.members = chosen
        replies = dict(replies or {})
        if has_state:
            state_reply = replies.pop("state", state)
            self.state = _make_function(self.log, "state", _constant(state_reply), self._flavour, declares_cancelled)
        for member in chosen:
            reply = replies.get(member, default_browser_reply(member))
            method = _make_function(self.log, member, _constant(reply), self._flavour, declares_cancelled)
            setattr(self, member, method)

    def close(self) -> None:
        """Recorded so a check can prove the SDK never closes a caller-owned driver."""
        self.log.record("driver.close", (), _NOT_PASSED)


class ProbeBrowser(_ProbeBase):
    """A synchronous recording browser driver implementing ``members`` (default: every driver method).

    ``replies`` maps a member name (or ``"state"``) to its reply; unlisted members return a valid default
    (:func:`default_browser_reply`). ``state`` is the reply of ``state()`` unless ``replies["state"]`` is set.
    ``declares_cancelled=False`` builds one-argument methods without the ``cancelled`` keyword.
    ``has_state=False`` leaves ``state`` unimplemented.
    """

    _flavour: Flavour = "sync"


class AsyncProbeBrowser(_ProbeBase):
    """The ``async def`` twin of :class:`ProbeBrowser`, for ``AsyncBrowserToolset``."""

    _flavour: Flavour = "async"


def browser_probe(flavour: Flavour, members: Iterable[str] | None = None, **options: Any) -> _ProbeBase:
    """A :class:`ProbeBrowser` or :class:`AsyncProbeBrowser` (same options) for parametrizing over flavour."""
    kind = AsyncProbeBrowser if flavour == "async" else ProbeBrowser
    return kind(members, **options)


def default_computer_screenshot() -> dict[str, object]:
    return {"type": "computer_screenshot", "image_url": PIXEL_DATA_URL}


class _ComputerProbeBase:
    _flavour: Flavour

    def __init__(
        self,
        *,
        replies: Mapping[str, object] | None = None,
        log: ProbeLog | None = None,
        declares_cancelled: bool = True,
        methods: Iterable[str] = COMPUTER_METHODS,
    ) -> None:
        chosen = tuple(methods)
        unknown = sorted(set(chosen) - set(COMPUTER_METHODS))
        if unknown:
            raise ValueError(f"probe methods must be documented computer methods, got {unknown}")
        self.log = log if log is not None else ProbeLog()
        replies = dict(replies or {})
        for method_name in chosen:
            default: object = default_computer_screenshot() if method_name == "screenshot" else None
            reply = replies.get(method_name, default)
            method = _make_function(self.log, method_name, _constant(reply), self._flavour, declares_cancelled)
            setattr(self, method_name, method)

    def close(self) -> None:
        """Recorded so a check can prove the SDK never closes a caller-owned driver."""
        self.log.record("driver.close", (), _NOT_PASSED)


class ProbeComputer(_ComputerProbeBase):
    """A synchronous recording computer driver: the nine documented methods (or ``methods``).

    Action methods record a deep copy of the action object and return ``replies.get(name)`` (None by default);
    ``screenshot()`` returns a valid ``computer_screenshot`` unless ``replies["screenshot"]`` says otherwise.
    """

    _flavour: Flavour = "sync"


class AsyncProbeComputer(_ComputerProbeBase):
    """The ``async def`` twin of :class:`ProbeComputer`, for ``AsyncComputerToolset``."""

    _flavour: Flavour = "async"


def computer_probe(flavour: Flavour, **options: Any) -> _ComputerProbeBase:
    """A :class:`ProbeComputer` or :class:`AsyncProbeComputer` (same options), to parametrize over flavour."""
    kind = AsyncProbeComputer if flavour == "async" else ProbeComputer
    return kind(**options)


__all__ = [
    "DEFAULT_STATE",
    "PIXEL_DATA_URL",
    "Act",
    "AsyncProbeBrowser",
    "AsyncProbeComputer",
    "Flavour",
    "ProbeBrowser",
    "ProbeCall",
    "ProbeComputer",
    "ProbeLog",
    "Script",
    "Shared",
    "browser_probe",
    "computer_probe",
    "default_browser_reply",
    "default_computer_screenshot",
]
