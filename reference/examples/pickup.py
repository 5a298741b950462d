"""pickup: a screenshot-driven computer-tool task on a private desktop, with a rehearsal that needs no API key.

    python -m reference.examples.pickup --rehearse   # recorded model turns, real desktop and reference driver
    python -m reference.examples.pickup --live       # OPENAI_API_KEY and OPENAI_MODEL; asks before each action

The desktop (Xvfb, openbox, kiosk Chromium; conformance.harness.desktops) shows an order page whose pickup code appears
only after a click. ``ComputerToolset.run`` drives it through the reference XTEST driver, asking before every
action (and before any pending safety check). Success is the page's own record that the details were revealed:
the model's final message is printed but proves nothing.

The rehearsal cassette is built from :func:`pickup_cassette` at run time (no API key, no network): one computer
call clicking the button where the page draws it, then the final answer.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, Final

import openai
from openai import ComputerToolset

from conformance import resources
from conformance.cassette_builder import CassetteBuilder, computer_call, message
from conformance.cassettes import Cassette
from conformance.harness.desktops import Desktop, DesktopSettings, LocalDesktop
from reference.computer import XvfbComputerDriver

from ._support import (
    ExampleResult,
    final_text,
    main_sync,
)

DESKTOP_PAGES: Final = resources.pages("desktop")
PICKUP_CODE: Final = "PK-4172-Q"
# The middle of the page's "Show pickup details" button (fixed geometry in pickup.html).
REVEAL_BUTTON: Final = (260, 152)
TASK: Final = (
    "The desktop shows an order page. Find the pickup code for order 4172 (you may need to reveal it) and "
    "reply with the code and where to collect the order."
)
PAGE_READY_TIMEOUT_S: Final = 30.0


def pickup_cassette() -> Cassette:
    """What a model would answer: click the reveal button, then read the code off the next screenshot."""
    x, y = REVEAL_BUTTON
    return (
        CassetteBuilder("pickup", description="Reveal the pickup details with one click, then answer.")
        .turn(computer_call({"type": "click", "x": x, "y": y, "button": "left"}, call_id="pickup-1"))
        .turn(message(f"The pickup code is {PICKUP_CODE}; collect the order from locker 12 at the front desk."))
        .build()
    )


def _events(desktop: Desktop, kind: str) -> list[dict[str, Any]]:
    return [event for event in desktop.read_events() if event.get("type") == kind]


def _wait_for(desktop: Desktop, kind: str, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not _events(desktop, kind):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _takes_input(desktop: Desktop, driver: XvfbComputerDriver, timeout_s: float) -> bool:
    """Move the pointer (by one pixel, back and forth, in a corner the task never uses) until the page reports that it
    saw the move: Chromium can drop input that arrives right after the load event, before the first paint."""
    deadline = time.monotonic() + timeout_s
    step = 0
    while time.monotonic() < deadline:
        step += 1
        driver.move({"type": "move", "x": 4 + step % 2, "y": 4})
        if _wait_for(desktop, "input-ready", 1.0):
            return True
    return False


def run(client: openai.OpenAI, model: str, approve: Callable[[str], bool], *, max_steps: int = 8) -> ExampleResult:
    approvals: list[str] = []

    def approve_action(action: Any) -> bool:
        description = f"computer {action.type} {action.model_dump(exclude_none=True)}"
        approvals.append(description)
        return approve(description) is True

    def approve_checks(call: Any) -> bool:
        codes = ", ".join(check.code or check.id for check in call.pending_safety_checks)
        return approve(f"acknowledge safety checks: {codes}") is True

    settings = DesktopSettings(site_dir=DESKTOP_PAGES, start_path="pickup.html")
    with LocalDesktop(settings) as desktop:
        if not _wait_for(desktop, "ready", PAGE_READY_TIMEOUT_S):
            return ExampleResult(False, "the pickup page never reported that it loaded", "")
        with XvfbComputerDriver(desktop.display) as driver:
            if not _takes_input(desktop, driver, PAGE_READY_TIMEOUT_S):
                return ExampleResult(False, "the pickup page loaded but never reported pointer input", "")
            toolset = ComputerToolset(driver)
            try:
                response = toolset.run(
                    client,
                    {"model": model, "input": TASK, "store": False},
                    max_steps=max_steps,
                    approve_safety_checks=approve_checks,
                    before_action=approve_action,
                )
                answer = final_text(response)
            except Exception as error:  # the page's record still says what happened
                answer = f"(run stopped: {type(error).__name__}: {error})"
            finally:
                toolset.close()
        _wait_for(desktop, "revealed", 3.0)
        revealed = _events(desktop, "revealed")
    if len(revealed) != 1 or revealed[0].get("code") != PICKUP_CODE:
        return ExampleResult(
            False, f"the page recorded {len(revealed)} reveal(s) of the pickup details", answer, approvals
        )
    evidence = f"the page recorded one reveal of pickup code {revealed[0]['code']}"
    if PICKUP_CODE not in answer:
        return ExampleResult(False, evidence + ", but the answer does not contain the code", answer, approvals)
    return ExampleResult(True, evidence + " and the answer reports it", answer, approvals)


def main(argv: Sequence[str] | None = None) -> int:
    return main_sync(__doc__, argv, pickup_cassette(), run)


if __name__ == "__main__":
    sys.exit(main())
