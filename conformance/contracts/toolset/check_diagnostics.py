"""Diagnostic events (spec/000 "Streaming and interrupted actions", spec/002 "Inspect usage and timing")."""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai.lib.browser import BrowserError

from conformance.assertions import expect
from conformance.contracts.toolset._toolsets import (
    browser_toolset,
    computer_call,
    execute,
    function_call,
    payload,
)
from conformance.flavours import Flavour
from conformance.probes import browser_probe, computer_probe
from conformance.rig import computer_toolset

FIELDS = {"api", "stage", "reason", "duration_ms", "call_id", "member", "usage"}
SECRET_URL = "https://secret.example/account?token=SECRET-URL"
SECRET_TEXT = "SECRET-PAGE-TEXT"
SECRET_ERROR = "SECRET-EXCEPTION"
SECRET_ARGUMENT = "SECRET-ARGUMENT"
SECRETS = (SECRET_URL, "secret.example", SECRET_TEXT, SECRET_ERROR, SECRET_ARGUMENT, "iVBORw0KGgo")

SCENARIOS: dict[str, tuple[str, Any, object, object]] = {
    # name: (member, arguments, driver reply, confirm reply)
    "read": ("get_page_text", {"tab_id": None}, SECRET_TEXT, True),
    "action": ("type", {"text": SECRET_ARGUMENT, "target": "ref-1", "tab_id": None}, None, True),
    "navigate": ("navigate", {"url": SECRET_URL, "tab_id": None}, None, True),
    "screenshot": ("screenshot", {"tab_id": None}, None, True),
    "refused": ("type", {"text": SECRET_ARGUMENT, "target": "ref-1", "tab_id": None}, None, False),
    "invalid": ("type", {"text": SECRET_ARGUMENT, "target": 5, "tab_id": None}, None, True),
    "driver-failure": (
        "type",
        {"text": SECRET_ARGUMENT, "target": "ref-1", "tab_id": None},
        ValueError(SECRET_ERROR),
        True,
    ),
    "browser-error": ("click", {"target": "ref-1", "tab_id": None}, BrowserError(SECRET_ERROR), True),
}


def _scenario(flavour: Flavour, name: str, observer: Any) -> tuple[Any, Any]:
    member, arguments, reply, approve = SCENARIOS[name]
    replies = {member: reply} if reply is not None else {}
    state = {"tabs": [{"id": "tab-1", "title": SECRET_TEXT, "url": SECRET_URL, "active": True}]}
    driver = browser_probe(flavour, [member], replies=replies, state=state)
    confirm = driver.log.callback("confirm", approve, flavour=flavour)
    policy = driver.log.callback("url_policy", True, flavour=flavour)
    toolset = browser_toolset(flavour, driver, members=[member], confirm=confirm, url_policy=policy)
    output = execute(toolset, function_call(member, arguments, call_id="call-d"), on_diagnostic=observer)
    return output, driver


@pytest.mark.clause("TS-DIAG-001")
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_browser_events_carry_only_documented_fields(flavour: Flavour, scenario: str) -> None:
    events: list[Any] = []
    _scenario(flavour, scenario, events.append)
    expect(events, "TS-DIAG-001", f"no diagnostic event for the {scenario} call")
    for event in events:
        expect(
            isinstance(event, dict) and set(event) == FIELDS,
            "TS-DIAG-001",
            f"event fields are {sorted(event) if isinstance(event, dict) else type(event)}",
        )
        expect(event["api"] == "browser" and event["call_id"] == "call-d", "TS-DIAG-001", f"event {event}")
        expect(event["usage"] is None, "TS-DIAG-001", "a toolset event carries usage")
        duration = event["duration_ms"]
        expect(
            isinstance(duration, int | float) and not isinstance(duration, bool) and duration >= 0,
            "TS-DIAG-001",
            f"duration_ms is {duration!r}",
        )
        expect(
            event["member"] in (SCENARIOS[scenario][0], None),
            "TS-DIAG-001",
            f"member is {event['member']!r} for a {SCENARIOS[scenario][0]} call",
        )
        expect(
            all(isinstance(event[key], str) for key in ("stage", "reason")),
            "TS-DIAG-001",
            f"stage/reason are not strings: {event}",
        )
        text = json.dumps(event, default=str)
        leaked = [secret for secret in SECRETS if secret in text]
        expect(not leaked, "TS-DIAG-001", f"event leaks {leaked}: {text}")


@pytest.mark.clause("TS-DIAG-001")
def test_computer_events_carry_only_documented_fields(flavour: Flavour) -> None:
    events: list[Any] = []
    driver = computer_probe(flavour)
    toolset = computer_toolset(flavour, driver)
    execute(
        toolset,
        computer_call([{"type": "type", "text": SECRET_ARGUMENT}, {"type": "wait"}]),
        on_diagnostic=events.append,
    )
    expect(events, "TS-DIAG-001", "no diagnostic event for a computer call")
    for event in events:
        expect(
            isinstance(event, dict) and set(event) == FIELDS and event["api"] == "computer",
            "TS-DIAG-001",
            f"computer event {event}",
        )
        text = json.dumps(event, default=str)
        expect(SECRET_ARGUMENT not in text and "iVBORw0KGgo" not in text, "TS-DIAG-001", f"event leaks: {text}")


@pytest.mark.clause("TS-DIAG-002")
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_raising_observer_changes_nothing(flavour: Flavour, scenario: str) -> None:
    def explode(event: Any) -> None:
        raise RuntimeError("observer failed")

    quiet_output, quiet_driver = _scenario(flavour, scenario, None)
    loud_output, loud_driver = _scenario(flavour, scenario, explode)
    expect(
        payload(loud_output) == payload(quiet_output) and loud_output == quiet_output,
        "TS-DIAG-002",
        "a raising observer changed the result",
    )
    expect(
        loud_driver.log.names() == quiet_driver.log.names(),
        "TS-DIAG-002",
        f"a raising observer changed the calls: {loud_driver.log.names()} vs {quiet_driver.log.names()}",
    )


@pytest.mark.clause("TS-DIAG-002")
def test_raising_observer_changes_no_computer_result(flavour: Flavour) -> None:
    def explode(event: Any) -> None:
        raise RuntimeError("observer failed")

    outputs = []
    logs = []
    for observer in (None, explode):
        driver = computer_probe(flavour)
        toolset = computer_toolset(flavour, driver)
        outputs.append(execute(toolset, computer_call([{"type": "wait"}]), on_diagnostic=observer))
        logs.append(driver.log.names())
    expect(outputs[0] == outputs[1] and logs[0] == logs[1], "TS-DIAG-002", "a raising observer changed a computer call")
