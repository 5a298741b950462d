"""FieldworkDriver's own promises: only its form, only its origin, refs bound to one rendering, no focus-based input.

Each check reads the outcome from the form page's record (the fixture server's effect and request logs).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from openai.lib.browser import BrowserError

from reference.browser import SyncBrowserProcess
from reference.examples._support import PageSession, fixture_pages
from reference.fieldwork import FORM_PAGE, FieldworkDriver, context_options

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser]


@pytest.fixture
def pages() -> Iterator[PageSession]:
    with fixture_pages() as session:
        yield session


@pytest.fixture
def driver(browser_process: SyncBrowserProcess, pages: PageSession) -> Iterator[FieldworkDriver]:
    context = browser_process.browser.new_context(**context_options())
    try:
        yield FieldworkDriver.open(context.new_page(), pages.url(FORM_PAGE))
    finally:
        context.close()


def refs(driver: FieldworkDriver) -> dict[str, str]:
    report = driver.read_page({"filter": "all", "tab_id": None})
    return {element["label"]: element["ref"] for element in report["elements"]}


def test_reads_report_the_form_with_generation_bound_refs(driver: FieldworkDriver) -> None:
    report = driver.read_page({"filter": "all", "tab_id": None})
    roles = {element["label"]: element["role"] for element in report["elements"]}
    assert roles == {
        "Guest name": "textbox",
        "Date": "textbox",
        "Party size": "textbox",
        "Time slot": "combobox",
        "Notes for the team": "textbox",
        "Step-free access needed": "checkbox",
        "Confirm reservation": "button",
    }
    assert all(element["ref"].startswith("d1-g1-") for element in report["elements"])
    assert refs(driver) == {element["label"]: element["ref"] for element in report["elements"]}  # stable
    assert driver.get_page_text({"tab_id": None})["elements"] == []


def test_type_without_a_target_is_refused_and_types_nothing(driver: FieldworkDriver, pages: PageSession) -> None:
    with pytest.raises(BrowserError, match="target"):
        driver.type({"target": None, "text": "focus text", "tab_id": None})
    assert not hasattr(driver, "key")
    pages.settle()
    assert pages.effects("input") == []


def test_a_ref_from_an_earlier_rendering_is_refused(driver: FieldworkDriver, pages: PageSession) -> None:
    first = refs(driver)
    for label, text in (("Guest name", "Ada"), ("Date", "2026-12-24"), ("Party size", "2")):
        driver.type({"target": first[label], "text": text, "tab_id": None})
    driver.select_option({"target": first["Time slot"], "values": ["18:00"], "tab_id": None})
    driver.click({"target": first["Confirm reservation"], "tab_id": None})
    again = refs(driver)["Make another reservation"]
    driver.click({"target": again, "tab_id": None})
    # A new form of the same shape is showing; the old guest-name ref must not reach its twin.
    with pytest.raises(BrowserError, match="earlier rendering"):
        driver.type({"target": first["Guest name"], "text": "Intruder", "tab_id": None})
    pages.settle()
    assert not any(effect.get("value") == "Intruder" for effect in pages.effects("input"))
    assert refs(driver)["Guest name"].startswith("d1-g3-")


def test_a_ref_from_before_a_reload_is_refused(driver: FieldworkDriver) -> None:
    before = refs(driver)["Guest name"]
    driver.page.reload()
    with pytest.raises(BrowserError):
        driver.type({"target": before, "text": "x", "tab_id": None})
    assert refs(driver)["Guest name"].startswith("d2-")


def test_invented_and_mistyped_refs_are_refused(driver: FieldworkDriver) -> None:
    current = refs(driver)
    with pytest.raises(BrowserError, match="not issued"):
        driver.click({"target": "#confirm", "tab_id": None})
    with pytest.raises(BrowserError, match="does not support"):
        driver.type({"target": current["Confirm reservation"], "text": "x", "tab_id": None})
    with pytest.raises(BrowserError, match="YYYY-MM-DD"):
        driver.type({"target": current["Date"], "text": "next Friday", "tab_id": None})
    with pytest.raises(BrowserError, match="not offered"):
        driver.select_option({"target": current["Time slot"], "values": ["23:00"], "tab_id": None})
    with pytest.raises(BrowserError, match="Unknown tab"):
        driver.read_page({"filter": "all", "tab_id": "other"})


def test_it_refuses_to_work_off_its_form(driver: FieldworkDriver, pages: PageSession) -> None:
    driver.page.goto(pages.url("fieldwork/dispatch.html"))
    with pytest.raises(BrowserError, match="only on its own reservation form"):
        driver.read_page({"filter": "all", "tab_id": None})
    with pytest.raises(BrowserError, match="only on its own reservation form"):
        driver.click({"target": "d1-g1-confirm", "tab_id": None})
    pages.settle()
    assert pages.effects("dispatched") == [] and pages.effects("click") == []


def test_other_origins_are_blocked(driver: FieldworkDriver, pages: PageSession) -> None:
    other = pages.server.origin("other") + f"/s/{pages.token}/blank.html"
    driver.page.evaluate("(url) => fetch(url).catch(() => null)", other)
    driver.page.evaluate("(url) => { const i = new Image(); i.src = url; }", other)
    pages.settle()
    assert [request for request in pages.server.store.requests(pages.token) if request.origin == "other"] == []


def test_state_reports_one_tab_without_query_or_credentials(
    browser_process: SyncBrowserProcess, pages: PageSession
) -> None:
    context = browser_process.browser.new_context(**context_options())
    try:
        driver = FieldworkDriver.open(context.new_page(), pages.url(FORM_PAGE + "?secret=1#frag"), observation=False)
        [tab] = driver.state()["tabs"]
        assert tab["url"] == pages.url(FORM_PAGE) and tab["active"] is True
        assert "observation" not in driver.state()
    finally:
        context.close()
