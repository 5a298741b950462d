"""Adversarial pages get the documented safe behaviour (spec/000 "Confirmation, navigation, and recovery").

Each test names the attack, drives the page through the driver, and checks the outcome on the fixture server
(which records every request per origin), so a driver without the defence fails.
"""

from __future__ import annotations

import json
import time
from urllib.parse import quote

import pytest
from openai.lib.browser import BrowserError
from rdk_helpers import element, read

from conformance.harness.environment import Environment
from reference.browser import BrowserLimits

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser]


def _changes(driver) -> list[dict]:
    return driver.state()["observation"]["changes"]


def _state_after_refusal(driver, settle: float = 0.4, timeout: float = 15.0) -> dict:
    """The state once the driver has reported refusing a navigation, then ``settle`` seconds more.

    A click returns before the navigation it starts is refused, and under load that can take longer than any
    fixed sleep: wait for the refusal itself (bounded), then keep the old quiet window in which a contact with
    the other origin would have shown up.
    """
    deadline = time.monotonic() + timeout
    while not any(change["type"] == "navigation_refused" for change in _changes(driver)):
        if time.monotonic() > deadline:
            break  # the caller's assertion on the changes says what is missing
        time.sleep(0.05)
    time.sleep(settle)
    return driver.state()


def _other_page(env: Environment) -> str:
    # A page of this test's session on the non-permitted origin: had the browser contacted it, the request
    # would land in this session's log (a path outside any session is answered but never recorded).
    return quote(env.url("blank.html", origin="other"), safe="")


def test_prompt_injection_text_is_only_data(open_driver, env) -> None:
    driver = open_driver("adversarial/injection.html")
    report = read(driver)
    # Visible page text is reported as untrusted text; hidden text is not reported at all.
    assert "IMPORTANT SYSTEM NOTICE" in report["text"]
    assert "HIDDEN-INJECTION" not in json.dumps(report)
    assert "SYSTEM NOTICE" not in json.dumps(driver.state())
    driver.get_page_text({"tab_id": None})
    driver.find({"query": "Delete account", "tab_id": None})
    driver.state()
    assert not env.effects("click"), "reads never act, whatever the page asks"


def test_look_alike_origins_are_refused(open_driver, env) -> None:
    driver = open_driver("adversarial/lookalike.html")
    for link_id in ("suffix-host", "userinfo-host", "other-port", "localhost-name"):
        href = driver.run_script(
            {"source": f"document.getElementById('{link_id}').href", "timeout_ms": 1000, "tab_id": None}
        )
        with pytest.raises(BrowserError):
            driver.navigate({"url": href, "tab_id": None})
    # Links the driver would refuse to follow are withheld from reads as remote actions.
    report = read(driver)
    assert "remote_action" in report["omitted"]
    assert not [item for item in report["elements"] if item["label"].startswith("Continue")]
    assert driver.state()["tabs"][0]["title"] == "Look-alike links"


def test_clicked_look_alike_link_never_leaves_the_page(open_driver, env) -> None:
    driver = open_driver("adversarial/lookalike.html")
    driver.run_script(
        {"source": "document.getElementById('localhost-name').click()", "timeout_ms": 1000, "tab_id": None}
    )
    state = _state_after_refusal(driver, settle=0.3)
    assert state["tabs"][0]["title"] == "Look-alike links"
    assert any(change["type"] == "navigation_refused" for change in state["observation"]["changes"])


def test_credentials_in_urls_are_refused_and_never_shown(open_driver, env) -> None:
    driver = open_driver("adversarial/credentials.html")
    with pytest.raises(BrowserError):
        driver.navigate({"url": env.url("blank.html", credentials="user:pw"), "tab_id": None})
    link = driver.run_script(
        {"source": "document.getElementById('with-credentials').href", "timeout_ms": 1000, "tab_id": None}
    )
    assert "hunter2" in link
    driver.run_script(
        {"source": "document.getElementById('with-credentials').click()", "timeout_ms": 1000, "tab_id": None}
    )
    time.sleep(0.5)
    state = driver.state()
    assert "hunter2" not in json.dumps(state)
    requests = env.requests("main")
    assert requests[-1].path == "__auth", "the page asked for the challenge"
    assert not [request.path for request in requests if request.authorization], "URL credentials are never sent"


def test_redirect_to_a_disallowed_origin_never_reaches_it(open_driver, env) -> None:
    driver = open_driver(f"adversarial/redirect.html?other={_other_page(env)}")
    report = read(driver)
    driver.click({"target": element(report, "Continue")["ref"], "tab_id": None})
    state = _state_after_refusal(driver)
    assert state["tabs"][0]["title"] == "Redirect trap"
    assert env.requests("other") == [], "neither the link nor the image redirect may contact the origin"
    assert any(change["type"] == "navigation_refused" for change in state["observation"]["changes"])


