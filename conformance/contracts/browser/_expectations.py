"""Expectations about one call's outcome: done, refused, refused with BrowserError, a text result.

Two kinds of refusal, two names: :func:`expect_refused` accepts any exception (the documents ask that a driver
refuse, not how), :func:`expect_browser_error` only ``BrowserError`` (the safe, recoverable refusal the
documents name for stale refs and unknown scopes).
"""

from __future__ import annotations

from openai.lib.browser import BrowserError

from conformance.assertions import expect
from conformance.harness.subject import CallOutcome


def expect_done(outcome: CallOutcome, clause: str) -> None:
    """The member ran without raising (otherwise its effect cannot be checked, and ``clause`` is broken)."""
    expect(outcome.raised is None and outcome.member_call is not None, clause, f"the call failed: {outcome.describe()}")


def expect_refused(outcome: CallOutcome, clause: str, why: str) -> None:
    """The driver refused the call by raising; a normal return would claim an action it must not perform."""
    raised = outcome.raised  # blocked when the SDK rejected the state before the member could refuse
    expect(outcome.member_call is not None, clause, f"{outcome.describe()} ({why})")
    expect(raised is not None, clause, f"{why}, but {outcome.describe()}")


def is_browser_error(error: BaseException | None) -> bool:
    return isinstance(error, BrowserError)


def expect_browser_error(outcome: CallOutcome, clause: str, what: str) -> None:
    """The driver raised BrowserError (a safe, recoverable refusal) for ``what``."""
    error = outcome.raised
    expect(
        is_browser_error(error),
        clause,
        f"{what}: expected BrowserError, got "
        + (f"{type(error).__name__}" if error is not None else f"a normal return {outcome.raw!r}"),
    )


def expect_text_result(outcome: CallOutcome) -> None:
    """BR-ACT-001: action members return a string or None."""
    expect(
        outcome.raw is None or isinstance(outcome.raw, str),
        "BR-ACT-001",
        f"{outcome.member} returned {type(outcome.raw).__name__}, not a string or None",
    )


def finish(outcome: CallOutcome) -> None:
    """The closing checks of a successful action: result type, then the SDK's acceptance."""
    expect_text_result(outcome)
    outcome.expect_sdk_accepted()
