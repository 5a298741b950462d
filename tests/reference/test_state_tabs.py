"""State reports stable tabs, origin-only URLs and a bounded, gapless change history."""

from __future__ import annotations

import json

import pytest
from openai.lib.browser import BrowserError

from reference.browser import BrowserLimits

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser]


def _check_history(state: dict) -> None:
    observation = state["observation"]
    assert observation["sequence"] == observation["dropped_changes"] + len(observation["changes"])
    sequences = [change["sequence"] for change in observation["changes"]]
    assert sequences == list(range(observation["dropped_changes"] + 1, observation["sequence"] + 1))


def test_tabs_keep_ids_and_exactly_one_is_active(open_driver, env) -> None:
    driver = open_driver("tabs-a.html")
    first = driver.state()["tabs"][0]["id"]
    driver.new_tab({"url": env.url("tabs-b.html")})
    driver.new_tab({"url": None})
    state = driver.state()
    ids = [tab["id"] for tab in state["tabs"]]
    assert ids[0] == first and len(set(ids)) == 3
    assert [tab["active"] for tab in state["tabs"]] == [False, False, True]
    assert state["tabs"][2]["url"] == "about:blank"
    driver.switch_tab({"tab_id": first})
    driver.close_tab({"tab_id": ids[1]})
    state = driver.state()
    assert [tab["id"] for tab in state["tabs"]] == [first, ids[2]]
    assert [tab["active"] for tab in state["tabs"]] == [True, False]
    kinds = [change["type"] for change in state["observation"]["changes"]]
    assert kinds.count("tab_opened") == 2 and "tab_switched" in kinds and "tab_closed" in kinds
    _check_history(state)
    with pytest.raises(BrowserError):
        driver.switch_tab({"tab_id": "tab-999"})
    with pytest.raises(BrowserError):
        driver.read_page({"filter": "all", "tab_id": ids[1]})


def test_urls_are_origins_only_and_legacy_state_has_no_observation(open_driver, env) -> None:
    driver = open_driver("blank.html?token=SECRET-QUERY#frag", observation=False)
    state = driver.state()
    assert "observation" not in state
    assert state["tabs"][0]["url"] == env.main_origin
    assert "SECRET" not in json.dumps(state)


def test_history_is_bounded_and_keeps_counting(open_driver, env) -> None:
    driver = open_driver("blank.html", limits=BrowserLimits(history=3))
    for _ in range(5):
        driver.navigate({"url": env.url("empty.html"), "tab_id": None})
    state = driver.state()
    assert len(state["observation"]["changes"]) == 3 and state["observation"]["dropped_changes"] >= 2
    _check_history(state)


def test_navigate_rejects_unknown_tabs_and_refused_origins_without_moving(open_driver, env) -> None:
    driver = open_driver("tabs-a.html")
    with pytest.raises(BrowserError):
        driver.navigate({"url": env.url("blank.html", origin="other"), "tab_id": None})
    with pytest.raises(BrowserError):
        driver.new_tab({"url": env.url("blank.html", origin="other")})
    assert env.requests("other") == []
    state = driver.state()
    assert len(state["tabs"]) == 1
    assert [change["type"] for change in state["observation"]["changes"]] == ["navigation_refused"] * 2
