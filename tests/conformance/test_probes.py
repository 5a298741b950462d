"""The recording probe drivers behave as documented in conformance/probes.py."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import pytest

from conformance.members import COMPUTER_METHODS, DRIVER_METHOD_NAMES
from conformance.probes import (
    DEFAULT_STATE,
    Act,
    AsyncProbeBrowser,
    AsyncProbeComputer,
    ProbeBrowser,
    ProbeComputer,
    ProbeLog,
    Script,
    browser_probe,
    computer_probe,
)


def test_browser_probe_implements_only_its_members() -> None:
    probe = ProbeBrowser(["get_page_text", "click"])
    assert callable(probe.state)
    assert callable(getattr(probe, "get_page_text", None))
    assert getattr(probe, "read_page", None) is None
    assert probe.members == ("get_page_text", "click")
    assert set(ProbeBrowser().members) == set(DRIVER_METHOD_NAMES)


def test_browser_probe_without_state() -> None:
    assert not hasattr(ProbeBrowser([], has_state=False), "state")


@pytest.mark.parametrize("bad", [["open_devtools"], ["browser_click"]])
def test_browser_probe_rejects_undocumented_members(bad: list[str]) -> None:
    with pytest.raises(ValueError, match="documented browser members"):
        ProbeBrowser(bad)


def test_replies_for_unimplemented_members_are_an_error() -> None:
    with pytest.raises(ValueError, match="does not implement"):
        ProbeBrowser(["get_page_text"], replies={"click": None})


def test_calls_are_recorded_in_order_with_copies() -> None:
    probe = ProbeBrowser(["click"])
    arguments: dict[str, Any] = {"target": "a", "tab_id": None}
    assert probe.state() == DEFAULT_STATE
    probe.click(arguments)
    arguments["target"] = "changed after the call"
    assert probe.log.names() == ["state", "click"]
    assert probe.log.of("click")[0].argument == {"target": "a", "tab_id": None}
    assert probe.log.count("state") == 1


def test_cancelled_is_recorded_only_when_passed() -> None:
    probe = ProbeBrowser(["click"])
    probe.click({}, cancelled=lambda: True)
    probe.click({})
    first, second = probe.log.calls
    assert first.cancelled_passed and first.cancelled is not None and first.cancelled() is True
    assert not second.cancelled_passed and second.cancelled is None


def test_plain_probe_declares_no_cancelled_parameter() -> None:
    probe = ProbeBrowser(["click"], declares_cancelled=False)
    assert "cancelled" not in inspect.signature(probe.click).parameters
    assert "cancelled" not in inspect.signature(probe.state).parameters
    with pytest.raises(TypeError):
        probe.click({}, cancelled=lambda: False)


def test_script_replies_in_order_then_repeats_the_last() -> None:
    probe = ProbeBrowser(["get_page_text"], replies={"get_page_text": Script("one", "two")})
    assert [probe.get_page_text({}) for _ in range(4)] == ["one", "two", "two", "two"]
    with pytest.raises(ValueError):
        Script()


def test_exception_replies_are_raised_and_recorded() -> None:
    probe = ProbeBrowser(["click"], replies={"click": Script(None, KeyError("gone"))})
    assert probe.click({}) is None
    with pytest.raises(KeyError):
        probe.click({})
    assert probe.log.count("click") == 2


def test_replies_are_copies_of_the_script() -> None:
    read = {"version": 1, "text": "t", "elements": [], "omitted": []}
    probe = ProbeBrowser(["read_page"], replies={"read_page": read})
    probe.read_page({})["text"] = "mutated by the caller"
    assert probe.read_page({})["text"] == "t"


def test_act_computes_the_reply_from_the_argument() -> None:
    probe = ProbeBrowser(["find"], replies={"find": Act(lambda arguments: f"found {arguments['query']}")})
    assert probe.find({"query": "hours"}) == "found hours"


def test_async_probe_methods_are_coroutines_and_await_acts() -> None:
    async def later(arguments: object) -> str:
        return "awaited"

    probe = AsyncProbeBrowser(["find"], replies={"find": Act(later), "state": {"tabs": []}})
    assert inspect.iscoroutinefunction(probe.find) and inspect.iscoroutinefunction(probe.state)
    assert asyncio.run(probe.find({})) == "awaited"
    assert asyncio.run(probe.state()) == {"tabs": []}
    assert probe.log.names() == ["find", "state"]


def test_sync_probe_methods_have_a_known_sync_flavour() -> None:
    # A concrete, non-awaitable return annotation is what lets the SDK see a sync method as sync.
    probe = ProbeBrowser(["click"])
    annotation = inspect.signature(probe.click).return_annotation
    assert not inspect.iscoroutinefunction(probe.click)
    assert annotation is not inspect.Signature.empty and str(annotation) not in ("Any", "object")


def test_log_callback_records_all_positional_arguments() -> None:
    log = ProbeLog()
    policy = log.callback("url_policy", reply=False)
    assert policy({"member": "navigate"}, "https://probe.example/") is False
    assert log.of("url_policy")[0].args == ({"member": "navigate"}, "https://probe.example/")
    async_confirm = log.callback("confirm", flavour="async", declares_cancelled=False)
    assert asyncio.run(async_confirm({})) is True
    assert not log.of("confirm")[0].cancelled_passed


def test_default_replies_are_documented_results() -> None:
    probe = ProbeBrowser(["screenshot", "upload_file", "run_script", "read_page_scoped"])
    assert probe.screenshot({})["type"] == "input_image"
    assert probe.upload_file({})["status"] == "completed"
    assert probe.run_script({}) == ""
    assert probe.read_page_scoped({})["scopes"] == []


def test_computer_probe_has_the_nine_methods() -> None:
    probe = ProbeComputer()
    assert all(callable(getattr(probe, name)) for name in COMPUTER_METHODS)
    assert probe.screenshot()["type"] == "computer_screenshot"
    probe.click({"type": "click"})
    assert probe.log.names() == ["screenshot", "click"]
    partial = ProbeComputer(methods=["screenshot"])
    assert getattr(partial, "click", None) is None
    with pytest.raises(ValueError):
        ProbeComputer(methods=["teleport"])


def test_probe_close_is_recorded() -> None:
    probe = ProbeComputer()
    probe.close()
    assert probe.log.names() == ["driver.close"]


def test_flavour_factories() -> None:
    assert isinstance(browser_probe("sync"), ProbeBrowser)
    assert isinstance(browser_probe("async", ["click"]), AsyncProbeBrowser)
    assert isinstance(computer_probe("sync"), ProbeComputer)
    assert isinstance(computer_probe("async"), AsyncProbeComputer)
    assert inspect.iscoroutinefunction(computer_probe("async").wait)
