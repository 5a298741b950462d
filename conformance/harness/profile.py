"""What the kit reads from a driver object: its flavour (sync or async) and which members take ``cancelled``.

One rule for both kinds of driver, read the way the SDK tells them apart: a driver's flavour comes from all its
methods (a driver mixing both is refused), and a method takes ``cancelled`` only when it names that keyword
parameter (the Python guide, 000, "Driver contract": the toolset passes ``cancelled`` only to a method that
declares it, so a bare ``**kwargs`` does not count).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from conformance.flavours import Flavour
from conformance.harness.errors import DriverSetupError, bounded
from conformance.members import DRIVER_METHOD_NAMES

ROUTE_NOT_REPORTED = "not reported (the driver factory did not call env.report_browser_route)"


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
    # What the driver runs on (its package, automation library, browser), see conformance.software.
    software: tuple[tuple[str, str], ...] = ()
    # How the driver reached its browser, as its factory reported it (Environment.report_browser_route).
    browser_route: str = ROUTE_NOT_REPORTED

    @classmethod
    def of(cls, driver: object) -> DriverProfile:
        state = getattr(driver, "state", None)
        if not callable(state):
            raise DriverSetupError(
                f"the driver ({type(driver).__name__}) has no callable state(); every browser driver must report state"
            )
        implemented = tuple(name for name in DRIVER_METHOD_NAMES if callable(getattr(driver, name, None)))
        return cls(flavour=flavour_of(driver, ("state", *implemented), "Browser"), implemented=implemented)

    def with_software(self, software: dict[str, str]) -> DriverProfile:
        return replace(self, software=tuple(software.items()))

    def with_browser_route(self, route: str | None) -> DriverProfile:
        return replace(self, browser_route=bounded(route) if route else ROUTE_NOT_REPORTED)

    def to_json(self) -> dict[str, object]:
        return {
            "flavour": self.flavour,
            "implemented": list(self.implemented),
            "software": dict(self.software),
            "browser route": self.browser_route,
        }


def flavour_of(driver: object, members: Iterable[str], toolset: str) -> Flavour:
    """The one flavour of ``driver``'s ``members`` (``sync`` when none can be told); a mix is a setup error.

    ``toolset`` names the SDK helper pair in the message (``Browser`` or ``Computer``).
    """
    found = (method_flavour(getattr(driver, name, None)) for name in members)
    flavours: set[Flavour] = {kind for kind in found if kind is not None}
    if len(flavours) > 1:
        raise DriverSetupError(
            f"the driver mixes sync and async methods; a driver is used with either {toolset}Toolset or "
            f"Async{toolset}Toolset, so all its methods must share one flavour"
        )
    return flavours.pop() if flavours else "sync"


def declares_cancelled(method: Callable[..., Any]) -> bool:
    """Whether a method names the ``cancelled`` keyword parameter (a bare ``**kwargs`` does not count)."""
    try:
        parameter = inspect.signature(method).parameters.get("cancelled")
    except (TypeError, ValueError):
        return False
    return parameter is not None and parameter.kind in (
        inspect.Parameter.KEYWORD_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
    )
