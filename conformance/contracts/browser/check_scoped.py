"""Scoped reads (opt-in read_page_scoped): section discovery, scope roots, depth and scope-ref lifetime (BR-SCOPE).

sections.html has labelled landmarks (header, navigation, Itinerary, Payment, footer), a hidden "Archived
offers" section, content nested twelve levels deep inside Itinerary and a private PIN field inside Payment.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.assertions import expect, precondition, precondition_failed, violation
from conformance.harness.environment import Environment
from conformance.harness.subject import BrowserSubject, CallOutcome

from ._expectations import expect_browser_error
from ._reads import PRIVATE_VALUES, check_read_report, contains_any, squash, strings_in, utf8_length, valid_unicode
from ._refs import act_on, first_action, read_elements, require_ref

# Every check here starts on its fixture page; without it the start-page clause is blamed, in setup.
pytestmark = pytest.mark.usefixtures("shows_start_page")


def scoped(subject: BrowserSubject, root: str | None, depth: int = 32, filter: str = "all") -> CallOutcome:
    return subject.call("read_page_scoped", tab_id=None, root=root, depth=depth, filter=filter)


def scoped_report(outcome: CallOutcome) -> dict[str, Any]:
    """BR-SCOPE-001: the result is a structured scoped read; the BrowserReadV1 rules then apply (BR-SCOPE-010)."""
    if outcome.raised is not None:
        violation("BR-SCOPE-001", f"failed on sections.html: {outcome.describe()}")
    raw = outcome.raw
    expect(
        isinstance(raw, dict),
        "BR-SCOPE-001",
        f"read_page_scoped returned {type(raw).__name__}; it must return a BrowserScopedReadV1 dict",
    )
    expect(isinstance(raw.get("scopes"), list), "BR-SCOPE-001", "the scoped read has no scopes list")
    check_read_report(raw, member="read_page_scoped", scoped=True)
    refs = {str(element.get("ref")) for element in read_elements(raw)}
    seen: set[str] = set()
    for index, scope in enumerate(raw["scopes"]):
        spot = f"scope {index}"
        expect(isinstance(scope, dict), "BR-SCOPE-003", f"{spot} is not a dict")
        ref, label = scope.get("ref"), scope.get("label")
        for name, value in (("ref", ref), ("label", label)):
            expect(
                isinstance(value, str) and value != "" and utf8_length(value) <= 256 and valid_unicode(value),
                "BR-SCOPE-003",
                f"{spot} {name} must be nonempty valid text of at most 256 bytes, got {value!r}"[:200],
            )
        expect(ref not in seen, "BR-SCOPE-003", f"{spot} repeats scope ref {ref!r}")
        expect(ref not in refs, "BR-SCOPE-003", f"{spot} ref {ref!r} equals an element ref")
        seen.add(str(ref))
    return dict(raw)


def scope_ref(report: dict[str, Any], label_part: str) -> str | None:
    for scope in report["scopes"]:
        if label_part.casefold() in str(scope.get("label", "")).casefold():
            return str(scope["ref"])
    return None


def discover(subject: BrowserSubject) -> dict[str, Any]:
    outcome = scoped(subject, None)
    report = scoped_report(outcome)
    outcome.expect_sdk_accepted()
    return report


def everything(report: Any) -> str:
    return squash(" ".join(strings_in({"text": report.get("text"), "elements": report.get("elements")})))


@pytest.mark.page("sections.html")
@pytest.mark.clause("BR-SCOPE-001", "BR-SCOPE-002", "BR-SCOPE-003", "BR-SCOPE-006", "BR-SCOPE-010", "BR-PRIV-004")
def test_a_null_root_discovers_the_visible_sections(subject: BrowserSubject, env: Environment) -> None:
    report = discover(subject)
    labels = [str(scope.get("label")) for scope in report["scopes"]]
    for wanted in ("Itinerary", "Payment"):
        expect(
            scope_ref(report, wanted) is not None,
            "BR-SCOPE-002",
            f"no discovered scope is labelled like the {wanted!r} section; scopes: {labels}",
        )
    expect(
        scope_ref(report, "Archived") is None,
        "BR-SCOPE-006",
        f"the hidden 'Archived offers' section is offered as a scope: {labels}",
    )
    leaked = contains_any(report, PRIVATE_VALUES)
    expect(not leaked, "BR-PRIV-004", f"the discovery read discloses private values {leaked}")


@pytest.mark.page("sections.html")
@pytest.mark.clause("BR-SCOPE-004", "BR-SCOPE-005", "BR-SCOPE-010", "BR-PRIV-004")
def test_a_scope_root_and_depth_bound_the_read(subject: BrowserSubject, env: Environment) -> None:
    report = discover(subject)
    payment, itinerary = scope_ref(report, "Payment"), scope_ref(report, "Itinerary")
    precondition(payment and itinerary, "BR-SCOPE-002", "discovery offered no Itinerary and Payment scope refs")
    inside = scoped(subject, payment)
    payment_read = scoped_report(inside)
    content = everything(payment_read)
    expect(
        "card ending 4242" in content or "Cardholder name" in content,
        "BR-SCOPE-004",
        f"the Payment read does not show the Payment section: {content[:200]!r}",
    )
    outside = [part for part in ("three nights in Lisbon", "Book itinerary", "Trip planner header") if part in content]
    expect(not outside, "BR-SCOPE-004", f"the Payment read includes content from other sections: {outside}")
    leaked = contains_any(payment_read, PRIVATE_VALUES)
    expect(not leaked, "BR-PRIV-004", f"the Payment read discloses the private PIN value {leaked}")
    shallow = scoped_report(scoped(subject, itinerary, depth=2))
    deep_controls = [str(e.get("label")) for e in read_elements(shallow) if "Deep itinerary" in str(e.get("label"))]
    expect(
        not deep_controls,
        "BR-SCOPE-005",
        f"a depth-2 read of Itinerary reports a control nested twelve levels down: {deep_controls}",
    )
    # The kit's reading of "depth counts DOM traversal within the root": text the traversal never reached is
    # not part of the read either, even where a browser API could hand over the whole subtree's text at once.
    deep_text = [part for part in ("pack a raincoat",) if part in squash(str(shallow.get("text", "")))]
    expect(
        not deep_text,
        "BR-SCOPE-005",
        f"a depth-2 read of Itinerary reports text nested twelve levels down: {deep_text}",
    )


@pytest.mark.page("sections.html")
@pytest.mark.clause("BR-SCOPE-007", "BR-SCOPE-008")
def test_scope_refs_select_reads_only(subject: BrowserSubject, env: Environment) -> None:
    report = discover(subject)
    payment = scope_ref(report, "Payment")
    if payment is None:
        precondition_failed("BR-SCOPE-002", "discovery offered no Payment scope ref")
    action = first_action(subject)
    env.settle()
    before = len(env.effects())
    outcome = act_on(subject, action, payment)
    expect_browser_error(outcome, "BR-SCOPE-007", f"{action} with the scope ref of the Payment section")
    env.settle()
    caused = [(e.get("kind"), e.get("target")) for e in env.effects()[before:] if e.get("kind") != "load"]
    expect(not caused, "BR-SCOPE-007", f"acting on a scope ref had page effects {caused}")
    issued = {str(scope.get("ref")) for scope in report["scopes"]}
    for selector in ("aside", "#cardholder", "main > p", "//main"):
        if selector in issued:
            continue
        expect_browser_error(scoped(subject, selector), "BR-SCOPE-008", f"read_page_scoped with root {selector!r}")


@pytest.mark.page("sections.html")
@pytest.mark.clause("BR-SCOPE-009")
def test_scope_refs_expire_with_their_document(subject: BrowserSubject, env: Environment) -> None:
    subject.require("read_page_scoped", "navigate")
    report = discover(subject)
    payment = scope_ref(report, "Payment")
    precondition(payment, "BR-SCOPE-002", "discovery offered no Payment scope ref")
    moved = subject.call("navigate", url=env.url("forms.html"), tab_id=None)
    precondition(moved.raised is None, "BR-NAV-001", f"navigating to a permitted page: {moved.describe()}")
    expect_browser_error(scoped(subject, payment), "BR-SCOPE-009", "read_page_scoped with a scope ref of the old page")


def _change_sections(subject: BrowserSubject, env: Environment, button: str, fragment: str, effect: str) -> None:
    """Re-render or hide a section of sections-live.html: by its button, or by its fragment without click."""
    if subject.implements("click"):
        moved = subject.call("click", target=require_ref(subject, "click", button), tab_id=None)
    else:
        subject.require("navigate")
        moved = subject.call("navigate", url=env.url(f"sections-live.html#{fragment}"), tab_id=None)
    precondition(moved.raised is None, "BR-SCOPE-011", f"changing the section: {moved.describe()}")
    env.wait_for_effect(effect, timeout=10)


@pytest.mark.page("sections-live.html")
@pytest.mark.clause("BR-SCOPE-011")
# It re-renders and hides sections by clicking buttons (when the driver has click).
@pytest.mark.requires("BR-ACT-002")
def test_scope_refs_expire_when_their_section_is_re_rendered_or_hidden(
    subject: BrowserSubject, env: Environment
) -> None:
    subject.require("read_page_scoped")
    report = discover(subject)
    offers, notes = scope_ref(report, "Live offers"), scope_ref(report, "Trip notes")
    precondition(offers and notes, "BR-SCOPE-002", "discovery offered no 'Live offers' and 'Trip notes' scope refs")
    _change_sections(subject, env, "Re-render live offers", "rerender", "rerendered")
    expect_browser_error(
        scoped(subject, offers), "BR-SCOPE-011", "read_page_scoped with the scope ref of a section since re-rendered"
    )
    _change_sections(subject, env, "Hide trip notes", "hide", "hidden")
    expect_browser_error(
        scoped(subject, notes), "BR-SCOPE-011", "read_page_scoped with the scope ref of a section since hidden"
    )
