"""Review: choose a guarded action with ``AsyncDecisionsToolRunner`` and verify it by reading the page afresh.

    python -m reference.examples.review            # rehearsal: recorded decisions, real browser and page
    python -m reference.examples.review --live     # OPENAI_API_KEY and OPENAI_MODEL; asks before marking

The application lists every action itself (mark the document reviewed, or say it is done); the executor checks
it is still on the owned review page and asks for approval before clicking. ``verify`` reads the page again and
only a visible "Review recorded" notice counts. The outcome is then checked against the page's own record: exactly
one ``review_saved`` effect.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable, Sequence

import openai
from openai.lib.decisions_tool_runner import AsyncDecisionCandidate, AsyncDecisionsToolRunner, DecisionObservation
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from reference.browser import AsyncBrowserProcess
from reference.fieldwork import context_options

from ._support import (
    ExampleResult,
    fixture_pages,
    main_async,
)

PAGE = "fieldwork/review.html"
TASK = "Make sure document DOC-311 is marked as reviewed."
OBSERVATION_LIMIT = 4_000
NOTICE = "Review recorded"


class ActionRefused(RuntimeError):
    """The executor stopped before any effect (wrong page or no approval)."""


Observe = Callable[[], Awaitable[DecisionObservation]]
Candidates = Callable[[DecisionObservation], Awaitable[list[AsyncDecisionCandidate]]]
Verify = Callable[[DecisionObservation], Awaitable[bool]]


def review_task(
    page: Page, review_url: str, approve: Callable[[str], bool], approvals: list[str]
) -> tuple[Observe, Candidates, Verify]:
    """The three Decisions callbacks for one page: observe, candidates and verify."""

    async def observe() -> DecisionObservation:
        text = await page.locator("main").inner_text()
        return text[:OBSERVATION_LIMIT]

    async def candidates(observation: DecisionObservation) -> list[AsyncDecisionCandidate]:
        async def mark_reviewed() -> None:
            # The choice was made on an earlier observation; check the page again before the effect.
            if page.url != review_url:
                raise ActionRefused("The page is no longer the owned review page.")
            decision = approve("click 'Mark reviewed' on DOC-311") is True
            approvals.append(("approved" if decision else "refused") + " mark_reviewed")
            if not decision:
                raise ActionRefused("Marking the document reviewed was not approved.")
            await page.get_by_role("button", name="Mark reviewed").click(timeout=5_000)

        return [
            {"id": "review", "description": "Mark document DOC-311 reviewed", "execute": mark_reviewed},
            {"id": "done", "description": "DOC-311 is already marked reviewed", "done": True},
        ]

    async def verify(observation: DecisionObservation) -> bool:
        # A fresh look at the page, not the observation the model saw: the notice appears after the save.
        try:
            await page.get_by_text(NOTICE, exact=True).wait_for(state="visible", timeout=2_000)
        except PlaywrightError:
            return False
        return True

    return observe, candidates, verify


async def run(
    client: openai.AsyncOpenAI, model: str, approve: Callable[[str], bool], *, max_steps: int = 4
) -> ExampleResult:
    approvals: list[str] = []
    with fixture_pages() as pages:
        process = await AsyncBrowserProcess.start()
        try:
            context = await process.browser.new_context(**context_options())
            try:
                page = await context.new_page()
                review_url = pages.url(PAGE)
                await page.goto(review_url)
                observe, candidates, verify = review_task(page, review_url, approve, approvals)
                runner = AsyncDecisionsToolRunner(observe=observe, candidates=candidates, verify=verify)
                try:
                    result = await runner.run(client, {"model": model, "input": TASK}, max_steps=max_steps)
                    answer = f"status={result['status']}, completed={result['completed_candidate_ids']}"
                except Exception as error:  # the record still says what happened
                    answer = f"(run stopped: {type(error).__name__})"
            finally:
                await context.close()
        finally:
            await process.close()
        pages.settle()
        saved = pages.effects("review_saved")
    if len(saved) != 1:
        return ExampleResult(
            False, f"the page recorded {len(saved)} review_saved effects, expected exactly one", answer, approvals
        )
    return ExampleResult(True, f"the page recorded one review of {saved[0].get('document')}", answer, approvals)


def main(argv: Sequence[str] | None = None) -> int:
    return main_async(__doc__, argv, "review", run)


if __name__ == "__main__":
    sys.exit(main())
