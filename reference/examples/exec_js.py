"""exec_js: a code-execution function tool backed by the execution service's JavaScript runtime.

    python -m reference.examples.exec_js            # rehearsal: recorded model turns, real runtime and page
    python -m reference.examples.exec_js --live     # OPENAI_API_KEY and OPENAI_MODEL; asks before each script

The example serves the reservation form on loopback, starts the execution service with a fresh bearer token
(sandboxed runtimes that may reach loopback, so the runtime's browser can load the form) and opens the form in the
session's page, then registers ``exec_js`` as an ordinary function tool whose executor asks for approval and calls
:func:`reference.execution.execute_in_sandbox` with ``language="javascript"``. Success is the reservation the page
itself recorded (the fixture server's effect store), compared field by field with the task.
"""

from __future__ import annotations

import secrets
import sys
from collections.abc import Callable, Sequence
from typing import Final

import openai
from openai.lib.responses_tool_runner import ResponsesToolRunner

from reference.execution import ExecutionService, execute_in_sandbox
from reference.fieldwork import FORM_PAGE

from ._exec_tool import ExecutionTool, Outputs, code_tool, images_returned
from ._support import ExampleResult, answer_of, fixture_pages, main_sync
from .fieldwork import saved_matches

TASK = (
    "You have exec_js, a persistent JavaScript runtime with Playwright's browser, context and page; the page "
    "already shows a reservation form. Book a table for Ada Lovelace on 2026-12-10 at 18:30 for 3 guests with the "
    "note 'Quiet table.' (no step-free access needed), confirm it, and tell me the result."
)
EXEC_JS_TOOL: Final = code_tool(
    "exec_js",
    "JavaScript",
    (
        "Run JavaScript in a persistent Node runtime. Available: Playwright's browser, context (viewport 1440x900) "
        "and page, top-level await, console.log(value) to return text and display(base64Image) to return an "
        "image such as (await page.screenshot()).toString('base64'). Assign to globalThis to keep values between "
        "calls."
    ),
)


EXEC_JS = ExecutionTool(EXEC_JS_TOOL, "javascript", "browser")


# What the example's reservation must end up as, checked against the page's record (the rehearsal
# cassette in tools/cassettes/example_sources.py books the same).
RESERVATION: Final = {
    "guest_name": "Ada Lovelace",
    "date": "2026-12-10",
    "party_size": 3,
    "time_slot": "18:30",
    "notes": "Quiet table.",
    "accessibility": False,
}


def open_page(endpoint: str, token: str, session_id: str, url: str) -> str | None:
    """The application, not the model, puts the session's page on the form; returns a problem, or None."""
    code = f"await page.goto({url!r}); await page.waitForSelector('#reservation-form'); console.log('ready')"
    items = execute_in_sandbox(code, session_id, endpoint, approve=lambda _: True, token=token, language="javascript")
    texts = [item["text"] for item in items if item["type"] == "input_text"]
    return None if texts == ["ready\n"] else "the runtime could not open the form: " + " ".join(texts)[:300]


def run(client: openai.OpenAI, model: str, approve: Callable[[str], bool], *, max_steps: int = 6) -> ExampleResult:
    token = secrets.token_urlsafe(24)
    outputs: Outputs = []
    session_id = f"exec-js-example-{secrets.token_hex(4)}"
    # isolate_network=False: the runtime stays sandboxed, but shares loopback so its browser reaches the form.
    with fixture_pages() as pages, ExecutionService(token, display=None, isolate_network=False) as service:
        problem = open_page(service.endpoint, token, session_id, pages.url(FORM_PAGE))
        if problem is not None:
            return ExampleResult(False, problem, "")
        function = EXEC_JS.function(service.endpoint, token, session_id, approve, outputs)
        answer = answer_of(ResponsesToolRunner(functions=[function]), client, model, TASK, max_steps)
        verified, evidence = saved_matches(pages, RESERVATION)
    images = images_returned(outputs)
    if verified:
        evidence += f"; the runtime returned {images} screenshot(s) over {len(outputs)} call(s)"
    return ExampleResult(verified, evidence, answer)


def main(argv: Sequence[str] | None = None) -> int:
    return main_sync(__doc__, argv, "exec-js", run)


if __name__ == "__main__":
    sys.exit(main())
