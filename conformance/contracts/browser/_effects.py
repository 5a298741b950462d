"""Effects: what the fixture pages record of what happened to them, and waiting for it.

The pages post each event (a click, a key, a load, a contact with the other origin) to the kit's fixture
server; a check takes a mark, calls the driver and reads what was recorded after it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any
from urllib.parse import quote, urlsplit

from conformance import resources
from conformance.assertions import expect, not_checked, precondition_failed, violation
from conformance.harness import page_layout
from conformance.harness.environment import Effect, Environment
from conformance.harness.errors import bounded
from conformance.harness.subject import BrowserSubject

from ._tabs import TITLE_BYTES, active_tab, is_title_cut

# The page was clicked, typed into, keyed or scrolled: a read must cause none of these.
INTERACTION_KINDS: frozenset[str] = frozenset(
    {
        "click",
        "dblclick",
        "contextmenu",
        "auxclick",
        "mousedown",
        "mouseup",
        "input",
        "change",
        "keydown",
        "keyup",
        "scroll",
        "wheel",
    }
)


# Any input at all, hovering included: reads, waits and refused calls must cause none of these.
INPUT_KINDS: frozenset[str] = INTERACTION_KINDS | {"mouseover"}


# The clause a check blames when the driver never showed the page the check starts on: every later
# judgement would be about a page that is not there, so no other clause can be blamed for it.
START_PAGE_CLAUSE = "BR-STATE-005"


# A slow but correct driver may take a while to show its first page; only a missing page is a defect.
START_PAGE_SECONDS = 20.0
# Once a driver has missed its start page for the full deadline in this process, later checks wait only this long:
# the clause has failed already, and a driver that never shows its start page would otherwise cost the full
# deadline in every check (20 s times 78 checks: 26 minutes of waiting to learn of one defect).
START_PAGE_SECONDS_AFTER_A_MISS = 3.0
# Once a check has proved that the start page is shown but its reports never reach the kit (a network guard that
# blocks the kit's own fixture origin), no later page will report either: later checks look only this long.
START_PAGE_SECONDS_WHEN_SILENT = 0.5


class _StartPageDeadline:
    """How long this process waits for a start page: the full deadline until the first miss, then the short one,
    and hardly at all once a shown page has proved its reports are blocked.

    Silence proves a blocked report only while no page of this process has ever reported: once one has, the kit's
    origin is reachable and a later silent page was slow (an overloaded machine), which must not turn every later
    check into a finding about the driver's network guard.
    """

    def __init__(self) -> None:
        self.missed_once = False
        self.reports_blocked = False
        self.reports_arrived = False

    def arrived(self) -> None:
        self.reports_arrived = True
        self.reports_blocked = False

    def seconds(self) -> float:
        if self.reports_blocked:
            return START_PAGE_SECONDS_WHEN_SILENT
        return START_PAGE_SECONDS_AFTER_A_MISS if self.missed_once else START_PAGE_SECONDS


_deadline = _StartPageDeadline()


def start_page(env: Environment) -> str:
    """The fixture page (file name) the check's driver was created to show."""
    return urlsplit(env.start_url).path.rsplit("/", 1)[-1] or "blank.html"


def start_page_shown(subject: BrowserSubject) -> Effect:
    """The start page's own load record: the precondition of every check that judges what happens on it.

    Without it the check is blocked by :data:`START_PAGE_CLAUSE`, never failed on the clause it was about to judge,
    unless the page is shown and only its reports are missing: the kit served the page and the driver's own
    ``state()`` puts it in the active tab (by its URL, or by its title or a character-boundary cut of it), so the
    page is there but cannot reach the kit's fixture origin. That is a finding about where the run's traffic may
    go (not checked, with the fix), and later checks stop waiting for it.
    """
    page = start_page(subject.env)
    seconds = _deadline.seconds()
    loaded = subject.env.poll_effect("load", effect_with(page=page), seconds)
    if loaded is not None:
        _deadline.arrived()
        return loaded
    # Evidence the kit does not need the page's help for: what the driver reads from its own browser.
    tab = _active_tab(subject)
    title = str(tab.get("title", "")).strip() if tab is not None else None
    # Reports that arrive only now, while the driver was inside that state() call, were held, not refused.
    late = subject.env.poll_effect("load", effect_with(page=page), START_PAGE_SECONDS_WHEN_SILENT)
    if late is not None:
        _deadline.reports_blocked = True
        precondition_failed(
            START_PAGE_CLAUSE,
            f"{page} loaded, but its reports reached the kit only while the driver was inside a later call (its "
            "state()): the driver holds its pages' requests between calls (a sync Playwright route handler runs "
            "only while its thread is in a Playwright call), so nothing a page does by itself gets through",
        )
    evidence = _shown_by(tab, subject.env.start_url, page)
    if evidence is not None and subject.env.was_served(page):
        shown = f"{page} is shown (state() reports {evidence})"
        if _deadline.reports_arrived:
            not_checked(
                f"{shown} but its load report did not arrive within {seconds:g} s, although earlier pages' reports "
                "reached the kit in this run: the machine was too slow for this check (or the driver let this "
                "page's reports through less readily than others')"
            )
        _deadline.reports_blocked = True
        not_checked(
            f"{shown} but its reports never reach the kit: "
            f"let the driver's network guard allow the kit's fixture origins ({', '.join(subject.env.allowed_origins)})"
        )
    shortened = _deadline.missed_once
    _deadline.missed_once = True
    seen = sorted({str(effect.get("page")) for effect in subject.env.effects("load")})
    instead = f" (its state() reports an active tab titled {bounded(title, 80)!r})" if title is not None else ""
    precondition_failed(
        START_PAGE_CLAUSE,
        f"the start page {page} never recorded loading within {seconds:g} s"
        f"{f' (an earlier check already waited {START_PAGE_SECONDS:g} s for its own)' if shortened else ''} "
        f"(pages that loaded: {', '.join(seen) or 'none'}): the driver did not show env.start_url in its "
        f"active tab{instead}",
    )


