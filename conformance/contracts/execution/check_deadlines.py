"""Deadlines: a script that never ends is answered within the client's wait, and the service itself stops it.

Whether the script stopped is watched from outside it: the runaway script keeps moving the desktop's pointer, and
a script of another session reads the pointer twice a second apart once the reply came. A pointer still moving
means the runaway script still runs. (On a service whose sessions have desktops of their own, the other session
sees a still pointer either way; the check then learns nothing and passes.)
"""

from __future__ import annotations

import pytest

from conformance.assertions import expect, precondition_failed, violation
from conformance.harness.execution_service import (
    CLIENT_WAIT_SECONDS,
    ServiceUnreachable,
    new_session_id,
)

from ._runtimes import Runtime, literal_item

_NEVER_ENDS = {
    "python": "import time\nwhile True:\n    time.sleep(0.05)",
    "javascript": "for (;;) {}",
}

# Moves the pointer along a line well away from the corners (where the fail-safe would stop it) for ever.
# Scripts import what they use beyond PyAutoGUI, so a namespace lacking a helper fails only EX-PY-001.
_RUNAWAY = """
import itertools, time
pyautogui.PAUSE = 0
for step in itertools.count():
    pyautogui.moveTo(300 + step % 200, 300)
    time.sleep(0.02)
"""

_WATCH = """
import time
first = tuple(pyautogui.position())
time.sleep(1.0)
log(repr((first, tuple(pyautogui.position()))))
"""


@pytest.mark.clause("EX-DEADLINE-001")
def test_a_script_that_never_ends_is_answered_within_the_wait(runtime: Runtime) -> None:
    try:
        reply = runtime.run(new_session_id("forever"), _NEVER_ENDS[runtime.language])
    except ServiceUnreachable as error:
        violation("EX-DEADLINE-001", f"a {runtime.language} script that never ends got no answer: {error}")
    expect(
        reply.seconds <= CLIENT_WAIT_SECONDS,
        "EX-DEADLINE-001",
        f"a script that never ends was answered only after {reply.seconds:.1f} s, past the client's "
        f"{CLIENT_WAIT_SECONDS:g}-second wait",
    )


@pytest.mark.clause("EX-DEADLINE-002")
def test_the_service_stops_a_script_past_its_deadline(python: Runtime) -> None:
    try:
        reply = python.run(new_session_id("runaway"), _RUNAWAY)
    except ServiceUnreachable as error:
        precondition_failed("EX-DEADLINE-001", f"a script that never ends got no answer: {error}")
    if reply.seconds > CLIENT_WAIT_SECONDS:
        precondition_failed("EX-DEADLINE-001", f"the runaway script was answered only after {reply.seconds:.1f} s")
    watched = python.run(new_session_id("watch"), _WATCH)
    positions = literal_item(watched)
    if not (isinstance(positions, tuple) and len(positions) == 2):
        precondition_failed("EX-PY-003", f"another session could not read the pointer: {watched.describe()}")
    before, after = positions
    expect(
        before == after,
        "EX-DEADLINE-002",
        f"after the reply to a script past its deadline ({reply.describe(120)}), the pointer it moves still moved "
        f"(from {before} to {after} within a second): the script was not stopped",
    )
