"""A file transfer that did not complete, and a protected read after a failure, in the runner's browser dispatch.

spec/000 "Opt in to diagnostics, scripts, and file transfers" and "Confirmation, navigation, and recovery";
spec/002 "Opt in to diagnostics, scripts, and file transfers".

The scenarios are built here with the cassette builder (every function call passes its own call ID where the
driver can see it, so the timeline shows which call reached the driver). The browser toolset records each
``confirm`` on the timeline as ``confirm:<member>:<call_id>``.

The runs have no ledger: a ledger run stops at a failed browser result for reconciliation (spec/002 "Stream and
resume"), so the rest of the response is never reached there.
"""

from __future__ import annotations

from typing import Any

import pytest
from openai.lib.browser import BrowserError

from conformance.assertions import expect
from conformance.cassette_builder import CassetteBuilder, function_call, message
from conformance.cassettes import Cassette
from conformance.contracts.runner._scenario import CapturedRun, Mode, ScenarioRun, Setup, modes
from conformance.probes import DEFAULT_TAB_URL

# Each documented outcome other than completed (status, effect), with cleanup completed.
UNFINISHED_OUTCOMES = [
    pytest.param("refused", "none", id="refused"),
    pytest.param("unknown", "unknown", id="unknown"),
    pytest.param("interrupted", "none", id="interrupted-none"),
    pytest.param("interrupted", "unknown", id="interrupted-unknown"),
]


def _page_text(call_id: str) -> dict[str, object]:
    return function_call("browser_get_page_text", {"tab_id": None}, call_id=call_id)


def _click(call_id: str) -> dict[str, object]:
    return function_call("browser_click", {"target": call_id, "tab_id": None}, call_id=call_id)


def _lookup(call_id: str) -> dict[str, object]:
    return function_call("lookup", {"reference": call_id}, call_id=call_id)


def _upload(call_id: str) -> dict[str, object]:
    return function_call("browser_upload_file", {"grant_id": "grant-kit-1"}, call_id=call_id)


def _cassette(name: str, *turns: tuple[dict[str, object], ...]) -> Cassette:
    builder = CassetteBuilder(name)
    for items in turns:
        builder.turn(*items)
    return builder.turn(message("Done.")).build()


class _RecordingConsentRun(ScenarioRun):
    """The scenario run whose browser toolset enables the setup's members (also explicit-only ones), protects the
    reads in ``confirm_reads``, and records every confirm on the timeline; ``refuse`` names members it refuses."""

    def __init__(
        self, cassette: Cassette, setup: Setup, mode: Mode, *, confirm_reads: tuple[str, ...] = (), refuse: str = ""
    ) -> None:
        super().__init__(cassette, setup, mode)
        self.confirm_reads = confirm_reads
        self.refuse = refuse

    def browser_options(self) -> dict[str, Any]:
        def confirm(context: Any) -> bool:
            self.timeline.add(f"confirm:{context['member']}:{context['call_id']}")
            return bool(context["member"] != self.refuse)

        options: dict[str, Any] = {"members": list(self.setup.browser or ()), "confirm": confirm}
        if self.confirm_reads:
            options["confirm_reads"] = list(self.confirm_reads)
        return options


def _outputs(outcome: CapturedRun, request: int) -> dict[str, Any]:
    return {
        item["call_id"]: item.get("output")
        for item in outcome.input_of(request)
        if item.get("type") == "function_call_output"
    }


def _effects(outcome: CapturedRun) -> list[str]:
    return [entry for entry in outcome.timeline.entries if entry.startswith("call:")]


