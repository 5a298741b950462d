"""One implementation of each driver member, run by a synchronous or an asynchronous runner.

A member is written once as a generator ("flow") that yields the Playwright operations it needs and receives
their results. Playwright's sync and async APIs have the same method names, so the only difference between a
sync driver and its async twin is how an operation is performed: called directly, or called and awaited. That
difference lives here and nowhere else; the reference browser driver and the Fieldwork drivers both use it.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from playwright.sync_api import Error as PlaywrightError

T = TypeVar("T")


@dataclass(frozen=True)
class Call:
    """Call ``target.method(*args, **kwargs)``; the flow receives the (awaited) result."""

    target: Any
    method: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Pause:
    """Sleep without blocking the Playwright event loop (the page keeps running and events keep arriving)."""

    seconds: float
    page: Any = None


Op = Call | Pause
Flow = Generator[Op, Any, T]


def call(target: Any, method: str, *args: Any, **kwargs: Any) -> Call:
    return Call(target, method, args, kwargs)


class _Stepper:
    """Feeds a flow the outcome of its last operation and hands out its next one; the one place a flow is
    advanced, so the two runners below differ only in how they perform an operation."""

    def __init__(self, flow: Flow[Any]) -> None:
        self._flow = flow
        self._result: Any = None
        self._error: BaseException | None = None
        self.value: Any = None

    def next(self) -> Op | None:
        """The next operation, or None once the flow has returned (its value is then in :attr:`value`)."""
        result, error = self._result, self._error
        self._result, self._error = None, None
        try:
            return self._flow.throw(error) if error is not None else self._flow.send(result)
        except StopIteration as stop:
            self.value = stop.value
            return None

    def succeeded(self, result: Any) -> None:
        self._result = result

    def failed(self, error: BaseException) -> None:
        self._error = error


def run_sync(flow: Flow[T]) -> T:
    """Drive a flow with Playwright's synchronous API."""
    stepper = _Stepper(flow)
    while (op := stepper.next()) is not None:
        try:
            if isinstance(op, Pause):
                _pause_sync(op)
            else:
                stepper.succeeded(getattr(op.target, op.method)(*op.args, **op.kwargs))
        except Exception as raised:
            stepper.failed(raised)
    return stepper.value  # type: ignore[no-any-return]


def _pause_sync(pause: Pause) -> None:
    # The sync API only dispatches page events (dialogs, routes) while it is inside a call.
    if pause.page is None or pause.page.is_closed():
        time.sleep(pause.seconds)
        return
    try:
        pause.page.wait_for_timeout(pause.seconds * 1000)
    except PlaywrightError:
        # The page closed during the pause (a dialog storm's tab being retired, say): the pause has let its
        # events through, which is all it was for.
        if not pause.page.is_closed():
            raise


async def run_async(flow: Flow[T]) -> T:
    """Drive a flow with Playwright's asynchronous API."""
    stepper = _Stepper(flow)
    while (op := stepper.next()) is not None:
        try:
            if isinstance(op, Pause):
                await asyncio.sleep(op.seconds)
            else:
                result = getattr(op.target, op.method)(*op.args, **op.kwargs)
                stepper.succeeded(await result if inspect.isawaitable(result) else result)
        except Exception as raised:
            stepper.failed(raised)
    return stepper.value  # type: ignore[no-any-return]


def sync_handler(make: Callable[[Any], Flow[None]]) -> Callable[[Any], None]:
    """A one-argument Playwright event handler that runs a flow with the sync runner.

    Exactly one parameter on purpose: Playwright inspects a route handler's signature and passes
    `(route, request)` to anything that accepts two or more arguments.
    """

    def handler(event: Any) -> None:
        run_sync(make(event))

    return handler


def async_handler(make: Callable[[Any], Flow[None]]) -> Callable[[Any], Any]:
    """A one-argument Playwright event handler that runs a flow with the async runner (see sync_handler)."""

    async def handler(event: Any) -> None:
        await run_async(make(event))

    return handler
