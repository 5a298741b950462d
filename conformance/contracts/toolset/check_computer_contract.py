"""The computer helper's side of the computer driver contract: its exports, flavour detection through wrappers,
no local file reads, and the computer-only Responses loop.

spec/002 "Computer driver contract". The flavour rules and these exports are the Python SDK's (a --node-sdk run
reports them not implemented); no local file reads and the computer-only loop are checked on the Node SDK too, on
its ComputerToolset (``execute``, and ``run`` on a Node client).
"""

from __future__ import annotations

import asyncio
import base64
import functools
import inspect
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from openai.lib.computer import AsyncComputerToolset, ComputerToolset

from conformance import cassettes, rig
from conformance import python_only_reasons as python_only
from conformance.assertions import expect
from conformance.contracts.toolset._toolsets import computer_call, execute
from conformance.fake_responses import CassetteTransport, fake_async_client, fake_client
from conformance.members import COMPUTER_METHODS
from conformance.probes import default_computer_screenshot
from conformance.rig.decisions import flavours

PYTHON = ["sync", "async"]
# The SDK under check's flavours: Python's two, or the Node SDK's one (--sdk=node).
SDK = list(flavours())
CLICK = {"type": "click", "x": 10, "y": 20, "button": "left"}


@pytest.mark.python_sdk_only(python_only.PACKAGE_EXPORTS)
@pytest.mark.clause("TS-COMP-010")
@pytest.mark.parametrize("flavour", PYTHON)
def test_computer_names_are_exported_from_openai(flavour: str) -> None:
    import openai

    prefix = "" if flavour == "sync" else "Async"
    names = (f"{prefix}ComputerDriver", f"{prefix}ComputerToolset")
    missing = [name for name in names if not hasattr(openai, name)]
    expect(missing == [], "TS-COMP-010", f"openai does not export {missing}")
    helper = ComputerToolset if flavour == "sync" else AsyncComputerToolset
    expect(getattr(openai, names[1], None) is helper, "TS-COMP-010", f"openai.{names[1]} is not the helper's")


# ------------------------------------------------------------------------------------------ flavour through wrappers


class _Recording:
    """A driver of the nine methods whose actions record their names; ``wrap`` turns each method into what the
    check hands the toolset (a decorated or opaque wrapper)."""

    def __init__(self, kind: str, wrap: Callable[[Callable[..., Any]], Callable[..., Any]]) -> None:
        self.actions: list[str] = []
        for name in COMPUTER_METHODS:
            setattr(self, name, wrap(self._method(kind, name)))

    def _method(self, kind: str, name: str) -> Callable[..., Any]:
        # Annotated so a sync method is known to be sync (an unannotated plain function is opaque by nature).
        def plain(*args: Any, **kwargs: Any) -> dict[str, object] | None:
            if name == "screenshot":
                return default_computer_screenshot()
            self.actions.append(name)
            return None

        async def coroutine(*args: Any, **kwargs: Any) -> dict[str, object] | None:
            return plain(*args, **kwargs)

        # A Node toolset calls Python methods across the bridge, where each answers through a promise already.
        chosen = coroutine if kind == "async" else plain
        chosen.__name__ = name
        return chosen


def _decorated(method: Callable[..., Any]) -> Callable[..., Any]:
    # A logging decorator that keeps the wrapped method's metadata (functools.wraps).
    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return method(*args, **kwargs)

    return wrapper


def _opaque(method: Callable[..., Any]) -> Callable[..., Any]:
    # Neither metadata nor annotation: only calling it tells what it returns.
    return lambda *args, **kwargs: method(*args, **kwargs)


def _toolset(flavour: str, driver: Any) -> Any:
    if flavour == "node":
        return rig.computer_toolset("node", driver)
    return ComputerToolset(driver) if flavour == "sync" else AsyncComputerToolset(driver)


def _annotated(method: Callable[..., Any]) -> Callable[..., Any]:
    # No wraps, but a return annotation saying which flavour the wrapper is.
    if inspect.iscoroutinefunction(method):

        def awaitable(*args: Any, **kwargs: Any) -> Awaitable[dict[str, object] | None]:
            result: Awaitable[dict[str, object] | None] = method(*args, **kwargs)
            return result

        return awaitable

    def plain(*args: Any, **kwargs: Any) -> dict[str, object] | None:
        result: dict[str, object] | None = method(*args, **kwargs)
        return result

    return plain


@pytest.mark.python_sdk_only(python_only.FLAVOUR_RULES)
@pytest.mark.clause("TS-COMP-011")
@pytest.mark.parametrize("wrap", [_decorated, _annotated], ids=["wraps", "annotation"])
@pytest.mark.parametrize("flavour", PYTHON)
def test_wrapped_mismatch_is_refused_at_construction(flavour: str, wrap: Any) -> None:
    # Methods of the other flavour, behind a wrapper that keeps its flavour knowable.
    driver = _Recording("async" if flavour == "sync" else "sync", wrap)
    refused: list[BaseException] = []
    try:
        _toolset(flavour, driver)
    except (TypeError, ValueError) as error:
        refused.append(error)
    expect(len(refused) == 1, "TS-COMP-011", f"a {flavour} toolset accepted mismatched methods behind {wrap.__name__}")
    expect(driver.actions == [], "TS-COMP-011", f"construction ran actions: {driver.actions}")


