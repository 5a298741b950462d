"""Questions the documents leave open, and what the kit chose not to judge (``driverkit clauses --open-questions``).

A check may only hold the SDK to what the documents say. Where they say nothing, the kit must not settle the
matter silently in a check's docstring: each such question is listed here with the clauses it touches, the
kit's choice (what it checks, what it leaves alone) and why, so a reader of a certificate sees the gaps.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OpenQuestion:
    """One question the documents do not answer. ``clauses`` are the IDs of the clauses it borders on."""

    id: str
    clauses: tuple[str, ...]
    question: str
    choice: str
    why: str


OPEN_QUESTIONS: tuple[OpenQuestion, ...] = (
    OpenQuestion(
        "OQ-001",
        ("RN-IDEM-003", "RN-STREAM-012"),
        "Does a ledger run retry a request that failed with a retryable HTTP error?",
        "Retries are checked only in ledger-free modes; ledger modes are checked for the first and later keys.",
        "The documents turn retries off for MCP requests 'with or without a ledger' and say ledger runs accept "
        "fewer options, but never state whether other ledger requests retry.",
    ),
    OpenQuestion(
        "OQ-002",
        ("RN-STREAM-009",),
        "When a call's arguments are truncated or not a JSON object, must the run stop, or may the runner send "
        "the model an error output and continue?",
        "The kit requires only that the executor never runs and that every mode ends the same way.",
        "The documents say malformed arguments never call the executor and executors get a decoded object; "
        "they do not say what the run does next.",
    ),
    OpenQuestion(
        "OQ-003",
        ("RN-STREAM-006", "RN-LOOP-003"),
        "Must a repeated, identical output_item.done event be ignored, or may the runner stop on it?",
        "The kit requires one execution in every mode and that all modes agree; it does not say which outcome "
        "is right, so either would pass once the modes agree.",
        "The documents forbid running a completed item twice and promise the same semantics in every mode, "
        "but do not describe repeated events.",
    ),
    OpenQuestion(
        "OQ-004",
        ("RN-ERR-001", "RN-STREAM-010"),
        "Which message does a run stopped by response.failed carry?",
        "The kit checks that a failed response runs no call without eager and sends no further request, not "
        "the message.",
        "The documents give a fixed message to SDK validation failures (such as an incomplete response) and a "
        "generic one to API errors, and do not say which a failed response is.",
    ),
    OpenQuestion(
        "OQ-005",
        ("TS-RES-017",),
        "Is an empty string a valid tab ID?",
        "Generated tab IDs are nonempty; the empty ID is not checked.",
        "BrowserState types the ID as a string and requires uniqueness; nothing says whether it may be empty.",
    ),
    OpenQuestion(
        "OQ-006",
        ("RN-DEC-010",),
        "How large may a Decisions observation be (text length, number and size of images), and may its text be empty?",
        "Observations are small and nonempty in every check; no size is judged.",
        "The documents ask applications to bound saved page text but give the runner no limit and no rule "
        "for empty text.",
    ),
    OpenQuestion(
        "OQ-007",
        ("TS-CONF-004", "TS-RES-009"),
        "Which text does a refused, skipped or failed browser call report to the model?",
        "Checks look at ok, state and driver calls, never at refusal texts, except BrowserError messages, "
        "which the documents say pass through.",
        "The documents promise only that such calls report ok false with current state.",
    ),
)

__all__ = ["OPEN_QUESTIONS", "OpenQuestion"]
