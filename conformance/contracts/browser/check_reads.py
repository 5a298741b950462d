"""Page reads: read_page, get_page_text and find report the page as it is, within BrowserReadV1 (BR-READ)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.assertions import expect, not_implemented
from conformance.harness.environment import Environment
from conformance.harness.subject import BrowserSubject, CallOutcome

from ._effects import INTERACTION_KINDS
from ._reads import check_read_report, check_result_kind, read_text, squash, strings_in
from ._refs import read_elements

# Every check here starts on its fixture page; without it the start-page clause is blamed, in setup.
pytestmark = pytest.mark.usefixtures("shows_start_page")

# The labelled controls of forms.html, one per documented role.
FORM_CONTROLS: tuple[tuple[str, str], ...] = (
    ("Recipient name", "textbox"),
    ("Delivery city", "combobox"),
    ("Delivery slots", "listbox"),
    ("Express shipping", "radio"),
    ("Courier tip", "slider"),
    ("Gift wrap", "checkbox"),
    ("Save preferences", "button"),
)
# Content of forms.html inside a display:none block.
HIDDEN_CONTENT: tuple[str, ...] = ("Hidden coupon code", "GHOST-COUPON-9", "Invisible reset")
# Codes with which a driver may admit that it did not report every control.
COVERAGE_CODES = {"report_limit", "target_limit", "work_limit", "unsupported_control", "frame_limit"}
# Sentences of text.html, as NFC text (the page spells "Café" with a combining accent).
TEXT_SENTENCES: tuple[str, ...] = (
    "Special of the day at Café Zoë: crème brûlée.",
    "Ratings: 👍🏽 from 👨‍👩‍👧 and 🇵🇹 visitors.",
    "Greetings: こんにちは, Привет, مرحبا.",
)


def completed(outcome: CallOutcome, clause: str) -> Any:
    expect(
        outcome.raised is None,
        clause,
        f"failed on a plain fixture page: {outcome.describe()}",
    )
    return outcome.raw


def answered(outcome: CallOutcome, clause: str, *, kind_clause: str, none: str) -> Any:
    """The result of a read that has something to report on its page: it completed and is not None (``clause``,
    saying ``none`` when it is), and it is a kind a read may return (``kind_clause``)."""
    raw = completed(outcome, clause)
    check_result_kind(raw, kind_clause, outcome.member)
    expect(raw is not None, clause, none)
    return raw


def element_labelled(raw: Any, label: str, role: str | None = None) -> dict[str, Any] | None:
    for element in read_elements(raw):
        if label.casefold() in str(element.get("label", "")).casefold() and (
            role is None or element.get("role") == role
        ):
            return element
    return None


def check_reported_values(raw: Any) -> None:
    """BR-READ-019: whatever live state the driver chooses to report must be the controls' real state."""
    expectations = {
        ("Recipient name", "value"): ("Ada Lovelace",),
        ("Courier notes", "value"): ("",),
        ("Courier tip", "value"): ("3",),
        ("Delivery city", "value"): ("par", "Paris"),
        ("Gift wrap", "checked"): (True,),
        ("Leave at door", "checked"): (False,),
        ("Express shipping", "checked"): (True,),
        ("Standard shipping", "checked"): (False,),
    }
    for (label, field), allowed in expectations.items():
        element = element_labelled(raw, label)
        if element is not None and field in element:
            expect(
                element[field] in allowed,
                "BR-READ-019",
                f"{label!r} reports {field}={element[field]!r}; the live control has {allowed[0]!r}",
            )
    city = element_labelled(raw, "Delivery city")
    if city is not None and city.get("options"):
        labels = [option.get("label") for option in city["options"]]
        expect(
            labels == ["London", "Paris", "Berlin"],
            "BR-READ-019",
            f"'Delivery city' reports options {labels}; the select offers London, Paris, Berlin",
        )
    slots = element_labelled(raw, "Delivery slots")
    if slots is not None:
        live = {"Morning": True, "Afternoon": False, "Evening": True}
        for option in slots.get("options") or []:
            if "selected" in option and option.get("label") in live:
                expect(
                    option["selected"] is live[option["label"]],
                    "BR-READ-019",
                    f"'Delivery slots' option {option['label']!r} reports selected={option['selected']!r}",
                )


@pytest.mark.page("forms.html")
@pytest.mark.clause(
    "BR-READ-001",
    "BR-READ-004",
    "BR-READ-005",
    "BR-READ-006",
    "BR-READ-007",
    "BR-READ-008",
    "BR-READ-009",
    "BR-READ-010",
    "BR-READ-011",
    "BR-READ-012",
    "BR-READ-014",
    "BR-READ-017",
    "BR-READ-018",
    "BR-READ-019",
)
def test_read_page_reports_the_form(subject: BrowserSubject, env: Environment) -> None:
    outcome = subject.call("read_page", filter="all", tab_id=None)
    raw = answered(
        outcome, "BR-READ-018", kind_clause="BR-READ-001", none="read_page returned None on a page full of controls"
    )
    if isinstance(raw, dict):
        check_read_report(raw, member="read_page")
        admitted_gap = bool(COVERAGE_CODES & set(raw["omitted"]))
        for label, role in FORM_CONTROLS:
            expect(
                element_labelled(raw, label, role) is not None or admitted_gap,
                "BR-READ-018",
                f"no {role} labelled {label!r} among {len(read_elements(raw))} elements, and omitted is "
                f"{raw['omitted']}",
            )
        check_reported_values(raw)
    else:
        text = squash(raw)
        for label, _role in FORM_CONTROLS:
            expect(label in text, "BR-READ-018", f"the text read does not mention the control {label!r}")
    leaked = [part for part in HIDDEN_CONTENT if part in "\n".join(strings_in(raw))]
    expect(not leaked, "BR-READ-017", f"read_page reports hidden content {leaked}")
    outcome.expect_sdk_accepted()


