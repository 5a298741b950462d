"""Each example, rehearsed from its cassette with a real browser and real pages, judged by independent records."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Callable

import openai
import pytest

from conformance.fake_responses import CassetteTransport
from reference.examples import exec_js, exec_py, fieldwork, mixed, reader, review
from reference.examples._support import REHEARSAL_MODEL, ExampleResult, rehearsal_async_client, rehearsal_client

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.desktop]


def approve_all(description: str) -> bool:
    return True


def refuse_all(description: str) -> bool:
    return False


def rehearse(
    name: str, run: Callable[[openai.OpenAI, str, Callable[[str], bool]], ExampleResult], approve: Callable[[str], bool]
) -> tuple[ExampleResult, CassetteTransport]:
    """Run a synchronous example against its rehearsal cassette; its outcome and the transport that answered it."""
    client, transport = rehearsal_client(name)
    with client:
        return run(client, REHEARSAL_MODEL, approve), transport


def outputs_sent(transport: object, request_index: int) -> dict[str, str]:
    """call_id -> serialized output of every function_call_output in one request the client sent."""
    body = transport.sent[request_index].body  # type: ignore[attr-defined]
    return {
        item["call_id"]: json.dumps(item["output"])
        for item in body["input"]
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    }


def test_reader_reads_without_acting() -> None:
    client, transport = rehearsal_async_client("reader")
    outcome = asyncio.run(reader.run(client, REHEARSAL_MODEL))
    assert outcome.verified, outcome.evidence
    assert transport.exhausted and transport.divergence is None
    # Only the one read was offered to the model.
    assert [tool["name"] for tool in transport.sent[0].body["tools"]] == ["browser_get_page_text"]  # type: ignore[index]
    assert "BP-1207" in outputs_sent(transport, 1)["read-1"]


def test_fieldwork_saves_the_requested_reservation() -> None:
    outcome, transport = rehearse("fieldwork", fieldwork.run, approve_all)
    assert outcome.verified, outcome.evidence
    assert transport.exhausted and transport.divergence is None
    # Every state change was approved one by one; reads never asked.
    assert len(outcome.approvals) == 7
    assert all(entry.startswith("approved ") for entry in outcome.approvals)
    assert not any(" read_page " in entry or " get_page_text " in entry for entry in outcome.approvals)
    assert "Reservation confirmed" in outputs_sent(transport, 4)["read-2"]


def test_fieldwork_refused_actions_save_nothing() -> None:
    outcome, _ = rehearse("fieldwork", fieldwork.run, refuse_all)
    assert not outcome.verified
    assert "no saved reservation" in outcome.evidence
    assert all(entry.startswith("refused ") for entry in outcome.approvals)


def test_review_is_verified_by_a_fresh_read_and_recorded_once() -> None:
    client, transport = rehearsal_async_client("review")
    outcome = asyncio.run(review.run(client, REHEARSAL_MODEL, approve_all))
    assert outcome.verified, outcome.evidence
    assert outcome.answer == "status=verified, completed=['review']"
    assert transport.exhausted


def test_review_without_approval_records_nothing() -> None:
    client, _ = rehearsal_async_client("review")
    outcome = asyncio.run(review.run(client, REHEARSAL_MODEL, refuse_all))
    assert not outcome.verified
    assert outcome.approvals == ["refused mark_reviewed"]
    assert "0 review_saved" in outcome.evidence


def test_mixed_uses_both_functions_and_books_through_the_form() -> None:
    outcome, transport = rehearse("mixed", mixed.run, approve_all)
    assert outcome.verified, outcome.evidence
    assert transport.exhausted and transport.divergence is None
    sent = outputs_sent(transport, 1)
    assert "Katherine Johnson" in sent["lookup-1"]
    assert "19:30 is the earliest slot" in sent["slots-1"]
    names = {tool["name"] for tool in transport.sent[0].body["tools"]}  # type: ignore[index]
    assert {"lookup_member", "CheckAvailability", "browser_click"} <= names


def test_pydantic_tool_rejects_malformed_arguments_before_its_executor() -> None:
    tool = mixed.AVAILABILITY_TOOL.tool
    assert tool["name"] == "CheckAvailability" and tool.get("strict") is True
    assert mixed.check_availability(mixed.CheckAvailability(date="2026-12-31", party_size=8, after="19:00")).startswith(
        "No slot"
    )


@pytest.mark.skipif(shutil.which("Xvfb") is None or shutil.which("openbox") is None, reason="needs Xvfb and openbox")
def test_exec_py_clicks_the_centre_of_a_real_desktop() -> None:
    outcome, transport = rehearse("exec-py", exec_py.run, approve_all)
    assert outcome.verified, outcome.evidence
    assert transport.exhausted
    first = outputs_sent(transport, 1)["exec-1"]
    assert "input_image" in first and '"detail": "original"' in first
    assert "clicked the centre" in outputs_sent(transport, 2)["exec-2"]


def test_exec_py_declined_scripts_never_run() -> None:
    outcome, transport = rehearse("exec-py", exec_py.run, refuse_all)
    assert not outcome.verified
    assert "did not approve" in outputs_sent(transport, 1)["exec-1"]


def test_exec_js_books_through_the_javascript_runtime() -> None:
    outcome, transport = rehearse("exec-js", exec_js.run, approve_all)
    assert outcome.verified, outcome.evidence
    assert transport.exhausted and transport.divergence is None
    first = outputs_sent(transport, 1)["exec-1"]
    # The first call's text names the page at the runtime's viewport; its screenshot is an original-detail image.
    assert "Fieldwork reservations at 1440x900" in first
    assert "input_image" in first and '"detail": "original"' in first
    # The second call used the fields the first one kept in globalThis.
    assert "Ada Lovelace, 3 guests, on 2026-12-10 at 18:30." in outputs_sent(transport, 2)["exec-2"]


def test_exec_js_declined_scripts_never_run() -> None:
    outcome, transport = rehearse("exec-js", exec_js.run, refuse_all)
    assert not outcome.verified
    assert "no saved reservation" in outcome.evidence
    assert "did not approve" in outputs_sent(transport, 1)["exec-1"]


@pytest.mark.parametrize("module", [reader, fieldwork, review, mixed, exec_py, exec_js])
def test_live_mode_without_credentials_is_a_clear_configuration_error(
    module: object, capsys: pytest.CaptureFixture[str]
) -> None:
    assert module.main(["--live"]) == 2  # type: ignore[attr-defined]
    assert "OPENAI_API_KEY" in capsys.readouterr().err
