"""The Python runtime: PyAutoGUI, Pillow, time, log and display in the namespace, PyAutoGUI's fail-safe on, and a
PyAutoGUI screenshot of the desktop the runtime drives."""

from __future__ import annotations

import secrets

import pytest

from conformance.assertions import expect
from conformance.harness.execution_service import new_session_id

from ._images import decoded_image_size
from ._runtimes import Runtime, json_item, literal_item

_OFFERED = (
    "import json\n"
    "names = {name: name in globals() for name in ('pyautogui', 'time', 'log', 'display')}\n"
    "names['Pillow'] = 'PIL' in globals() or 'Image' in globals()\n"
    "log(json.dumps(names))\n"
)

# The pointer goes to a corner and the next PyAutoGUI call must refuse to act; then the pointer is put back (with the
# fail-safe off for that one move) so no later script on a shared display starts in a corner.
_FAIL_SAFE = """
outcome = 'no error'
pause, pyautogui.PAUSE = pyautogui.PAUSE, 0
try:
    pyautogui.moveTo(0, 0)
    pyautogui.moveTo(0, 0)
except Exception as error:
    outcome = type(error).__name__
finally:
    enabled = pyautogui.FAILSAFE
    pyautogui.FAILSAFE = False
    pyautogui.moveTo(200, 200)
    pyautogui.FAILSAFE = enabled
    pyautogui.PAUSE = pause
log(f'{outcome} {enabled}')
"""

_SCREENSHOT = "shot = pyautogui.screenshot()\nlog(repr((tuple(shot.size), tuple(pyautogui.size()))))\ndisplay(shot)"


@pytest.mark.clause("EX-PY-001")
def test_the_namespace_offers_the_documented_helpers(python: Runtime) -> None:
    value = f"driverkit-{secrets.token_hex(6)}"
    reply = python.run(new_session_id("helpers"), _OFFERED + f"log({value!r})")
    found = json_item(reply)
    expect(isinstance(found, dict), "EX-PY-001", f"the script listing the helpers failed: {reply.describe()}")
    missing = [str(name) for name, present in found.items() if not present]
    expect(not missing, "EX-PY-001", f"the python namespace lacks {', '.join(missing)}: {reply.describe()}")
    expect(value in reply.text(), "EX-PY-001", f"log({value!r}) did not return that text: {reply.describe()}")


@pytest.mark.clause("EX-PY-002")
def test_the_pyautogui_fail_safe_is_on(python: Runtime) -> None:
    reply = python.run(new_session_id("failsafe"), _FAIL_SAFE)
    expect(
        "FailSafeException" in reply.text(),
        "EX-PY-002",
        f"a PyAutoGUI move with the pointer in a screen corner was not refused by the fail-safe: {reply.describe()}",
    )


@pytest.mark.clause("EX-PY-003")
def test_a_pyautogui_screenshot_captures_the_desktop(python: Runtime) -> None:
    reply = python.run(new_session_id("pyshot"), _SCREENSHOT)
    sizes = literal_item(reply)
    shot_size, screen_size = sizes if isinstance(sizes, tuple) and len(sizes) == 2 else (None, None)
    expect(shot_size, "EX-PY-003", f"pyautogui.screenshot() failed: {reply.describe()}")
    expect(
        shot_size == screen_size,
        "EX-PY-003",
        f"the screenshot is {shot_size}, but the desktop PyAutoGUI drives is {screen_size}",
    )
    images = reply.images()
    expect(
        images and decoded_image_size(str(images[0].get("image_url", ""))) == shot_size,
        "EX-PY-003",
        f"display(pyautogui.screenshot()) did not return that {shot_size} screenshot as an image",
    )
