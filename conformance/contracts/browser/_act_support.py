"""Shared steps for the browser action checks: finding refs, reading tabs, waiting on page effects, images.

Every helper that can fail names the clause it fails, so a check's certificate blames the clause under test
instead of every clause the check declares.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import quote, urlsplit

from PIL import Image

from conformance.assertions import expect, unverified, violation
from conformance.harness.environment import Effect, Environment
from conformance.harness.errors import describe_error
from conformance.harness.subject import BrowserSubject, CallOutcome

from ._effects import INPUT_KINDS
from ._tabs import tabs_of

# A ref no driver issues: the kit's own prefix plus a suffix no page could produce by accident.
NEVER_ISSUED_REF = "driverkit-never-issued-ref-7f3a"
NEVER_ISSUED_TAB = "driverkit-never-issued-tab-7f3a"


# --- refs from a structured read ---------------------------------------------------------------------------

# The members that can hand out refs, in the order the kit asks them.
REF_SOURCES = ("read_page", "find", "read_page_scoped")
# How many discovered sections a scoped read is asked about when the null root did not list a control.
_SCOPES_TRIED = 8


def _structured_elements(outcome: CallOutcome, notes: list[str]) -> list[Mapping[str, Any]] | None:
    """The elements of a structured read, or None with a note saying why this read offered no refs.

    A read whose result or state the SDK rejected is a defect of its own (the run would stop), not a reason
    to call the member under test unverified.
    """
    outcome.expect_sdk_accepted()
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


# --- state -------------------------------------------------------------------------------------------------


def state_problem(state: Any) -> str | None:
    """Why ``state`` breaks the tab invariants (unique string IDs, exactly one active tab), or None."""
    tabs = tabs_of(state)
    ids = [tab.get("id") for tab in tabs]
    if not all(isinstance(tab_id, str) for tab_id in ids):
        return f"tab IDs are not all strings: {ids!r}"
    if len(set(ids)) != len(ids):
        return f"tab IDs repeat: {ids!r}"
    active = sum(1 for tab in tabs if tab.get("active") is True)
    if tabs and active != 1:
        return f"{active} tabs are marked active"
    return None


def current_state(subject: BrowserSubject, clause: str) -> Any:
    """state() read directly; failing to report state is a failure of ``clause``."""
    try:
        return subject.state()
    except Exception as error:
        violation(clause, f"state() raised {describe_error(error)}")


def expect_valid_state(subject: BrowserSubject, clause: str, after: str) -> Any:
    state = current_state(subject, clause)
    problem = state_problem(state)
    expect(problem is None, clause, f"after {after}, state() is inconsistent: {problem}")
    return state


# --- outcomes ----------------------------------------------------------------------------------------------


def describe(outcome: CallOutcome) -> str:
    return outcome.describe()


def expect_done(outcome: CallOutcome, clause: str) -> None:
    """The member ran without raising (otherwise its effect cannot be checked, and ``clause`` is broken)."""
    expect(outcome.raised is None and outcome.member_call is not None, clause, f"the call failed: {describe(outcome)}")


def expect_refused(outcome: CallOutcome, clause: str, why: str) -> None:
    """The driver refused the call by raising; a normal return would claim an action it must not perform."""
    expect(outcome.member_call is not None, clause, f"{outcome.describe()} ({why})")
    expect(outcome.raised is not None, clause, f"{why}, but {describe(outcome)}")


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


# --- page effects ------------------------------------------------------------------------------------------


# The clause a check blames when the driver never showed the page the check starts on: every later
# judgement would be about a page that is not there, so no other clause can be blamed for it.
START_PAGE_CLAUSE = "BR-STATE-005"
# A slow but correct driver may take a while to show its first page; only a missing page is a defect.
START_PAGE_SECONDS = 20.0


def start_page(env: Environment) -> str:
    """The fixture page (file name) the check's driver was created to show."""
    return urlsplit(env.start_url).path.rsplit("/", 1)[-1] or "blank.html"