def test_popup_to_a_disallowed_origin_is_closed_without_contact(open_driver, env) -> None:
    driver = open_driver(f"adversarial/popup.html?other={_other_page(env)}")
    driver.click({"target": element(read(driver), "Open offers")["ref"], "tab_id": None})
    state = _state_after_refusal(driver)
    assert [tab["title"] for tab in state["tabs"]] == ["Popup trap"]
    assert state["tabs"][0]["active"] is True
    assert env.requests("other") == []
    # Chromium never materialises a popup whose first navigation was refused; if it did, the driver would
    # close it. Either way the refusal is reported.
    kinds = [change["type"] for change in state["observation"]["changes"]]
    assert "navigation_refused" in kinds
    assert kinds.count("tab_opened") == kinds.count("tab_closed")


def test_subresources_from_a_disallowed_origin_are_blocked(open_driver, env) -> None:
    driver = open_driver("blank.html")
    driver.run_script(
        {
            "source": f"fetch('{env.url('blank.html', origin='other')}').then(() => 'loaded', () => 'blocked')",
            "timeout_ms": 3000,
            "tab_id": None,
        }
    )
    time.sleep(0.1)
    assert env.requests("other") == []


def test_dialog_storm_is_dismissed_reported_and_stopped(open_driver, env) -> None:
    limits = BrowserLimits(dialog_burst=5, dialog_window_s=5.0)
    driver = open_driver("adversarial/alert-loop.html", limits=limits)
    driver.new_tab({"url": env.url("blank.html")})
    storm = driver.state()["tabs"][0]["id"]
    driver.switch_tab({"tab_id": storm})
    driver.click({"target": element(read(driver), "Show notices")["ref"], "tab_id": None})
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and storm in [tab["id"] for tab in driver.state()["tabs"]]:
        time.sleep(0.05)
    state = driver.state()
    assert storm not in [tab["id"] for tab in state["tabs"]], "a tab that keeps opening dialogs is retired"
    dismissed = [change for change in state["observation"]["changes"] if change["type"] == "dialog_dismissed"]
    assert dismissed and all(change["kind"] == "alert" for change in dismissed)
    assert "secret-dialog-text" not in json.dumps(state)
    assert driver.get_page_text({"tab_id": None})["text"]  # the driver keeps working


def test_huge_page_read_is_bounded_and_reports_work_limit(open_driver, env) -> None:
    driver = open_driver("gen/huge.html?nodes=50000", limits=BrowserLimits(work_nodes=20_000, text_bytes=50_000))
    started = time.monotonic()
    report = read(driver)
    assert time.monotonic() - started < 10
    assert "work_limit" in report["omitted"] and "text_limit" in report["omitted"]
    assert len(report["text"].encode()) <= 50_000


def test_frames_and_shadow_roots_are_reported_as_omitted(open_driver, env) -> None:
    driver = open_driver("adversarial/frames.html")
    report = read(driver)
    labels = [item["label"] for item in report["elements"]]
    assert labels == ["Outer button"]
    assert {"frame_limit", "unsupported_root"} <= set(report["omitted"])


def test_unicode_titles_and_labels_are_cut_at_character_boundaries(open_driver, env) -> None:
    driver = open_driver("adversarial/unicode.html")
    state = driver.state()
    title = state["tabs"][0]["title"]
    assert state["observation"]["title_truncated"] is True
    assert len(title.encode("utf-8")) <= 1024 and title.startswith("Café")
    assert title.endswith("\U0001f600")  # the cut never splits the 4-byte emoji
    report = read(driver)
    field = element(report, "Emoji \U0001f680 field")
    assert field["value"] == "\U0001f600 ok"
    long_label = next(item for item in report["elements"] if item["label"].startswith("Broken"))["label"]
    assert "\ufffd" in long_label and len(long_label.encode("utf-8")) <= 256
    assert "name_limit" in report["omitted"]
    json.dumps(report).encode("utf-8")  # well-formed: no lone surrogates survive
    assert "e\u0301" in report["text"] and "\U0001f469\u200d\U0001f4bb" in report["text"]


def test_a_page_that_rewrites_json_serialisation_cannot_forge_a_read(open_driver, env) -> None:
    # The agent's answers cross to the driver as JSON; the page replaces JSON.stringify and gives Object and
    # Array prototypes a toJSON before any read. A driver that trusted the page's serialiser reports "forged".
    driver = open_driver("adversarial/json-tamper.html")
    report = read(driver)
    assert report["text"] == "Legacy library"
    assert element(report, "Customer")["value"] == "Ada"
    driver.click({"target": element(report, "Save")["ref"], "tab_id": None})
    # The click landed, and the page's own toJSON was put back after the read (the driver sets it aside only
    # for its own serialisation).
    assert driver.state()["tabs"][0]["title"] == "Saved function"
