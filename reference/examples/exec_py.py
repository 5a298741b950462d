"""exec_py: a code-execution function tool backed by the execution service on a local desktop.

    python -m reference.examples.exec_py            # rehearsal: recorded model turns, real desktop and service
    python -m reference.examples.exec_py --live     # OPENAI_API_KEY and OPENAI_MODEL; asks before each script

The example starts a private desktop (Xvfb, openbox and kiosk Chromium showing an input-recording page) and the
execution service on loopback with a fresh bearer token, then registers ``exec_py`` as an ordinary function tool
whose executor asks for approval and calls :func:`reference.execution.execute_in_sandbox`. The task is to click
the centre of the screen; success is the desktop page's own record of that click.
"""

from __future__ import annotations

import secrets
import sys
import time
from collections.abc import Callable, Sequence
from typing import Final

import openai
from openai.lib.responses_tool_runner import ResponsesToolRunner

from conformance import resources
from conformance.harness.desktops import Desktop, DesktopSettings, LocalDesktop
from reference.execution import ExecutionService

from ._exec_tool import ExecutionTool, Outputs, code_tool, images_returned
from ._support import ExampleResult, answer_of, main_sync

DESKTOP_PAGES: Final = resources.pages("desktop")
TASK = (
    "You have exec_py, a persistent Python runtime on a desktop with pyautogui, PIL, time, log(value) and "
    "display(image). First look at the screen, then click exactly the centre of the screen."
)
EXEC_PY_TOOL: Final = code_tool(
    "exec_py",
    "Python",
    (
        "Run Python in a persistent runtime on the desktop. Available: pyautogui, PIL and Image, time, "
        "log(value) to return text and display(image) to return a PIL image. Variables persist between calls."
    ),
)


EXEC_PY = ExecutionTool(EXEC_PY_TOOL, "python", "desktop")


def wait_until_page_ready(desktop: Desktop, timeout_s: float = 20.0) -> bool:
    """The kiosk window can be up before its page has loaded; a click before then would land on nothing."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if any(event.get("type") == "ready" for event in desktop.read_events()):
            return True
        time.sleep(0.1)
    return False


def centre_clicks(desktop: Desktop) -> list[dict[str, object]]:
    width, height = desktop.screen_size
    return [
        event
        for event in desktop.read_events()
        if event.get("type") == "click" and (event.get("x"), event.get("y")) == (width // 2, height // 2)
    ]


def run(client: openai.OpenAI, model: str, approve: Callable[[str], bool], *, max_steps: int = 6) -> ExampleResult:
    token = secrets.token_urlsafe(24)
    outputs: Outputs = []
    settings = DesktopSettings(site_dir=DESKTOP_PAGES, start_path="input-recorder.html")
    with LocalDesktop(settings) as desktop, ExecutionService(token, display=desktop.display) as service:
        if not wait_until_page_ready(desktop):
            return ExampleResult(False, "the desktop page never reported that it was ready", "")
        session_id = f"exec-example-{secrets.token_hex(4)}"
        function = EXEC_PY.function(service.endpoint, token, session_id, approve, outputs)
        answer = answer_of(ResponsesToolRunner(functions=[function]), client, model, TASK, max_steps)
        deadline = time.monotonic() + 3
        while not (clicks := centre_clicks(desktop)) and time.monotonic() < deadline:
            time.sleep(0.1)
        width, height = desktop.screen_size
    images = images_returned(outputs)
    if len(clicks) != 1:
        return ExampleResult(
            False, f"the desktop page recorded {len(clicks)} clicks at the centre, expected one", answer
        )
    return ExampleResult(
        True,
        f"the desktop page recorded one click at ({width // 2}, {height // 2}); the runtime returned {images} "
        f"screenshot(s) over {len(outputs)} call(s)",
        answer,
    )


def main(argv: Sequence[str] | None = None) -> int:
    return main_sync(__doc__, argv, "exec-py", run)


if __name__ == "__main__":
    sys.exit(main())
