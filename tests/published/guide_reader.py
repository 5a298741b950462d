"""The Python guide's first example driver (its read-only page reader), as a ``--driver`` factory.

The driver class reproduces the example's behaviour member for member: one tab with a fixed id, reported active
with the page's own URL and title, and ``get_page_text`` returning the body's rendered text, refusing any other
tab with a BrowserError. The factory does what the example's ``main`` does (launch Chromium with Playwright, open
one page) and then shows the kit's start page on it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from openai.lib.browser import BrowserError, BrowserState, TabInput
from playwright.async_api import Page, async_playwright

from conformance.harness.environment import Environment

CHROMIUM = "/usr/bin/chromium"
TAB_ID = "one"


class GuideReader:
    def __init__(self, page: Page) -> None:
        self.page = page

    async def state(self) -> BrowserState:
        title = await self.page.title()
        return {"tabs": [{"id": TAB_ID, "url": self.page.url, "title": title, "active": True}]}

    async def get_page_text(self, args: TabInput) -> str:
        if args["tab_id"] not in (None, TAB_ID):
            raise BrowserError("Unknown tab.")
        return await self.page.locator("body").inner_text()


async def make_driver(env: Environment) -> AsyncIterator[Any]:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM)
        try:
            page = await browser.new_page()
            await page.goto(env.start_url)
            yield GuideReader(page)
        finally:
            await browser.close()
