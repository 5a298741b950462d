"""Gathering a check's evidence from its live subject, at the moment pytest reports the check did not pass.

The plugin calls :func:`evidence_of` from its report hook, which runs before the check's fixtures are torn
down, so the driver that just failed is still there to take the "after" screenshot. Only checks that failed or
ended unverified pay for it; a passing check costs nothing beyond the subject's call log.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.evidence import gather, to_property
from conformance.harness.computer_subject import ComputerSubject
from conformance.harness.errors import DriverTimeout
from conformance.harness.subject import BrowserSubject

# The check outcomes whose clauses the certificate explains with evidence.
EXPLAINED = frozenset({"failed", "unverified"})


def evidence_of(item: pytest.Item, outcome: str, error: BaseException | None) -> str | None:
    """The check's evidence as a user-property value, or None when it passed or used no subject."""
    if outcome not in EXPLAINED:
        return None
    funcargs: dict[str, Any] = getattr(item, "funcargs", {})
    browser, computer = funcargs.get("subject"), funcargs.get("computer_subject")
    if isinstance(browser, BrowserSubject):
        return to_property(_browser(browser, error))
    if isinstance(computer, ComputerSubject):
        return to_property(_computer(computer, error))
    return None


def _hung(error: BaseException | None) -> str | None:
    if isinstance(error, DriverTimeout):
        return "no screenshot: the driver hung and was abandoned, so the kit could not ask it for one"
    return None


def _browser(subject: BrowserSubject, error: BaseException | None) -> dict[str, Any]:
    hung = _hung(error)
    has_screenshot = subject.implements("screenshot")

    def take() -> Any:
        # Straight to the driver, not through the SDK: the picture is the kit's; gather has read the log already.
        return subject.call_direct("screenshot", {"tab_id": None})

    return gather(
        subject.evidence,
        effects=subject.env.effects(),
        take_screenshot=take if has_screenshot and hung is None else None,
        no_screenshot=hung or "no screenshot: the driver does not implement screenshot",
        viewport=subject.env.hints.viewport,
    )


def _computer(subject: ComputerSubject, error: BaseException | None) -> dict[str, Any]:
    hung = _hung(error)
    has_screenshot = callable(getattr(subject.driver, "screenshot", None))
    return gather(
        subject.evidence,
        effects=list(subject.env.events()),
        take_screenshot=(lambda: subject.call_direct("screenshot")) if has_screenshot and hung is None else None,
        no_screenshot=hung or "no screenshot: the driver has no screenshot method",
    )
