"""The exploration model's judgements on state reports, without a driver: which clause each difference blames.

Exploration (conformance.explore) compares every state a driver reports with its model of the session; these
tests hand it states directly, so a wrong blame shows here in milliseconds rather than in a child certification.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import pytest

from conformance.assertions import ClauseViolation
from conformance.explore import render
from conformance.explore.model import Blame, SessionModel, expect_change, judge_tabs, title_of
from conformance.explore.session import ExploredSession
from conformance.explore.steps import CloseTab, NewTab, SwitchTab, judge_landing

ORIGIN = "http://127.0.0.1:8000"
BLAME = Blame("BR-TAB-006", "BR-NAV-003", "BR-NAV-002")


def tab(tab_id: str, page: str | None, active: bool = False, origin: str = ORIGIN) -> dict[str, Any]:
    if page is None:
        return {"id": tab_id, "title": "", "url": "about:blank", "active": active}
    return {"id": tab_id, "title": title_of(page), "url": f"{origin}/s/x/{page}", "active": active}


def two_tabs() -> SessionModel:
    """T1 on tabs-a.html, T2 on tabs-b.html (active)."""
    model = SessionModel.opened_on({"tabs": [tab("a", "tabs-a.html", True)]}, "tabs-a.html", ORIGIN)
    model.adopt("b", "tabs-b.html")
    model.active = "T2"
    return model


def blamed(action: Any) -> str:
    with pytest.raises(ClauseViolation) as caught:
        action()
    return caught.value.clause_id


def test_a_state_that_matches_the_model_passes() -> None:
    judge_tabs(two_tabs(), {"tabs": [tab("a", "tabs-a.html"), tab("b", "tabs-b.html", True)]}, "step", BLAME)


def test_each_difference_blames_its_clause() -> None:
    model = two_tabs()
    missing = {"tabs": [tab("a", "tabs-a.html", True)]}
    assert blamed(lambda: judge_tabs(model, missing, "step", BLAME)) == "BR-TAB-006"
    changed = {"tabs": [tab("a", "blank.html"), tab("b", "tabs-b.html", True)]}
    assert blamed(lambda: judge_tabs(model, changed, "step", BLAME)) == "BR-NAV-002"
    assert blamed(lambda: judge_tabs(model, changed, "step", BLAME, ["T1"])) == "BR-NAV-003"
    elsewhere = {"tabs": [tab("a", "tabs-a.html", origin="http://other:9"), tab("b", "tabs-b.html", True)]}
    assert blamed(lambda: judge_tabs(model, elsewhere, "step", BLAME)) == "BR-URL-002"


@dataclass
class _Session:
    tabs: SessionModel


@pytest.mark.parametrize(("named", "clause"), [(True, "BR-NAV-002"), (False, "BR-TAB-008")])
def test_a_page_that_loaded_in_another_tab_blames_the_tab_the_call_named(named: bool, clause: str) -> None:
    model = two_tabs()
    # T1 was asked for blank.html; T2 shows it instead.
    state = {"tabs": [tab("a", "tabs-a.html"), tab("b", "blank.html", True)]}
    session = cast(ExploredSession, _Session(model))
    assert blamed(lambda: judge_landing(session, state, model.tab("T1"), "blank.html", "step", named=named)) == clause
    # Shown nowhere: the page loaded (its own record says so), so state misreports the tab.
    nowhere = {"tabs": [tab("a", "tabs-a.html"), tab("b", "tabs-b.html", True)]}
    assert blamed(lambda: judge_landing(session, nowhere, model.tab("T1"), "blank.html", "step", named=named)) == (
        "BR-NAV-003"
    )


def test_a_change_must_be_listed_unless_the_history_dropped_changes() -> None:
    earlier = {"sequence": 2, "dropped_changes": 0, "changes": []}
    later = {"sequence": 3, "dropped_changes": 0, "changes": [{"type": "navigation", "tab_id": "b", "sequence": 3}]}
    assert blamed(lambda: expect_change(earlier, later, "navigation", "a", "BR-OBS-006", "step")) == "BR-OBS-006"
    expect_change(earlier, later, "navigation", "b", "BR-OBS-006", "step")
    forgotten = {"sequence": 70, "dropped_changes": 6, "changes": []}
    expect_change(earlier, forgotten, "navigation", "a", "BR-OBS-006", "step")


def test_the_reason_keeps_the_steps_and_the_seed_within_the_certificate_limit() -> None:
    steps = [NewTab("tabs-b.html", "T2"), SwitchTab("T1"), CloseTab("T2"), NewTab(None, "T3")]
    detail = "new_tab(url=null) -> T3 gave the new tab the ID 'tab-2', which T2 had " + "x" * 400
    line = render.reason(steps, detail, 4242)
    assert len(line) <= render.REASON_LIMIT, len(line)
    assert line.startswith("a sequence of 4 steps (shrunk): 1. new_tab(url=tabs-b.html) -> T2 2. switch_tab(tab_id=T1)")
    assert line.endswith(" -- replay with --explore-seed=4242"), line
    many = render.reason([SwitchTab("T1")] * 30, detail, 7)
    assert len(many) <= render.REASON_LIMIT and many.endswith("--explore-seed=7"), many
    assert "30 steps" in many and "30. switch_tab(tab_id=T1)" in many, many


def test_new_tabs_are_renamed_when_a_shorter_sequence_leaves_one_out() -> None:
    renamed = CloseTab("T3").renamed({"T3": "T2"}.__getitem__)
    assert renamed == CloseTab("T2")
    assert NewTab("tabs-a.html", "T3").renamed({"T3": "T2"}.__getitem__).words() == "new_tab(url=tabs-a.html) -> T2"