@pytest.mark.page("text.html")
@pytest.mark.clause("BR-READ-002", "BR-READ-004", "BR-READ-012", "BR-READ-013", "BR-READ-014", "BR-READ-015")
def test_page_text_is_reported_intact(subject: BrowserSubject, env: Environment) -> None:
    outcome = subject.call("get_page_text", tab_id=None)
    raw = answered(
        outcome, "BR-READ-015", kind_clause="BR-READ-002", none="get_page_text returned None on a page with text"
    )
    if isinstance(raw, dict):
        check_read_report(raw, member="get_page_text")
        expect(
            raw["elements"] == [],
            "BR-READ-013",
            f"get_page_text returned {len(raw['elements'])} elements; it must return none",
        )
    text = squash(read_text(raw))
    for sentence in TEXT_SENTENCES:
        expect(sentence in text, "BR-READ-015", f"the page text lacks {sentence!r} (got {text[:200]!r})")
    outcome.expect_sdk_accepted()


@pytest.mark.page("empty.html")
@pytest.mark.clause("BR-READ-002", "BR-READ-016")
def test_a_page_without_text_reads_as_empty_text(subject: BrowserSubject, env: Environment) -> None:
    outcome = subject.call("get_page_text", tab_id=None)
    raw = answered(
        outcome,
        "BR-READ-016",
        kind_clause="BR-READ-002",
        none="get_page_text completed on an empty page but returned None",
    )
    expect(
        read_text(raw).strip() == "",
        "BR-READ-016",
        f"the empty page read as {read_text(raw)[:80]!r}",
    )
    outcome.expect_sdk_accepted()


@pytest.mark.page("forms.html")
@pytest.mark.clause("BR-READ-003", "BR-READ-004", "BR-READ-005", "BR-READ-006", "BR-READ-007", "BR-READ-020")
def test_find_reports_the_matching_control(subject: BrowserSubject, env: Environment) -> None:
    outcome = subject.call("find", query="Gift wrap", tab_id=None)
    raw = answered(
        outcome,
        "BR-READ-020",
        kind_clause="BR-READ-003",
        none="find('Gift wrap') returned None although the page has that control",
    )
    if isinstance(raw, dict):
        check_read_report(raw, member="find")
        expect(
            element_labelled(raw, "Gift wrap") is not None,
            "BR-READ-020",
            f"find('Gift wrap') reported no element with that label: {[e.get('label') for e in read_elements(raw)]}",
        )
    else:
        expect("Gift wrap" in squash(raw), "BR-READ-020", f"find('Gift wrap') answered {raw[:120]!r}")
    outcome.expect_sdk_accepted()


def _expect_no_interaction_since(env: Environment, before: int, clause: str, readers: list[str]) -> None:
    """Once the page has settled, it recorded no interaction after ``before``: ``readers`` only read it."""
    env.settle()
    caused = [
        (effect.get("kind"), effect.get("target"))
        for effect in env.effects()[before:]
        if effect.get("kind") in INTERACTION_KINDS
    ]
    expect(not caused, clause, f"reading the page ({', '.join(readers)}) caused page effects {caused}")


@pytest.mark.page("forms.html")
@pytest.mark.clause("BR-READ-021")
def test_reads_change_nothing_on_the_page(subject: BrowserSubject, env: Environment) -> None:
    reads: dict[str, dict[str, Any]] = {
        "read_page": {"filter": "all", "tab_id": None},
        "get_page_text": {"tab_id": None},
        "find": {"query": "Save preferences", "tab_id": None},
    }
    available = [member for member in reads if subject.implements(member)]
    if not available:
        not_implemented("read_page, get_page_text or find")
    env.settle()
    before = len(env.effects())
    for member in available:
        subject.call(member, **reads[member])
        subject.call(member, **reads[member])
    _expect_no_interaction_since(env, before, "BR-READ-021", available)


@pytest.mark.page("sections.html")
@pytest.mark.hints(members=("read_page_scoped", "read_diagnostics"))
@pytest.mark.clause("BR-READ-022")
def test_opt_in_reads_change_nothing_on_the_page(subject: BrowserSubject, env: Environment) -> None:
    available = [member for member in ("read_page_scoped", "read_diagnostics") if subject.implements(member)]
    if not available:
        not_implemented("read_page_scoped or read_diagnostics")
    env.settle()
    before = len(env.effects())
    if "read_page_scoped" in available:
        discovered = subject.call("read_page_scoped", tab_id=None, root=None, depth=32, filter="all")
        raw = discovered.raw
        scopes = raw.get("scopes") if isinstance(raw, dict) else None
        # Every section is read too, not only discovered: a driver could touch the page only inside a scope.
        for scope in scopes if isinstance(scopes, list) else []:
            if isinstance(scope, dict) and isinstance(scope.get("ref"), str):
                subject.call("read_page_scoped", tab_id=None, root=scope["ref"], depth=32, filter="all")
    if "read_diagnostics" in available:
        for source in ("console", "network"):
            subject.call("read_diagnostics", tab_id=None, source=source, limit=20)
    _expect_no_interaction_since(env, before, "BR-READ-022", available)
