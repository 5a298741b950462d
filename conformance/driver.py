"""Turning a ``--driver`` factory into a driver, and describing the driver the kit got.

A factory is called with the check's :class:`~conformance.environment.Environment` and may return the driver
itself, a context manager, an async context manager, a generator or async generator that yields it, or an
awaitable of any of these. :func:`open_driver` accepts every form and returns a cleanup that undoes exactly what
was entered. Flavour (sync or async) is read from the driver's methods, the way the SDK tells them apart.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from conformance.members import DRIVER_METHOD_NAMES

Flavour = Literal["sync", "async"]
T = TypeVar("T")


class DriverSetupError(RuntimeError):
    """The factory could not produce a usable driver; the message names what went wrong."""


class HarnessLoop:
    """One event loop for the whole session, so async drivers can keep a browser across checks."""

    def __init__(self) -> None:
        self._runner = asyncio.Runner()

    def resolve(self, value: object) -> Any:
        """``value`` itself, or its result when it is awaitable (run to completion on the harness loop)."""
        if inspect.isawaitable(value):
            return self._runner.run(_as_coroutine(value))
        return value

    def sleep(self, seconds: float) -> None:
        """Sleep while letting the loop run its callbacks (an async driver's dialog handlers, for instance).

        A sync Playwright driver keeps its own event loop marked as running in this thread, and the harness
        loop cannot run inside it; such a driver needs no turning from here, so a plain sleep serves it.
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            self._runner.run(asyncio.sleep(seconds))
        else:
            time.sleep(seconds)

    def close(self) -> None:
        self._runner.close()


async def _as_coroutine(awaitable: Awaitable[T]) -> T:
    return await awaitable


Cleanup = Callable[[], None]


def open_driver(factory: Callable[[Any], object], env: object, loop: HarnessLoop) -> tuple[object, Cleanup]:
    """Call ``factory(env)`` and unwrap what it returns into ``(driver, cleanup)``."""
    try:
        produced = loop.resolve(factory(env))
    except Exception as error:
        raise DriverSetupError(f"the driver factory raised {type(error).__name__}: {error}") from error
    return _unwrap(produced, loop)


def _unwrap(produced: object, loop: HarnessLoop) -> tuple[object, Cleanup]:
    if inspect.isgenerator(produced):
        generator = produced
        driver = _first_yield(lambda: next(generator))
        return driver, lambda: _finish_generator(lambda: next(generator), generator.close)
    if inspect.isasyncgen(produced):
        agen = produced
        driver = _first_yield(lambda: loop.resolve(agen.__anext__()))
        return driver, lambda: _finish_generator(lambda: loop.resolve(agen.__anext__()), lambda: None)
    if hasattr(produced, "__aenter__") and hasattr(produced, "__aexit__"):
        manager: Any = produced
        driver = loop.resolve(manager.__aenter__())
        return driver, lambda: loop.resolve(manager.__aexit__(None, None, None))
    if hasattr(produced, "__enter__") and hasattr(produced, "__exit__"):
        sync_manager: Any = produced
        driver = sync_manager.__enter__()
        return driver, lambda: sync_manager.__exit__(None, None, None)
    return produced, lambda: None


def _first_yield(advance: Callable[[], object]) -> object:
    try:
        return advance()
    except (StopIteration, StopAsyncIteration):
        raise DriverSetupError("the driver factory's generator finished without yielding a driver") from None


def _finish_generator(advance: Callable[[], object], close: Callable[[], object]) -> None:
    try:
        advance()
    except (StopIteration, StopAsyncIteration):
        return
    close()
    raise DriverSetupError("the driver factory's generator yielded more than once")


def method_flavour(method: object) -> Flavour | None:
    """``async`` for coroutine functions (or awaitable return annotations), ``sync`` for other annotated or
    plain functions, ``None`` when nothing can be told (an opaque wrapper)."""
    target = inspect.unwrap(method) if callable(method) else method
    if inspect.iscoroutinefunction(target):
        return "async"
    if not callable(target):
        return None
    try:
        annotation = inspect.signature(target).return_annotation
    except (TypeError, ValueError):
        return None
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", repr(annotation))
    if annotation is inspect.Signature.empty:
        return "sync" if inspect.isfunction(target) or inspect.ismethod(target) else None
    if any(marker in str(text) for marker in ("Awaitable", "Coroutine", "Future")):
        return "async"
    return "sync"


@dataclass(frozen=True)
class DriverProfile:
    """What the kit found on the driver: its flavour and which members it implements."""

    flavour: Flavour
    implemented: tuple[str, ...]

    @classmethod
    def of(cls, driver: object) -> DriverProfile:
        state = getattr(driver, "state", None)
        if not callable(state):
            raise DriverSetupError(
                f"the driver ({type(driver).__name__}) has no callable state(); every browser driver must report state"
            )
        implemented = tuple(name for name in DRIVER_METHOD_NAMES if callable(getattr(driver, name, None)))
        found = (method_flavour(getattr(driver, name)) for name in ("state", *implemented))
        flavours: set[Flavour] = {kind for kind in found if kind is not None}
        if len(flavours) > 1:
            raise DriverSetupError(
                "the driver mixes sync and async methods; a driver is used with either BrowserToolset or "
                "AsyncBrowserToolset, so all its methods must share one flavour"
            )
        return cls(flavour=flavours.pop() if flavours else "sync", implemented=implemented)

    def to_json(self) -> dict[str, object]:
        return {"flavour": self.flavour, "implemented": list(self.implemented)}
