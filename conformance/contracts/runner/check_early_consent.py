"""A state-changing browser call that starts early still passes the toolset's URL policy and confirm first.

spec/000 "Choose which tools can run early" (the policy changes timing, not permission).

The browser toolset here records its confirm and url_policy answers on the run's timeline, so the check can see
that both came before the driver acted, and that the driver acted before the completed response (it really
ran early). The scenario's browser options carry the recording callbacks, so a Node run's BrowserToolset (its
``confirm`` and ``urlPolicy``) records them on the same timeline.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.assertions import expect
from conformance.contracts.runner._scenario import Mode, ScenarioRun, Setup, load, modes


class _ConsentRecordingRun(ScenarioRun):
    """The scenario run with a browser toolset whose confirm and url_policy put ``confirm`` and ``url_policy``
    entries on the timeline (and approve)."""

    def browser_options(self) -> dict[str, Any]:
        members = self.setup.browser or ()

        def confirm(context: Any) -> bool:
            self.timeline.add("confirm")
            return True

        def url_policy(context: Any, url: str) -> bool:
            self.timeline.add("url_policy")
            return True

        options: dict[str, Any] = {"members": list(members), "confirm": confirm}
        if "navigate" in members:
            options["url_policy"] = url_policy
        return options


@pytest.mark.clause("RN-EARLY-014")
@pytest.mark.parametrize(
    "cassette,member,gates",
    [("early-click", "click", ["confirm"]), ("early-navigate", "navigate", ["url_policy", "confirm"])],
    ids=["click", "navigate"],
)
@pytest.mark.parametrize("mode", modes(eager=True))
def test_early_browser_action_is_still_approved_first(cassette: str, member: str, gates: list[str], mode: Mode) -> None:
    setup = Setup(browser=(member,), functions=(), early_execution={"functions": [f"browser_{member}"]})
    harness = _ConsentRecordingRun(load(cassette), setup, mode)
    outcome = harness.run().finished("RN-EARLY-014")
    entries = outcome.timeline.entries
    acted = next((index for index, entry in enumerate(entries) if entry.startswith(f"call:browser_{member}")), None)
    expect(acted is not None, "RN-EARLY-014", f"the driver never acted: {entries}")
    assert acted is not None
    expect(
        acted < entries.index("event:response.completed"),
        "RN-EARLY-014",
        f"the {member} did not start early, so this run says nothing about early consent: {entries}",
    )
    for gate in gates:
        expect(
            gate in entries[:acted],
            "RN-EARLY-014",
            f"{gate} was not asked before the early {member} acted: {entries}",
        )
