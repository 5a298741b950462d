"""certificate.html as a driver author uses it, in a real browser (the kit's own Playwright and Chromium).

The input is a broken driver's real certificate: ``click_at_offset`` (click_at lands 9 px right of and 6 px below
the point asked for), certified with the one check that exposes it. The page is opened from disk with the
network off; the test filters it to failed clauses, expands the failure, and finds the calls, the page's record
and the screenshots before and after the failing step. The check takes no screenshot of its own, so the "before"
picture exists only because the kit reran the failed check with a screenshot before each step (the evidence
rerun). Every request the page makes is recorded: there must be none beyond the file itself.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from playwright.sync_api import Page

from conformance.evidence.rerun import RERUN_PICTURE_NOTE
from reference.browser import launch
from tests.broken.certification import Certification, certify

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser, pytest.mark.child_run]

CHECK = "test_click_at_uses_the_point_button_and_click_count"


@pytest.fixture(scope="module")
def click_at_offset(tmp_path_factory: pytest.TempPathFactory) -> tuple[Certification, Path]:
    directory = tmp_path_factory.mktemp("click-at-offset")
    return certify("tests.broken.drivers:click_at_offset", directory, selection=CHECK, evidence=None), directory


@pytest.fixture(scope="module")
def without_screenshot(tmp_path_factory: pytest.TempPathFactory) -> tuple[Certification, Path]:
    directory = tmp_path_factory.mktemp("without-screenshot")
    driver = "tests.broken.evidence_drivers:click_at_offset_without_screenshot"
    return certify(driver, directory, selection=CHECK, evidence=None), directory


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launch() as process:
        yield process.browser


def _open_offline(browser: Any, html: Path) -> tuple[Page, list[str]]:
    context = browser.new_context(offline=True, viewport={"width": 1280, "height": 900})
    requested: list[str] = []
    context.on("request", lambda request: requested.append(request.url))
    page = context.new_page()
    page.goto(html.as_uri())
    return page, requested


def _failed_evidence(page: Page) -> Any:
    page.select_option("#status-filter", "failed")
    failed_rows = page.locator("tr.clause:not(.hidden)")
    assert failed_rows.count() == 1
    assert failed_rows.first.get_attribute("data-status") == "failed"
    assert page.locator("#shown-count").inner_text() == "1"
    failed_rows.first.locator("details.explained > summary").click()
    evidence = failed_rows.first.locator(".evidence")
    evidence.wait_for(state="visible")
    return evidence


def test_a_failed_clause_shows_its_calls_the_page_record_and_the_screenshot_offline(
    click_at_offset: tuple[Certification, Path], browser: Any
) -> None:
    certification, directory = click_at_offset
    assert certification.with_status("failed") == ["BR-PTR-001"], certification.tail()
    page, requested = _open_offline(browser, directory / "certificate.html")
    try:
        assert page.locator("#verdict").inner_text() == "does not conform"
        assert page.locator("svg.chart rect.failed").count() == 2  # its share of the bar, and its own bar
        evidence = _failed_evidence(page)
        assert "BR-PTR-001" in page.locator("tr.clause:not(.hidden) td").first.inner_text()
        calls = evidence.locator("table.calls")
        assert "click_at" in calls.inner_text() and '"x": 180' in calls.inner_text()
        assert '"kind": "click"' in evidence.locator("pre").last.inner_text()  # what the page itself recorded
        for moment in ("before", "after"):
            picture = evidence.locator(f"img[alt^='{moment} the failing step']")
            picture.wait_for(state="visible")
            assert picture.evaluate("image => image.complete && image.naturalWidth") > 0, moment
        assert RERUN_PICTURE_NOTE in evidence.locator("figure").first.inner_text()
        assert "the failure repeated on a rerun" in evidence.locator("p.rerun.repeated").inner_text()
        page.select_option("#status-filter", "all")
        page.select_option("#family-filter", "BR-READ")
        families = page.locator("tr.clause:not(.hidden)").evaluate_all("rows => rows.map(r => r.dataset.family)")
        assert families and set(families) == {"BR-READ"}
    finally:
        page.context.close()
    assert requested == [(directory / "certificate.html").as_uri()], "the page made a request beyond itself"


def test_the_before_picture_is_a_jpeg_the_rerun_took_right_before_the_failing_click(
    click_at_offset: tuple[Certification, Path],
) -> None:
    certification, _ = click_at_offset
    assert certification.certificate is not None, certification.tail()
    (seen,) = certification.certificate["evidence"].values()
    # The check's only step is the click: nothing of its own took a picture before it.
    assert [call["member"] for call in seen["calls"]] == ["click_at"]
    assert seen["rerun"]["repeated"] is True, seen["rerun"]
    before = seen["before"]
    assert before["note"] == RERUN_PICTURE_NOTE and before["image"].startswith("data:image/jpeg;base64,")
    picture = Image.open(io.BytesIO(base64.b64decode(before["image"].split(",", 1)[1])))
    picture.load()
    assert picture.format == "JPEG" and 0 < picture.width <= 640


def test_a_driver_without_screenshot_gets_a_note_in_place_of_the_picture(
    without_screenshot: tuple[Certification, Path], browser: Any
) -> None:
    certification, directory = without_screenshot
    assert certification.with_status("failed") == ["BR-PTR-001"], certification.tail()
    page, _ = _open_offline(browser, directory / "certificate.html")
    try:
        evidence = _failed_evidence(page)
        assert evidence.locator("img").count() == 0
        assert "the driver does not implement screenshot" in evidence.locator(".shots").inner_text()
    finally:
        page.context.close()