def start_page_shown(subject: BrowserSubject) -> Effect:
    """The start page's own load record: the precondition of every check that judges what happens on it.

    Without it the check fails on :data:`START_PAGE_CLAUSE`, never on the clause it was about to judge.
    """
    page = start_page(subject.env)
    loaded = subject.env.poll_effect("load", lambda effect: effect.get("page") == page, START_PAGE_SECONDS)
    if loaded is None:
        seen = sorted({str(effect.get("page")) for effect in subject.env.effects("load")})
        violation(
            START_PAGE_CLAUSE,
            f"the start page {page} never recorded loading within {START_PAGE_SECONDS:g} s "
            f"(pages that loaded: {', '.join(seen) or 'none'}): the driver did not show env.start_url in its "
            "active tab, or its network policy blocked the page's recorder posting to the kit's own origin",
        )
    return loaded


def mark(subject: BrowserSubject) -> int:
    """A position in the effect record after the page has gone quiet; later effects are the call's.

    The start page's own load record comes first (its absence fails :data:`START_PAGE_CLAUSE`): a beacon
    still in flight from it would otherwise land after the mark and be taken for an effect of the call.
    """
    start_page_shown(subject)
    subject.env.settle()
    return len(subject.env.effects())


def since(env: Environment, position: int, kind: str | None = None) -> list[Effect]:
    """Effects recorded after ``position``, in the order the page made them.

    Beacons can reach the server out of order, so arrival order is not event order. Within one page the
    recorder's ``seq`` is; a window spanning several pages keeps arrival order, as no shared clock exists.
    """
    window = env.effects()[position:]
    if len({(effect.get("page"), effect.get("origin")) for effect in window}) == 1:
        window = sorted(window, key=lambda effect: int(effect.get("seq", 0)))
    return [effect for effect in window if kind is None or effect.get("kind") == kind]


def input_effects_since(env: Environment, position: int, *, ignore: Iterable[str] = ()) -> list[Effect]:
    skipped = set(ignore)
    return [effect for effect in since(env, position) if effect.get("kind") in INPUT_KINDS - skipped]


def await_effect(
    subject: BrowserSubject,
    clause: str,
    kind: str,
    predicate: Callable[[Effect], bool] | None = None,
    *,
    timeout: float = 5.0,
    what: str,
) -> Effect:
    """The first matching effect, or a failure of ``clause`` saying what the page never saw."""
    found = subject.env.poll_effect(kind, predicate, timeout)
    if found is None:
        seen = sorted({str(effect.get("kind")) for effect in subject.env.effects()})
        silence = subject.env.silence()
        violation(
            clause,
            f"the page never recorded {what} within {timeout:g} s (it recorded: {', '.join(seen) or 'nothing'})"
            + (f"; {silence}" if silence else ""),
        )
    return found


def await_new_effect(
    subject: BrowserSubject,
    clause: str,
    position: int,
    kind: str,
    predicate: Callable[[Effect], bool] | None = None,
    *,
    timeout: float = 5.0,
    what: str,
) -> Effect:
    """Like :func:`await_effect`, but only effects recorded after ``position`` count.

    A wait for a page that was already shown once (the start page loading again in another tab) must not be
    satisfied by that earlier record: a driver may return from navigate before the new page has loaded.
    """
    earlier = {id(effect) for effect in subject.env.effects()[:position]}  # the store hands out the same records
    return await_effect(
        subject,
        clause,
        kind,
        lambda effect: id(effect) not in earlier and (predicate is None or predicate(effect)),
        timeout=timeout,
        what=what,
    )


def near(effect: Effect, x: int, y: int, tolerance: int = 1) -> bool:
    return abs(int(effect.get("x", -9999)) - x) <= tolerance and abs(int(effect.get("y", -9999)) - y) <= tolerance


