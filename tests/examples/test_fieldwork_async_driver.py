"""AsyncFieldworkDriver end to end. A module of its own: a sync Playwright alive in the same thread would leave
an event loop running, and asyncio.run() refuses to start inside one."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from openai.lib.browser import BrowserError

from reference.browser import AsyncBrowserProcess
from reference.examples._support import PageSession, fixture_pages
from reference.fieldwork import FORM_PAGE, AsyncFieldworkDriver, context_options

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser]


@pytest.fixture
def pages() -> Iterator[PageSession]:
    with fixture_pages() as session:
        yield session


def test_the_async_driver_saves_a_reservation(pages: PageSession) -> None:
    async def book() -> dict[str, Any] | None:
        process = await AsyncBrowserProcess.start()
        try:
            context = await process.browser.new_context(**context_options())
            driver = await AsyncFieldworkDriver.open(await context.new_page(), pages.url(FORM_PAGE))
            report = await driver.read_page({"filter": "interactive", "tab_id": None})
            current = {element["label"]: element["ref"] for element in report["elements"]}
            await driver.type({"target": current["Guest name"], "text": "Mary Jackson", "tab_id": None})
            await driver.type({"target": current["Date"], "text": "2027-01-05", "tab_id": None})
            await driver.select_option({"target": current["Time slot"], "values": ["17:30"], "tab_id": None})
            with pytest.raises(BrowserError):
                await driver.type({"target": None, "text": "x", "tab_id": None})
            await driver.click({"target": current["Confirm reservation"], "tab_id": None})
            # The form saves with a fetch after the click returns: wait for it before closing the page, or a
            # loaded machine closes the context before the request is sent.
            saved = await asyncio.to_thread(pages.wait_for, "reservation_saved")
            await context.close()
            return saved
        finally:
            await process.close()

    saved = asyncio.run(book())
    assert saved is not None
    assert (saved["guest_name"], saved["date"], saved["time_slot"], saved["party_size"]) == (
        "Mary Jackson",
        "2027-01-05",
        "17:30",
        2,
    )