def _title_of(page: str) -> str | None:
    """The <title> of a fixture page, as its file says."""
    try:
        text = resources.pages(page.split("?", 1)[0]).read_text("utf-8")
    except OSError:
        return None
    found = page_layout.title(text)
    return found.strip() if found is not None else None


def _shown_by(tab: dict[str, Any] | None, start_url: str, page: str) -> str | None:
    """What in the driver's active tab says the (served) start page is in it, or None.

    Either sign is enough: a driver may report a fixed title of its own (the title is judged by its own checks),
    or cut a long one at a character boundary within the 1,024 bytes the documents allow.
    """
    if tab is None:
        return None
    url = str(tab.get("url", ""))
    if url == start_url:
        return f"its URL {bounded(url, 80)!r}"
    title, full = str(tab.get("title", "")).strip(), _title_of(page)
    if full is None or not title:
        return None
    if title == full or (len(full.encode("utf-8")) > TITLE_BYTES and is_title_cut(title, full)):
        return f"its title {bounded(title, 60)!r}"
    return None


def _active_tab(subject: BrowserSubject) -> dict[str, Any] | None:
    """The active tab of the driver's own state() report, or None."""
    try:
        return active_tab(subject.state())
    except Exception:  # the state report is judged by its own checks; here it is only evidence
        return None


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


def expect_untouched(env: Environment, position: int, clause: str, member: str, *, ignore: Iterable[str] = ()) -> None:
    """``member`` only looked: the page recorded no input after ``position`` (a :func:`mark`), or ``clause`` fails."""
    touched = input_effects_since(env, position, ignore=ignore)
    expect(not touched, clause, f"{member} touched the page: {brief(touched)}")


def recorded_after(
    env: Environment, position: int, predicate: Callable[[Effect], bool] | None
) -> Callable[[Effect], bool]:
    """``predicate`` (or any effect), limited to effects recorded after ``position`` (a :func:`mark`)."""
    earlier = {id(effect) for effect in env.effects()[:position]}  # the store hands out the same records
    return lambda effect: id(effect) not in earlier and (predicate is None or predicate(effect))


def await_effect(
    subject: BrowserSubject,
    clause: str,
    kind: str,
    predicate: Callable[[Effect], bool] | None = None,
    *,
    timeout: float = 5.0,
    what: str,
    of_call: bool = False,
    after: int | None = None,
) -> Effect:
    """The first matching effect, or a failure of ``clause`` saying what the page never saw.

    ``of_call``: the effect is one a driver call that has returned must already have caused, so once the page
    barrier holds without it, it is missing (:meth:`Environment.poll_effect_of_call`), not awaited for ``timeout``.

    ``after``: only effects recorded after this position (a :func:`mark`) count. A wait for a page that was already
    shown once (the start page loading again in another tab) must not be satisfied by that earlier record: a driver
    may return from navigate before the new page has loaded.
    """
    if after is not None:
        predicate = recorded_after(subject.env, after, predicate)
    poll = subject.env.poll_effect_of_call if of_call else subject.env.poll_effect
    found = poll(kind, predicate, timeout)
    if found is None:
        seen = sorted({str(effect.get("kind")) for effect in subject.env.effects()})
        silence = subject.env.silence()
        violation(
            clause,
            f"the page never recorded {what} {'after the call returned' if of_call else f'within {timeout:g} s'} "
            f"(it recorded: {', '.join(seen) or 'nothing'})" + (f"; {silence}" if silence else ""),
        )
    return found


def near(effect: Effect, x: int, y: int, tolerance: int = 1) -> bool:
    return abs(int(effect.get("x", -9999)) - x) <= tolerance and abs(int(effect.get("y", -9999)) - y) <= tolerance


def page_viewport(subject: BrowserSubject, page: str) -> tuple[int, int]:
    """The CSS viewport the page itself measured when it loaded."""
    if page == start_page(subject.env):
        loaded: Effect | None = start_page_shown(subject)
    else:
        loaded = subject.env.poll_effect("load", effect_with(page=page))
    if loaded is None:
        silence = subject.env.silence(page)
        raise AssertionError(f"precondition: {page} never recorded loading{f' ({silence})' if silence else ''}")
    return int(loaded["width"]), int(loaded["height"])


def brief(effects: Sequence[Effect], limit: int = 6) -> str:
    keep = ("kind", "target", "x", "y", "button", "detail", "key", "value", "values", "checked", "modifiers")
    return json.dumps([{k: e[k] for k in keep if k in e} for e in effects[:limit]])


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


# Effect predicates made by a function, so a check's loop binds this iteration's value (not the last one).


def recorded_since(env: Environment, position: int) -> Callable[[Effect], bool]:
    """Whether an effect was recorded after ``position`` (a :func:`mark`)."""
    return lambda effect: effect in since(env, position)


def effect_with(**fields: object) -> Callable[[Effect], bool]:
    """Whether an effect has every one of ``fields`` (``target=probe``, ``page=page``, ``detail=count``...)."""
    return lambda effect: all(effect.get(name) == value for name, value in fields.items())