def page_viewport(subject: BrowserSubject, page: str) -> tuple[int, int]:
    """The CSS viewport the page itself measured when it loaded."""
    if page == start_page(subject.env):
        loaded: Effect | None = start_page_shown(subject)
    else:
        loaded = subject.env.poll_effect("load", lambda effect: effect.get("page") == page)
    if loaded is None:
        silence = subject.env.silence(page)
        raise AssertionError(f"precondition: {page} never recorded loading{f' ({silence})' if silence else ''}")
    return int(loaded["width"]), int(loaded["height"])


def brief(effects: Sequence[Effect], limit: int = 6) -> str:
    keep = ("kind", "target", "x", "y", "button", "detail", "key", "value", "values", "checked", "modifiers")
    return json.dumps([{k: e[k] for k in keep if k in e} for e in effects[:limit]])


# --- the other origin --------------------------------------------------------------------------------------


def with_other(env: Environment, page: str, **query: str) -> str:
    """URL of ``page`` on the permitted origin, told (``?other=``) where this session lives on the other origin."""
    parts = [f"other={quote(env.url('blank.html', origin='other'), safe='')}"]
    parts += [f"{key}={quote(value, safe='')}" for key, value in query.items()]
    return env.url(f"{page}?{'&'.join(parts)}")


def other_origin_contacts(env: Environment) -> list[str]:
    """Every sign that something in the browser reached the non-permitted origin: requests and page records."""
    seen = [f"{request.method} {request.path}?{request.query}" for request in env.requests("other")]
    seen += [
        f"effect {effect.get('kind')} from {effect.get('page')}"
        for effect in env.effects()
        if effect.get("origin") == "other"
    ]
    return seen


# --- images ------------------------------------------------------------------------------------------------

PERMITTED_IMAGE_KEYS = frozenset({"type", "image_url", "file_id", "detail", "prompt_cache_breakpoint"})


def decode_image(image: Any, clause: str, member: str = "screenshot") -> Image.Image:
    """The pixels of an input_image's data URL; a file_id alone is valid but cannot be inspected here.

    Such an image leaves ``member`` unverified: it is valid, but the kit cannot see what it shows.
    """
    expect(isinstance(image, Mapping), clause, f"the image result is {type(image).__name__}, not a dict")
    url = image.get("image_url")
    if not isinstance(url, str) or not url:
        if image.get("file_id"):
            unverified(member, "the kit can only inspect images returned as a data-URL image_url, not a file_id")
        violation(clause, "the image has neither image_url nor file_id")
    if not url.startswith("data:"):
        unverified(member, "the kit can only inspect images returned as a data-URL image_url (it fetches no URLs)")
    header, _, payload = url.partition(",")
    expect(";base64" in header, clause, f"the data URL is not base64 ({header[:40]!r})")
    try:
        data = base64.b64decode(payload, validate=True)
        picture = Image.open(io.BytesIO(data))
        picture.load()
    except (binascii.Error, ValueError, OSError) as error:
        violation(clause, f"the data URL does not decode to an image: {type(error).__name__}")
    return picture.convert("RGB")


def share_of_colour(
    picture: Image.Image,
    colour: tuple[int, int, int],
    box: tuple[int, int, int, int] | None = None,
    tolerance: int = 60,
) -> float:
    """The share of pixels in ``box`` (default: all) within ``tolerance`` of ``colour`` on every channel."""
    region = picture.crop(box) if box else picture
    small = region.resize((max(1, region.width // 4), max(1, region.height // 4)))
    raw = small.convert("RGB").tobytes()  # portable across Pillow versions (getdata is deprecated)
    pixels = [raw[index : index + 3] for index in range(0, len(raw), 3)]
    if not pixels:
        return 0.0
    close = sum(1 for pixel in pixels if all(abs(int(a) - b) <= tolerance for a, b in zip(pixel, colour, strict=True)))
    return close / len(pixels)