@pytest.mark.python_sdk_only(python_only.FLAVOUR_RULES)
@pytest.mark.clause("TS-COMP-011")
@pytest.mark.parametrize("flavour", PYTHON)
def test_wrapped_matching_methods_are_accepted(flavour: str) -> None:
    driver = _Recording(flavour, _decorated)
    output = execute(_toolset(flavour, driver), computer_call([CLICK]))
    expect(driver.actions == ["click"], "TS-COMP-011", f"actions: {driver.actions}")
    expect(output.get("call_id") is not None, "TS-COMP-011", f"output: {output}")


@pytest.mark.python_sdk_only(python_only.FLAVOUR_RULES)
@pytest.mark.clause("TS-COMP-012")
@pytest.mark.parametrize("flavour", PYTHON)
def test_opaque_wrapper_of_the_other_flavour_fails_when_called(flavour: str) -> None:
    # Nothing to detect before the call: an opaque async wrapper in the sync toolset returns an awaitable, an
    # opaque sync one in the async toolset a plain value.
    driver: Any = _Recording("async" if flavour == "sync" else "sync", _opaque)
    failed: list[BaseException] = []
    output: Any = None
    try:
        output = execute(_toolset(flavour, driver), computer_call([CLICK, {"type": "wait"}]))
    except Exception as error:
        failed.append(error)
    expect(len(failed) == 1, "TS-COMP-012", f"the other flavour's result was accepted: {output!r}")
    # Whether the wrapper's own code ran or not, nothing after the mismatched call may run.
    expect("wait" not in driver.actions, "TS-COMP-012", f"later actions ran: {driver.actions}")


# ------------------------------------------------------------------------------------------ no local file reads

CANARY = b"local-file-canary-93c4"


@pytest.mark.clause("TS-COMP-013")
@pytest.mark.parametrize("form", ["path", "file-url"])
@pytest.mark.parametrize("flavour", SDK)
def test_screenshot_naming_a_local_file_is_not_read(flavour: str, form: str, tmp_path: Path) -> None:
    image = tmp_path / "screen.png"
    image.write_bytes(CANARY)
    source = str(image) if form == "path" else image.as_uri()

    def recorded(method: Callable[..., Any]) -> Callable[..., Any]:
        if method.__name__ != "screenshot":
            return method
        if flavour != "async":
            return lambda *args, **kwargs: {"type": "computer_screenshot", "image_url": source}

        async def screenshot(*args: Any, **kwargs: Any) -> Any:
            return {"type": "computer_screenshot", "image_url": source}

        return screenshot

    driver = _Recording(flavour, recorded)
    output: Any = None
    try:
        output = execute(_toolset(flavour, driver), computer_call([CLICK]))
    except Exception:
        output = None  # refusing the source is fine; reading it is not
    shown = repr(output)
    encoded = base64.b64encode(CANARY).decode()
    expect(
        CANARY.decode() not in shown and encoded not in shown,
        "TS-COMP-013",
        f"the local file's contents reached the output: {shown[:200]}",
    )


# ------------------------------------------------------------------------------------------ computer-only loop


@pytest.mark.clause("TS-COMP-014")
@pytest.mark.parametrize("flavour", SDK)
def test_computer_run_loops_until_the_model_finishes(flavour: str) -> None:
    driver = _Recording(flavour, lambda method: method)
    transport = CassetteTransport(cassettes.bundled("computer-only-loop"), match="endpoint")
    params: Any = {"model": "gpt-test", "input": "Reveal the pickup details.", "tools": [{"type": "computer"}]}
    if flavour == "node":
        response = _toolset(flavour, driver).run(rig.cassette_client(transport, "node"), params)
    elif flavour == "sync":
        response = ComputerToolset(driver).run(fake_client(transport), params)  # type: ignore[arg-type]
    else:
        toolset = AsyncComputerToolset(driver)  # type: ignore[arg-type]
        response = asyncio.run(toolset.run(fake_async_client(transport), params))
    expect(getattr(response, "output_text", None) == "Done.", "TS-COMP-014", f"final response: {response!r}")
    expect(driver.actions == ["click", "type"], "TS-COMP-014", f"actions: {driver.actions}")
    bodies: list[dict[str, Any]] = [dict(request.body or {}) for request in transport.sent]
    expect(len(bodies) == 3, "TS-COMP-014", f"{len(bodies)} requests, expected 3")
    answered = [
        [item.get("call_id") for item in body.get("input", []) if item.get("type") == "computer_call_output"]
        for body in bodies
    ]
    expect(answered == [[], ["c1"], ["c1", "c2"]], "TS-COMP-014", f"computer outputs sent per request: {answered}")
