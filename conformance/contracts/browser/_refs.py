"""Refs: finding the controls a check acts on, from the driver's own structured reads, and trying them.

A ref is the driver's handle for a control (the Python guide, 000, "Driver contract": drivers define the meaning
and lifetime of target IDs in page reads). Every helper that can fail names the clause it fails or reports the
member it could not exercise, so a check blames the clause under test and nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from conformance.assertions import not_implemented, precondition_failed, unverified
from conformance.harness.environment import Environment
from conformance.harness.subject import BrowserSubject, CallOutcome

from ._effects import start_page, start_page_shown
from ._reads import expect_read_accepted

# A ref no driver issues: the kit's own prefix plus a suffix no page could produce by accident.
NEVER_ISSUED_REF = "driverkit-never-issued-ref-7f3a"


# The members that can hand out refs, in the order the kit asks them.
REF_SOURCES = ("read_page", "find", "read_page_scoped")


# How many discovered sections a scoped read is asked about when the null root did not list a control.
_SCOPES_TRIED = 8


def _structured_elements(outcome: CallOutcome, notes: list[str]) -> list[Mapping[str, Any]] | None:
    """The elements of a structured read, or None with a note saying why this read offered no refs.

    A read whose result or state the SDK rejected is a defect of its own (the run would stop), not a reason
    to call the member under test unverified.
    """
    expect_read_accepted(outcome)
    if outcome.raised is not None or outcome.member_call is None:
        notes.append(outcome.describe())
        return None
    report = outcome.raw
    if not isinstance(report, Mapping) or not isinstance(report.get("elements"), list):
        kind = "text" if isinstance(report, str) else type(report).__name__
        notes.append(f"{outcome.member} returned {kind}, not a structured read")
        return None
    return [element for element in report["elements"] if isinstance(element, Mapping)]


def _lists(elements: Sequence[Mapping[str, Any]], labels: Sequence[str]) -> bool:
    return all(ref_of(elements, label) is not None for label in labels)


def _scoped_elements(
    subject: BrowserSubject, labels: Sequence[str], filter_: str, notes: list[str]
) -> list[Mapping[str, Any]]:
    """Elements from read_page_scoped: the null root first, then each discovered section until all are listed."""

    def read(root: str | None) -> CallOutcome:
        return subject.call("read_page_scoped", tab_id=None, root=root, depth=32, filter=filter_)

    discovered = read(None)
    merged = list(_structured_elements(discovered, notes) or [])
    scopes = discovered.raw.get("scopes") if isinstance(discovered.raw, Mapping) else None
    for scope in (scopes if isinstance(scopes, list) else [])[:_SCOPES_TRIED]:
        if _lists(merged, labels):
            break
        if isinstance(scope, Mapping) and isinstance(scope.get("ref"), str):
            merged += _structured_elements(read(str(scope["ref"])), notes) or []
    return merged


def structured_elements(subject: BrowserSubject, *labels: str, filter_: str = "all") -> list[Mapping[str, Any]] | None:
    """Elements listing every control in ``labels`` from the first structured read the driver offers, or None.

    read_page is asked first, then find (one query per label), then read_page_scoped: a driver whose
    read_page returns text can still be targeted through either. None means no source listed them all.
    """
    return _elements_from_sources(subject, labels, filter_, [])


def _elements_from_sources(
    subject: BrowserSubject, labels: Sequence[str], filter_: str, notes: list[str]
) -> list[Mapping[str, Any]] | None:
    if subject.implements("read_page"):
        elements = _structured_elements(subject.call("read_page", filter=filter_, tab_id=None), notes)
        if elements is not None and _lists(elements, labels):
            return elements
        if elements is not None:
            notes.append(f"read_page listed no control labelled {_missing(elements, labels)}")
    if labels and subject.implements("find"):
        found: list[Mapping[str, Any]] = []
        for label in labels:
            found += _structured_elements(subject.call("find", query=label, tab_id=None), notes) or []
        if _lists(found, labels):
            return found
    if subject.implements("read_page_scoped"):
        scoped = _scoped_elements(subject, labels, filter_, notes)
        if scoped and _lists(scoped, labels):
            return scoped
    return None


def _missing(elements: Sequence[Mapping[str, Any]], labels: Sequence[str]) -> str:
    return ", ".join(repr(label) for label in labels if ref_of(elements, label) is None)


def elements_for(subject: BrowserSubject, member: str, *labels: str, filter_: str = "all") -> list[Mapping[str, Any]]:
    """Elements listing the controls ``member`` will be tried on; without them ``member`` is unverified.

    A driver that implements ``member`` but offers no structured read listing those controls cannot be
    exercised on them: that is not a breach of the clause under test (reads are judged by their own checks),
    and not "not implemented" either, so the check reports ``member`` as unverified and says what would help.
    """
    subject.require(member)
    start_page_shown(subject)
    notes: list[str] = []
    elements = _elements_from_sources(subject, labels, filter_, notes)
    if elements is not None:
        return elements
    offered = [source for source in REF_SOURCES if subject.implements(source)]
    tried = f" (tried: {'; '.join(notes)})" if notes else ""
    unverified(
        member,
        f"the kit needs a ref for {' and '.join(repr(label) for label in labels) or 'a control'}: "
        f"{'/'.join(offered) or 'no read member'} must return a structured read (BrowserReadV1) "
        f"listing it{tried}",
    )


def read_elements(raw: Any) -> list[dict[str, Any]]:
    if isinstance(raw, dict) and isinstance(raw.get("elements"), list):
        return [element for element in raw["elements"] if isinstance(element, dict)]
    return []


def ref_of(elements: Iterable[Mapping[str, Any]], label: str, *, role: str | None = None) -> str | None:
    """The ref of the first element whose label contains ``label`` (case-insensitive), or None."""
    wanted = label.casefold()
    for element in elements:
        if role is not None and element.get("role") != role:
            continue
        if wanted in str(element.get("label", "")).casefold() and isinstance(element.get("ref"), str):
            return str(element["ref"])
    return None


def find_ref(elements: Sequence[Mapping[str, Any]], label: str, *, role: str | None = None) -> str:
    """The ref of the control labelled ``label`` in elements :func:`elements_for` returned (so it is there)."""
    ref = ref_of(elements, label, role=role)
    if ref is None:
        labels = [str(element.get("label")) for element in elements][:30]
        raise AssertionError(f"precondition: no control labelled {label!r} among {labels}")
    return ref


def require_ref(
    subject: BrowserSubject, member: str, label: str, *, role: str | None = None, filter_: str = "all"
) -> str:
    """A ref for the control labelled ``label``, from a fresh structured read, to call ``member`` with."""
    return find_ref(elements_for(subject, member, label, filter_=filter_), label, role=role)


def structured_read(
    subject: BrowserSubject, *, filter: str = "all", tab_id: str | None = None, for_member: str | None = None
) -> dict[str, Any]:
    """A read_page result as a structured read; checks about refs cannot run on a text-only driver.

    Without one, ``for_member`` (the action the check would try refs with) is reported unverified: the driver
    has it, the kit could not exercise it. A check about read_page's own refs passes no member: a text read
    issues no refs, so the optional structured form is what the driver does not implement.
    """
    subject.require("read_page")
    outcome = subject.call("read_page", filter=filter, tab_id=tab_id)
    raw = outcome.raw
    if outcome.raised is not None and for_member is None:
        # A read of an ordinary fixture page that raises is read_page's own defect, which the read checks judge.
        precondition_failed("BR-READ-018", f"reading {start_page(subject.env)}: {outcome.describe()}")
    if outcome.raised is not None:
        unverified(str(for_member), f"{outcome.describe()}, so the kit found no ref to try")
    if not isinstance(raw, dict) and for_member is None:
        not_implemented("read_page returning BrowserReadV1 (refs are only observable in structured reads)")
    if not isinstance(raw, dict):
        unverified(
            str(for_member),
            f"read_page returned {type(raw).__name__}; refs can only be checked when it returns a structured "
            "read (BrowserReadV1)",
        )
    return raw


def first_action(subject: BrowserSubject) -> str:
    """An element action the driver implements, for checks that need to try a ref (click preferred)."""
    for member in ("click", "hover", "scroll_to"):
        if subject.implements(member):
            return member
    not_implemented("click, hover or scroll_to (an element action to try refs with)")


def act_on(subject: BrowserSubject, member: str, ref: str, tab_id: str | None = None) -> CallOutcome:
    return subject.call(member, target=ref, tab_id=tab_id)


def activation_effects(env: Environment, probe: str) -> list[Any]:
    """Effects showing that the element with ``data-probe=probe`` was clicked, hovered or focused."""
    return [
        effect
        for effect in env.effects()
        if effect.get("target") == probe and effect.get("kind") in ("click", "mouseover", "mousedown", "focus")
    ]
