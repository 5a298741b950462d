"""Reader: a read-only async run over a local page with the reference driver and a read-only toolset.

    python -m reference.examples.reader            # rehearsal: recorded model turns, real browser and page
    python -m reference.examples.reader --live     # OPENAI_API_KEY and OPENAI_MODEL

The toolset exposes only ``get_page_text``, so no approval callback exists to be asked. Success is checked
independently: the text the driver handed to the runner contains the queue's next pickup, and the page itself
recorded no click, input, key press or dispatch.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import openai
from openai.lib.browser import BrowserReadV1, BrowserState, TabInput
from openai.lib.responses_tool_runner import AsyncResponsesToolRunner

from reference.browser import AsyncBrowserProcess, AsyncPlaywrightBrowserDriver
from reference.toolsets import async_read_only_browser

from ._support import (
    ExampleResult,
    final_text,
    fixture_pages,
    main_async,
)

PAGE = "fieldwork/dispatch.html"
TASK = "Read the dispatch queue page and tell me which job is picked up next, when, and from which dock."
EXPECTED_FACT = "Next pickup: BP-1207, 14:30 from Dock 4"
# Effects a read must never cause.
ACTION_EFFECTS = ("click", "input", "change", "keydown", "dispatched")


class ObservedReader:
    """Delegates to the reference driver and keeps what it returned, so the check sees what the model was sent."""

    def __init__(self, driver: AsyncPlaywrightBrowserDriver) -> None:
        self._driver = driver
        self.texts: list[str] = []

    async def state(self) -> BrowserState:
        return await self._driver.state()

    async def get_page_text(self, args: TabInput, *, cancelled: Any = None) -> BrowserReadV1 | str:
        report = await self._driver.get_page_text(args, cancelled=cancelled)
        self.texts.append(report if isinstance(report, str) else report["text"])
        return report


async def run(client: openai.AsyncOpenAI, model: str, *, max_steps: int = 3) -> ExampleResult:
    with fixture_pages() as pages:
        process = await AsyncBrowserProcess.start()
        try:
            driver = await AsyncPlaywrightBrowserDriver.create(
                process.browser, allowed_origins=[pages.origin], start_url=pages.url(PAGE)
            )
            async with driver:
                reader = ObservedReader(driver)
                runner = AsyncResponsesToolRunner(browser=async_read_only_browser(reader, members=["get_page_text"]))
                try:
                    response = await runner.run(
                        client, {"model": model, "input": TASK, "store": False}, max_steps=max_steps
                    )
                    answer = final_text(response)
                except Exception as error:  # the record still says what the page saw
                    answer = f"(run stopped: {type(error).__name__})"
        finally:
            await process.close()
        pages.settle()
        acted = {kind: len(pages.effects(kind)) for kind in ACTION_EFFECTS if pages.effects(kind)}
    read = any(EXPECTED_FACT in " ".join(text.split()) for text in reader.texts)
    if acted:
        return ExampleResult(False, f"the page recorded actions during a read-only run: {acted}", answer)
    if not read:
        return ExampleResult(False, "the driver never returned the queue's next pickup to the runner", answer)
    return ExampleResult(
        True, f"the runner received the page text with '{EXPECTED_FACT}' and the page recorded no action", answer
    )


def main(argv: Sequence[str] | None = None) -> int:
    return main_async(__doc__, argv, "reader", lambda client, model, _approve: run(client, model))


if __name__ == "__main__":
    sys.exit(main())