@pytest.mark.clause("RN-BROWSER-004")
@pytest.mark.parametrize("status,effect", UNFINISHED_OUTCOMES)
@pytest.mark.parametrize("mode", modes(ledger=False))
def test_unfinished_file_outcome_skips_rest_of_response(status: str, effect: str, mode: Mode) -> None:
    outcome_reply = {"version": 1, "status": status, "effect": effect, "cleanup": "completed"}
    setup = Setup(browser=("upload_file", "get_page_text"), browser_replies={"upload_file": outcome_reply})
    cassette = _cassette("file-outcome-skips", (_upload("c1"), _page_text("c2"), _lookup("c3")), (_page_text("c4"),))
    outcome = _RecordingConsentRun(cassette, setup, mode).run().finished("RN-BROWSER-004")
    effects = _effects(outcome)
    expect(
        effects[:2] == ["call:browser_upload_file:", "call:lookup:c3"],
        "RN-BROWSER-004",
        f"after a {status}/{effect} file outcome the later browser read of that response still reached the driver "
        f"(effects of the first response: {effects})",
    )
    expect(
        list(_outputs(outcome, 1)) == ["c1", "c2", "c3"],
        "RN-BROWSER-004",
        f"every call of the response needs an output: {list(_outputs(outcome, 1))}",
    )
    expect(
        effects[2:] == ["call:browser_get_page_text:"],
        "RN-BROWSER-004",
        f"the next response's browser read must run again: {effects}",
    )


@pytest.mark.clause("RN-BROWSER-004")
@pytest.mark.parametrize("mode", modes(ledger=False))
def test_completed_file_outcome_lets_rest_of_response_run(mode: Mode) -> None:
    # The control: a completed transfer is no failure, so the read after it runs in the same response.
    setup = Setup(browser=("upload_file", "get_page_text"))
    cassette = _cassette("file-outcome-completed", (_upload("c1"), _page_text("c2"), _lookup("c3")))
    outcome = _RecordingConsentRun(cassette, setup, mode).run().finished("RN-BROWSER-004")
    effects = _effects(outcome)
    expect(
        effects == ["call:browser_upload_file:", "call:browser_get_page_text:", "call:lookup:c3"],
        "RN-BROWSER-004",
        f"a completed transfer skipped later browser calls: {effects}",
    )


@pytest.mark.clause("RN-BROWSER-005")
@pytest.mark.parametrize("mode", modes(ledger=False))
def test_protected_read_skipped_after_failure_gets_the_refusal(mode: Mode) -> None:
    members = ("click", "get_page_text")
    failing = Setup(browser=members, browser_replies={"click": BrowserError("The element is gone.")})
    skipped = _RecordingConsentRun(
        _cassette("protected-read-skipped", (_click("c1"), _page_text("c2"))),
        failing,
        mode,
        confirm_reads=("get_page_text",),
    ).run()
    refused = _RecordingConsentRun(
        _cassette("protected-read-refused", (_page_text("c2"),)),
        Setup(browser=members),
        mode,
        confirm_reads=("get_page_text",),
        refuse="get_page_text",
    ).run()
    for outcome in (skipped, refused):
        outcome.finished("RN-BROWSER-005")
    expect(
        refused.timeline.has("confirm:get_page_text:c2") and _effects(refused) == [],
        "RN-BROWSER-005",
        f"the refused protected read (the reference) did not ask confirm or reached the driver: "
        f"{refused.timeline.entries}",
    )
    expect(
        not skipped.timeline.has("confirm:get_page_text:c2"),
        "RN-BROWSER-005",
        f"a protected read skipped after an earlier failure asked confirm: {skipped.timeline.entries}",
    )
    expect(
        _effects(skipped) == ["call:browser_click:c1"],
        "RN-BROWSER-005",
        f"a protected read skipped after an earlier failure reached the driver: {_effects(skipped)}",
    )
    skipped_output = _outputs(skipped, 1).get("c2")
    refused_output = _outputs(refused, 1).get("c2")
    expect(
        skipped_output == refused_output,
        "RN-BROWSER-005",
        f"the skipped protected read's output {skipped_output!r} differs from a refused read's {refused_output!r}",
    )
    expect(
        DEFAULT_TAB_URL not in str(skipped_output),
        "RN-BROWSER-005",
        f"the skipped protected read's output carries browser state: {skipped_output!r}",
    )
