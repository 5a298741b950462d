"""Reads: the rules of a structured page read (BrowserReadV1), its text, and the fixtures' private values.

Every rule here fails through ``expect`` with the one clause it belongs to, so a check that validates a read
with :func:`check_read_report` blames the exact clause a driver broke.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import Any

from conformance.assertions import ClauseViolation, PreconditionFailed, expect
from conformance.harness.subject import CallOutcome
from conformance.members import OMISSION_CODES, READ_ROLES

# Values the fixture pages put into private fields (private.html, sections.html). They never appear in any
# markup, so the only way a report can contain them is by reading the live field.
PRIVATE_VALUES: tuple[str, ...] = ("pw-Zebra-7731", "481913", "pin-3571")


# Pieces of text that only appear when an error message passes on a library's exception or traceback
# (compared case-insensitively). Ordinary safe wording such as "Error:" or "waiting for" is deliberately absent.
RAW_ERROR_MARKERS: tuple[str, ...] = (
    "traceback",
    'file "',
    "call log",
    "playwright",
    "locator(",
    "timeouterror",
    "=====",
    "selenium",
    "puppeteer",
    "devtools",
)


def utf8_length(text: str) -> int:
    return len(text.encode("utf-8", errors="surrogatepass"))


def valid_unicode(text: str) -> bool:
    """True when ``text`` holds only Unicode scalar values (no lone surrogates)."""
    return re.search(r"[\ud800-\udfff]", text) is None


def strings_in(value: Any) -> Iterator[str]:
    """Every string anywhere inside a report (keys included), for scanning it for secrets."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings_in(key)
            yield from strings_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from strings_in(item)


def contains_any(value: Any, needles: Iterable[str]) -> list[str]:
    """The needles that occur in any string inside ``value``."""
    haystack = "\n".join(strings_in(value))
    return [needle for needle in needles if needle in haystack]


def read_text(raw: Any) -> str:
    """The text of a read result: the string itself, a structured read's text, or "" for None."""
    if isinstance(raw, str):
        return raw
    if isinstance(raw, dict) and isinstance(raw.get("text"), str):
        return str(raw["text"])
    return ""


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def squash(text: str) -> str:
    """Whitespace-normalized NFC text, so a check compares content rather than layout."""
    return " ".join(nfc(text).split())


def check_result_kind(raw: Any, clause: str, member: str) -> None:
    """BR-READ-001/002/003: a plain read member answers None, a string or a dict."""
    expect(
        raw is None or isinstance(raw, (str, dict)),
        clause,
        f"{member} returned {type(raw).__name__}; only None, a string or a BrowserReadV1 dict are allowed",
    )


def check_read_report(raw: dict[str, Any], *, member: str, scoped: bool = False) -> None:
    """Every BrowserReadV1 rule a driver owns, each failing on its own clause.

    For ``read_page_scoped`` (``scoped=True``) the same rules fail on BR-SCOPE-010 instead, since the scoped
    report extends BrowserReadV1 rather than being one of the three plain reads.
    """

    def rule(clause: str) -> str:
        return "BR-SCOPE-010" if scoped else clause

    expect(
        type(raw.get("version")) is int and raw.get("version") == 1,
        rule("BR-READ-004"),
        f"{member}: version must be the integer 1, got {raw.get('version')!r}",
    )
    expect(isinstance(raw.get("text"), str), rule("BR-READ-004"), f"{member}: text must be a string")
    expect(isinstance(raw.get("elements"), list), rule("BR-READ-004"), f"{member}: elements must be a list")
    expect(isinstance(raw.get("omitted"), list), rule("BR-READ-004"), f"{member}: omitted must be a list")
    expect(
        valid_unicode(raw["text"]),
        rule("BR-READ-014"),
        f"{member}: text contains a lone surrogate",
    )
    refs: list[str] = []
    for index, element in enumerate(raw["elements"]):
        where = f"{member}: element {index}"
        expect(isinstance(element, dict), rule("BR-READ-004"), f"{where} is not an object")
        ref, role, label = element.get("ref"), element.get("role"), element.get("label")
        expect(isinstance(ref, str) and ref != "", rule("BR-READ-005"), f"{where} has no string ref")
        expect(ref not in refs, rule("BR-READ-005"), f"{where} repeats ref {ref!r}")
        refs.append(ref)
        expect(role in READ_ROLES, rule("BR-READ-006"), f"{where} has role {role!r}, not one of {READ_ROLES}")
        expect(isinstance(label, str) and label.strip() != "", rule("BR-READ-007"), f"{where} has an empty label")
        expect(utf8_length(ref) <= 256, rule("BR-READ-008"), f"{where}: ref is {utf8_length(ref)} bytes")
        expect(utf8_length(label) <= 256, rule("BR-READ-008"), f"{where}: label is {utf8_length(label)} bytes")
        expect(
            valid_unicode(ref) and valid_unicode(label),
            rule("BR-READ-014"),
            f"{where}: ref or label contains a lone surrogate",
        )
        if "value" in element:
            value = element["value"]
            expect(isinstance(value, str), rule("BR-READ-009"), f"{where}: value is {type(value).__name__}")
            expect(utf8_length(value) <= 512, rule("BR-READ-009"), f"{where}: value is {utf8_length(value)} bytes")
            expect(valid_unicode(value), rule("BR-READ-014"), f"{where}: value contains a lone surrogate")
        if "checked" in element:
            expect(
                role in ("checkbox", "radio") and type(element["checked"]) is bool,
                rule("BR-READ-010"),
                f"{where}: checked={element['checked']!r} on role {role!r}",
            )
        for option_index, option in enumerate(element.get("options") or []):
            spot = f"{where} option {option_index}"
            expect(isinstance(option, dict), rule("BR-READ-009"), f"{spot} is not an object")
            option_label, option_value = option.get("label"), option.get("value")
            expect(
                isinstance(option_label, str) and option_label != "" and utf8_length(option_label) <= 256,
                rule("BR-READ-009"),
                f"{spot}: label must be nonempty and at most 256 bytes, got {option_label!r}",
            )
            expect(
                isinstance(option_value, str) and utf8_length(option_value) <= 512,
                rule("BR-READ-009"),
                f"{spot}: value must be a string of at most 512 bytes, got {option_value!r}",
            )
            if "selected" in option:
                expect(
                    role == "listbox" and type(option["selected"]) is bool,
                    rule("BR-READ-011"),
                    f"{spot}: selected={option['selected']!r} on role {role!r}",
                )
    codes = raw["omitted"]
    expect(
        all(code in OMISSION_CODES for code in codes),
        rule("BR-READ-012"),
        f"{member}: unknown omission codes {[code for code in codes if code not in OMISSION_CODES]}",
    )
    expect(len(set(codes)) == len(codes), rule("BR-READ-012"), f"{member}: repeated omission codes {codes}")


def expect_read_accepted(outcome: CallOutcome) -> None:
    """A read a check uses as a tool was accepted by the SDK; if not, blame the BrowserReadV1 rule it breaks.

    The SDK refuses a read that breaks a rule the read checks judge on their own clauses (a repeated ref, an
    unknown role, ...): the check using the read is blocked by that rule, not only by the SDK's refusal.
    """
    if outcome.sdk_error is None:
        return
    raw = outcome.raw
    if isinstance(raw, dict):
        try:
            check_read_report(raw, member=outcome.member, scoped=outcome.member == "read_page_scoped")
        except ClauseViolation as broken:
            raise PreconditionFailed(broken.clause_id, f"{broken.detail}, so {outcome.describe()}") from None
    outcome.expect_sdk_accepted()
