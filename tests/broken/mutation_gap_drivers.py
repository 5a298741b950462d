"""Browser drivers with one deliberate defect each: the real gaps mutation testing found (tools/mutate/SURVIVORS.md).

Each models one surviving mutant of the reference driver as a :class:`~tests.broken.drivers.BrokenDriver` hook, so
the check written for that gap is proven to fail on its clause alone, whatever becomes of the mutation tool's
sampling. ``test_mutation_gap_drivers.py`` (in tests/conformance/contracts/browser) says which clause each must
fail::

    pytest --driver=tests.broken.mutation_gap_drivers:modifiers_released_twice --certificate=out -k modifiers
"""

from __future__ import annotations

import copy
import json
import time
from typing import Any

from openai.lib.browser import BrowserCancelledError, BrowserError

from conformance.harness.environment import Environment
from tests.broken.drivers import Arguments, BrokenDriver, Forward, factory_for

# How long navigate waits for a page before giving up: shorter than the slow page the navigation check serves.
GIVES_UP_AFTER_SECONDS = 1.5


class NewTabRefusalReportedAsSuccess(BrokenDriver):
    """new_tab to a non-permitted origin still opens nothing and sends no request, but answers as if it had opened.

    The mutant ``swallow-error:new_tab``: the driver's refusal is turned into a success text for the model.
    """

    def broken_new_tab(self, arguments: Arguments, forward: Forward) -> Any:
        try:
            return forward(arguments)
        except BrowserError:
            return "Opened a new tab."


class ModifiersReleasedTwice(BrokenDriver):
    """click_at holds its modifiers for the click, then releases each of them a second time.

    The mutant ``repeat-call`` of the release in ``reference/browser/_pointer.py``: the page sees one keydown and
    two keyups per modifier. The extra release is dispatched into the page where the key events land.
    """

    def broken_click_at(self, arguments: Arguments, forward: Forward) -> Any:
        result = forward(arguments)
        for name in reversed(list(arguments.get("keys") or [])):
            event = json.dumps({"key": name, "bubbles": True})
            source = f"(document.activeElement || document).dispatchEvent(new KeyboardEvent('keyup', {event}))"
            self.script(source, arguments.get("tab_id"))
        return result


class DismissedDialogsNeverNoticed(BrokenDriver):
    """Page dialogs are still dismissed, but the observation history never reports a dialog_dismissed change.

    The mutant ``drop-call`` of the log entry in ``reference/browser/_session.py``. The reference underneath does
    log them, so the notices are taken out and the later changes renumbered, consistently across reads: the history
    stays well formed, only the dialog notices are missing.
    """

    def __init__(self, inner: Any, env: Environment) -> None:
        super().__init__(inner, env)
        self.hidden: set[int] = set()  # the reference's sequence numbers of the dialog notices taken out

    def broken_state(self, forward: Forward) -> Any:
        state = copy.deepcopy(forward())
        observation = state.get("observation") if isinstance(state, dict) else None
        if not isinstance(observation, dict):
            return state
        kept = []
        for change in observation["changes"]:
            if change["type"] == "dialog_dismissed":
                self.hidden.add(int(change["sequence"]))
            else:
                kept.append(change)
        for change in kept:
            change["sequence"] -= sum(1 for hidden in self.hidden if hidden < change["sequence"])
        observation["changes"] = kept
        observation["sequence"] -= len(self.hidden)
        return state


class GivesUpOnASlowPage(BrokenDriver):
    """navigate stops waiting for a page that has not loaded within 1.5 s, stops it loading and reports a failure.

    The mutant ``skip-if`` of the load test in the reference's navigation loop, made deterministic: that driver never
    noticed a load that came after its first short wait, so every slow page ended in this same failure.
    """

    def broken_navigate(self, arguments: Arguments, forward: Forward) -> Any:
        deadline = time.monotonic() + GIVES_UP_AFTER_SECONDS
        try:
            return self.inner.navigate(arguments, cancelled=lambda: time.monotonic() > deadline)
        except BrowserCancelledError:
            raise BrowserError("The page took too long to load.") from None


new_tab_refusal_reported_as_success = factory_for(NewTabRefusalReportedAsSuccess)
modifiers_released_twice = factory_for(ModifiersReleasedTwice)
dismissed_dialogs_never_noticed = factory_for(DismissedDialogsNeverNoticed)
gives_up_on_a_slow_page = factory_for(GivesUpOnASlowPage)
