"""The computer helper checks of conformance/contracts/toolset/check_computer_contract.py can fail: each test patches
one misbehaviour into the installed SDK and requires the check to fail on exactly its clause; the unpatched SDK
passes the same case first (see tests/test_sdk_findings.py).
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import openai
import openai.lib.computer as computer_module
import pytest

from conformance.assertions import ClauseViolation
from conformance.contracts.toolset import check_computer_contract as contract


def _fails_on(clause: str, check: Callable[[], None]) -> None:
    with pytest.raises(ClauseViolation) as caught:
        check()
    assert caught.value.clause_id == clause, f"failed on {caught.value.clause_id}, expected {clause}: {caught.value}"


def _proven(clause: str, check: Callable[[], None], patch: Callable[[], None]) -> None:
    check()
    patch()
    _fails_on(clause, check)


def test_missing_export_fails_ts_comp_010(monkeypatch: pytest.MonkeyPatch) -> None:
    def drop() -> None:
        # The package resolves these names lazily from a list and caches them in its globals.
        exports = tuple(name for name in openai._COMPUTER_EXPORTS if name != "AsyncComputerDriver")
        monkeypatch.setattr(openai, "_COMPUTER_EXPORTS", exports)
        monkeypatch.delattr(openai, "AsyncComputerDriver", raising=False)

    _proven("TS-COMP-010", lambda: contract.test_computer_names_are_exported_from_openai("async"), drop)


def test_wrappers_not_unwrapped_fail_ts_comp_011(monkeypatch: pytest.MonkeyPatch) -> None:
    original = computer_module.callable_flavor  # type: ignore[attr-defined]

    def surface_only(method: Any) -> Any:
        # Judged by the wrapper alone: a functools.wraps wrapper looks opaque.
        return None if hasattr(method, "__wrapped__") else original(method)

    _proven(
        "TS-COMP-011",
        lambda: contract.test_wrapped_mismatch_is_refused_at_construction("sync", contract._decorated),
        lambda: monkeypatch.setattr(computer_module, "callable_flavor", surface_only),
    )


def test_awaitable_resolved_quietly_fails_ts_comp_012(monkeypatch: pytest.MonkeyPatch) -> None:
    original = computer_module.invoke  # type: ignore[attr-defined]

    def resolving(handler: Any, *args: Any, **kwargs: Any) -> Any:
        # The sync toolset runs an opaque async method to completion instead of refusing its awaitable.
        result = original(handler, *args, **kwargs)
        return asyncio.run(result) if asyncio.iscoroutine(result) else result

    _proven(
        "TS-COMP-012",
        lambda: contract.test_opaque_wrapper_of_the_other_flavour_fails_when_called("sync"),
        lambda: monkeypatch.setattr(computer_module, "invoke", resolving),
    )


def test_local_screenshot_inlined_fails_ts_comp_013(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    original = computer_module._output

    def inlined(call: Any, screenshot: Any) -> Any:
        source = screenshot.get("image_url") if isinstance(screenshot, dict) else None
        if isinstance(source, str) and (source.startswith("/") or source.startswith("file:")):
            path = Path(unquote(urlparse(source).path) if source.startswith("file:") else source)
            data = base64.b64encode(path.read_bytes()).decode()
            screenshot = {**screenshot, "image_url": f"data:image/png;base64,{data}"}
        return original(call, screenshot)

    _proven(
        "TS-COMP-013",
        lambda: contract.test_screenshot_naming_a_local_file_is_not_read("sync", "path", tmp_path),
        lambda: monkeypatch.setattr(computer_module, "_output", inlined),
    )


def test_single_request_run_fails_ts_comp_014(monkeypatch: pytest.MonkeyPatch) -> None:
    def one_request(toolset: Any, client: Any, params: Any, **kwargs: Any) -> Any:
        return client.responses.create(**params)

    _proven(
        "TS-COMP-014",
        lambda: contract.test_computer_run_loops_until_the_model_finishes("sync"),
        lambda: monkeypatch.setattr(computer_module.ComputerToolset, "run", one_request),
    )
