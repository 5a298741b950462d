"""Read members: read_page, get_page_text, find, read_page_scoped and wait_for.

The page agent builds the report; this module picks the mode, enforces the report's Python-side contract
(well-formed Unicode, unique refs) and maps agent refusals to safe ``BrowserError`` messages.
"""

from __future__ import annotations

import time
from typing import Any

from openai.lib.browser import (
    BrowserError,
    BrowserReadV1,
    BrowserScopedReadV1,
    FindInput,
    ReadPageInput,
    ReadPageScopedInput,
    TabInput,
    WaitForInput,
)

from reference.flows import Flow, Pause

from ._compact import compact_report
from ._observation import well_formed
from ._session import BrowserSession, Cancelled, check_cancelled, fail_on_agent_error


def _report(raw: Any) -> BrowserReadV1:
    fail_on_agent_error(raw)
    if not (
        isinstance(raw.get("text"), str)
        and isinstance(raw.get("elements"), list)
        and isinstance(raw.get("omitted"), list)
        and all(isinstance(item, dict) and isinstance(item.get("ref"), str) for item in raw["elements"])
    ):
        # Only a page that tampers with the agent's environment gets here; it gets no partial report.
        raise BrowserError("The page's answer was not a page read.")
    seen: set[str] = set()
    elements = []
    for element in raw["elements"]:
        if element["ref"] in seen:
            continue
        seen.add(element["ref"])
        element["label"] = well_formed(element["label"])
        elements.append(element)
    return {
        "version": 1,
        "text": well_formed(raw["text"]),
        "elements": elements,
        "omitted": list(dict.fromkeys(raw["omitted"])),
    }


def _deliver(session: BrowserSession, report: BrowserReadV1) -> BrowserReadV1 | str:
    return compact_report(report) if session.compact_reads else report


def read_page(session: BrowserSession, action: ReadPageInput, cancelled: Cancelled) -> Flow[BrowserReadV1 | str]:
    check_cancelled(cancelled)
    tab = session.tab(action["tab_id"])
    mode = "interactive" if action["filter"] == "interactive" else "all"
    raw = yield from session.agent(tab, "read", {"mode": mode, **session.read_options()})
    return _deliver(session, _report(raw))


def get_page_text(session: BrowserSession, action: TabInput, cancelled: Cancelled) -> Flow[BrowserReadV1 | str]:
    check_cancelled(cancelled)
    tab = session.tab(action["tab_id"])
    raw = yield from session.agent(tab, "read", {"mode": "text", **session.read_options()})
    return _deliver(session, _report(raw))


def find(session: BrowserSession, action: FindInput, cancelled: Cancelled) -> Flow[BrowserReadV1 | str]:
    check_cancelled(cancelled)
    tab = session.tab(action["tab_id"])
    if not action["query"].strip():
        raise BrowserError("The search query is empty.")
    raw = yield from session.agent(tab, "read", {"mode": "find", "query": action["query"], **session.read_options()})
    return _deliver(session, _report(raw))


def read_page_scoped(
    session: BrowserSession, action: ReadPageScopedInput, cancelled: Cancelled
) -> Flow[BrowserScopedReadV1]:
    check_cancelled(cancelled)
    tab = session.tab(action["tab_id"])
    options = {"root": action["root"], "depth": action["depth"], "filter": action["filter"]}
    raw = yield from session.agent(tab, "readScoped", {**options, **session.read_options()})
    report = _report(raw)
    element_refs = {element["ref"] for element in report["elements"]}
    scopes = [
        {"ref": scope["ref"], "label": well_formed(scope["label"]) or "section"}
        for scope in raw["scopes"]
        if scope["ref"] not in element_refs
    ]
    return {**report, "scopes": scopes}  # type: ignore[typeddict-item]


def wait_for(session: BrowserSession, action: WaitForInput, cancelled: Cancelled) -> Flow[str]:
    """Poll the rendered text every 50 ms until it contains the text, the timeout passes, or a stop request."""
    tab = session.tab(action["tab_id"])
    deadline = time.monotonic() + action["timeout_ms"] / 1000
    while True:
        check_cancelled(cancelled)
        if (yield from session.agent(tab, "hasText", action["text"])) is True:
            return "The text is visible."
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise BrowserError("The text did not appear before the timeout.")
        yield Pause(min(0.05, remaining), tab.page)
