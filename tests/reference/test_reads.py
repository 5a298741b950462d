"""Reads report the seven roles with privacy rules, and never act on the page."""

from __future__ import annotations

import json
import time

import pytest
from rdk_helpers import element, read

from conformance.members import OMISSION_CODES, READ_ROLES

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser]


def test_forms_page_reports_roles_values_and_options(open_driver, env) -> None:
    report = read(open_driver("forms.html"))
    assert {item["role"] for item in report["elements"]} <= set(READ_ROLES)
    assert element(report, "Recipient name") == {
        "ref": element(report, "Recipient name")["ref"],
        "role": "textbox",
        "label": "Recipient name",
        "value": "Ada Lovelace",
    }
    city = element(report, "Delivery city")
    assert city["role"] == "combobox" and city["value"] == "par"
    assert [option["value"] for option in city["options"]] == ["lon", "par", "ber"]
    slots = element(report, "Delivery slots")
    assert slots["role"] == "listbox"
    assert [option["selected"] for option in slots["options"]] == [True, False, True]
    assert element(report, "Express shipping")["checked"] is True
    assert element(report, "Courier tip")["role"] == "slider"
    # Hidden controls and their values are not reported.
    assert "GHOST-COUPON" not in json.dumps(report) and "Invisible reset" not in json.dumps(report)
    assert len({item["ref"] for item in report["elements"]}) == len(report["elements"])
    assert set(report["omitted"]) <= set(OMISSION_CODES)


def test_password_and_one_time_code_values_are_never_reported(open_driver, env) -> None:
    driver = open_driver("private.html")
    reports = [read(driver), read(driver, "interactive"), driver.find({"query": "code", "tab_id": None})]
    for report in reports:
        dumped = json.dumps(report)
        assert "pw-Zebra-7731" not in dumped and "481913" not in dumped
    assert "value" not in element(reports[0], "Password") and "value" not in element(reports[0], "One-time code")
    assert "private" in reports[0]["omitted"]
    assert element(reports[0], "Username")["value"] == "ada"


def test_get_page_text_has_no_elements_and_find_filters(open_driver, env) -> None:
    driver = open_driver("forms.html")
    text = driver.get_page_text({"tab_id": None})
    assert text["elements"] == [] and "Tell us how parcels should reach you." in text["text"]
    found = driver.find({"query": "gift", "tab_id": None})
    assert [item["label"] for item in found["elements"]] == ["Gift wrap"]
    interactive = read(driver, "interactive")
    assert interactive["text"] == "" and interactive["elements"]


def test_reads_cause_no_page_effects(open_driver, env) -> None:
    driver = open_driver("forms.html")
    env.wait_for_effect("load")  # the page's own load record, which may arrive late under load
    time.sleep(0.2)
    before = len(env.effects())
    read(driver)
    driver.get_page_text({"tab_id": None})
    driver.find({"query": "Save", "tab_id": None})
    driver.screenshot({"tab_id": None})
    driver.wait_for({"text": "Delivery preferences", "timeout_ms": 1000, "tab_id": None})
    driver.state()
    assert [effect["kind"] for effect in env.effects()[before:]] == []


def test_scoped_reads_discover_sections_and_bound_depth(open_driver, env) -> None:
    driver = open_driver("sections.html")
    sections = driver.read_page_scoped({"root": None, "depth": 1, "filter": "all", "tab_id": None})
    labels = [scope["label"] for scope in sections["scopes"]]
    assert "Itinerary" in labels and "Payment" in labels
    itinerary = next(scope["ref"] for scope in sections["scopes"] if scope["label"] == "Itinerary")
    shallow = driver.read_page_scoped({"root": itinerary, "depth": 2, "filter": "all", "tab_id": None})
    deep = driver.read_page_scoped({"root": itinerary, "depth": 32, "filter": "all", "tab_id": None})
    assert "raincoat" not in json.dumps(shallow) and "raincoat" in deep["text"]
    assert "target_limit" in shallow["omitted"]


def test_compact_reads_carry_the_same_refs_and_privacy(browser_process, env) -> None:
    from reference.browser import PlaywrightBrowserDriver

    with PlaywrightBrowserDriver.create(
        browser_process.browser,
        allowed_origins=[env.main_origin],
        start_url=env.url("private.html"),
        compact_reads=True,
    ) as driver:
        text = driver.read_page({"filter": "all", "tab_id": None})
        assert isinstance(text, str)
        assert "pw-Zebra-7731" not in text and "481913" not in text and "omitted: private" in text
        line = next(line for line in text.splitlines() if line.endswith('button "Sign in"'))
        ref = line[1 : line.index("]")]
        assert env.effects("click") == [], "reading must not click"
        driver.click({"target": ref, "tab_id": None})
        assert env.wait_for_effect("click")["target"] == "sign-in"
