"""Browser driver clauses (BR-*): what a driver must do, checked by conformance/contracts/browser.

Two lists make it up, split by the part of the contract they check: what a driver observes and reports
(state, reads, refs, privacy, errors) and what it does (actions, tabs, images, opt-in members, cancellation).
"""

from __future__ import annotations

from conformance.clauses import Clause
from conformance.clauses._browser_act import CLAUSES as ACT_CLAUSES
from conformance.clauses._browser_observe import CLAUSES as OBSERVE_CLAUSES

HARNESS_CLAUSES: tuple[Clause, ...] = (
    Clause(
        "BR-SDK-001",
        "000",
        "Return a structured page read",
        "The SDK toolset accepts every result and state the driver returns; an invalid report stops the run.",
    ),
)

CLAUSES: tuple[Clause, ...] = HARNESS_CLAUSES + OBSERVE_CLAUSES + ACT_CLAUSES
