"""Recording what the SDK's toolset asks of a driver, shared by the browser and the computer subject.

A subject hands the toolset a transparent proxy of the driver whose methods log each call (its argument, whether
the SDK passed ``cancelled``, what came back or was raised) before returning exactly what the driver did. The
proxy keeps each method's signature (``functools.wraps``), so the SDK sees the driver's own flavour and
``cancelled`` keyword through it.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from conformance.flavours import Flavour
from conformance.harness.errors import DriverTimeout
from conformance.harness.loop import HarnessLoop


@dataclass
class CallRecord:
    """What the proxy saw of one driver method call."""

    member: str
    arguments: Any
    cancelled_passed: bool
    returned: Any = None
    raised: BaseException | None = None
    finished: bool = False
    # When the driver's method started and returned (time.monotonic), for checks about how long it took.
    started: float = field(default_factory=time.monotonic)
    ended: float | None = None

    @property
    def seconds(self) -> float | None:
        """How long the driver's method ran, or None while it has not returned."""
        return None if self.ended is None else self.ended - self.started


@dataclass
class RecordedCalls:
    """The driver calls one toolset execution made, and the member (or action) it was asked for."""

    member: str
    calls: list[CallRecord] = field(default_factory=list)

    @property
    def member_call(self) -> CallRecord | None:
        return next((call for call in self.calls if call.member == self.member), None)

    @property
    def raw(self) -> Any:
        """What the driver's method returned (None when it raised or was never called)."""
        call = self.member_call
        return call.returned if call else None


class RecordingProxy:
    """Exposes exactly the named members of a driver, appending a :class:`CallRecord` to ``log`` for each call."""

    def __init__(self, driver: object, members: Iterable[str], flavour: Flavour, log: list[CallRecord]) -> None:
        for name in members:
            setattr(self, name, _record(getattr(driver, name), name, flavour, log))


@contextmanager
def _recorded(log: list[CallRecord], name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Iterator[CallRecord]:
    record = CallRecord(name, args[0] if args else None, "cancelled" in kwargs)
    log.append(record)
    try:
        yield record
    except BaseException as error:
        record.raised = error
        raise
    finally:
        record.finished, record.ended = True, time.monotonic()


def _record(method: Callable[..., Any], name: str, flavour: Flavour, log: list[CallRecord]) -> Callable[..., Any]:
    if flavour == "async":

        @functools.wraps(method)
        async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
            with _recorded(log, name, args, kwargs) as record:
                record.returned = await method(*args, **kwargs)
            return record.returned

        return async_wrapper

    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with _recorded(log, name, args, kwargs) as record:
            record.returned = method(*args, **kwargs)
        return record.returned

    return wrapper


def on_driver(loop: HarnessLoop, flavour: Flavour, function: Callable[[], object], what: str) -> Any:
    """``function()`` where a driver of ``flavour`` runs (the loop or the worker thread), under the deadline."""
    if flavour == "async":
        return loop.run_async(function, what=what)
    return loop.run(function, what=what)


def naming_the_pending_call(timeout: DriverTimeout, calls: list[CallRecord], asked: str) -> DriverTimeout:
    """The timeout, renamed after the driver call that hung (state() around a member, say) if the log shows one."""
    pending = next((record for record in reversed(calls) if not record.finished), None)
    return DriverTimeout(pending.member if pending else asked, timeout.seconds)
