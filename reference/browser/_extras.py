"""Opt-in members: run_script, read_diagnostics, upload_file and download_file."""

from __future__ import annotations

import contextlib
from typing import Any, Final

from openai.lib.browser import (
    BrowserCancelledError,
    BrowserError,
    BrowserFileInput,
    BrowserFileOutcome,
    BrowserReadV1,
    ReadDiagnosticsInput,
    RunScriptInput,
)

from reference.flows import Flow, Pause, call
from reference.grants import GrantKind, GrantStore, Redemption, outcome, refused

from ._observation import well_formed
from ._session import BrowserSession, Cancelled, Tab, check_cancelled

# The page runs the approved source with its own privileges; the timer bounds how long the driver waits for
# asynchronous work. A synchronous endless loop cannot be interrupted from outside the page (spec/000: stopping
# the local waiter does not prove the script stopped).
_RUN_SCRIPT: Final = """async ([source, ms, marker]) => {
  let timer;
  const timeout = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(marker)), ms); });
  try {
    const value = await Promise.race([Promise.resolve().then(() => (0, eval)(source)), timeout]);
    if (value === undefined) return "";
    if (typeof value === "string") return value;
    try { const json = JSON.stringify(value); return json === undefined ? String(value) : json; }
    catch (error) { return String(value); }
  } finally { clearTimeout(timer); }
}"""


def run_script(session: BrowserSession, action: RunScriptInput, cancelled: Cancelled) -> Flow[str]:
    check_cancelled(cancelled)
    tab = session.tab(action["tab_id"])
    if not session.origins.allows(str(tab.page.url)):
        raise BrowserError("Scripts run only in pages on a permitted origin.")
    if not action["source"]:
        raise BrowserError("The script is empty.")
    marker = "rdk-script-timeout-" + session.agent_name
    try:
        result = yield call(tab.page, "evaluate", _RUN_SCRIPT, [action["source"], action["timeout_ms"], marker])
    except Exception as error:
        if marker in str(error):
            raise BrowserError("The script did not finish within its timeout.") from None
        raise BrowserError("The script failed.") from None
    return well_formed(str(result))


def read_diagnostics(
    session: BrowserSession, action: ReadDiagnosticsInput, cancelled: Cancelled
) -> Flow[BrowserReadV1]:
    """Summaries only: console levels and origins (never message text), network method, path and status.

    Request headers, cookies, query strings and message bodies are never recorded in the first place.
    """
    check_cancelled(cancelled)
    tab = session.tab(action["tab_id"])
    # Deliver page events that arrived while the driver was idle (the sync API queues them until a call).
    yield Pause(0, tab.page)
    limit = max(1, min(action["limit"], 100))
    lines: list[str] = []
    omitted: list[Any] = []
    if action["source"] == "console":
        records = list(tab.console)[-limit:]
        lines = [f"console.{record['level']} from {record['origin']} (text withheld)" for record in records]
        if records:
            omitted.append("private")
    else:
        for record in list(tab.network)[-limit:]:
            status = "failed" if record["status"] is None else str(record["status"])
            lines.append(f"{record['method']} {record['url']} {record['type']} -> {status}")
        if tab.network:
            omitted.append("private")  # queries and headers are withheld
    total = len(tab.console if action["source"] == "console" else tab.network)
    if total > limit:
        omitted.append("report_limit")
    return {"version": 1, "text": well_formed("\n".join(lines)), "elements": [], "omitted": omitted}


def _start_transfer(
    session: BrowserSession, action: BrowserFileInput, cancelled: Cancelled, kind: GrantKind
) -> tuple[Tab, Redemption, GrantStore] | BrowserFileOutcome:
    """The active tab, the redeemed grant and its store, or the outcome that ends the transfer before it starts
    (already cancelled; no grant store; a grant that is unknown, expired, foreign, used or of the other kind)."""
    if cancelled is not None and cancelled():
        return outcome("interrupted", "none", "not_started")
    tab = session.tab(None)
    store = session.grants
    if store is None:
        return refused()
    grant = store.redeem(action["grant_id"], kind=kind, owner=session.owner)
    return refused() if grant is None else (tab, grant, store)


def upload_file(session: BrowserSession, action: BrowserFileInput, cancelled: Cancelled) -> Flow[BrowserFileOutcome]:
    """Put a granted file into the page's file input (the focused one, or the only visible one)."""
    started = _start_transfer(session, action, cancelled, "upload")
    if not isinstance(started, tuple):
        return started
    tab, grant, _store = started
    handle = yield call(tab.page, "evaluate_handle", f"() => window[{session.agent_name!r}].fileInput()")
    element = handle.as_element()
    if element is None:
        return refused()
    try:
        check_cancelled(cancelled)
        payload = {"name": grant.file_name, "mimeType": "application/octet-stream", "buffer": grant.content}
        yield call(element, "set_input_files", [payload])
    except BrowserCancelledError:
        return outcome("interrupted", "none", "completed")
    except Exception:
        return outcome("unknown", "unknown", "pending")
    finally:
        with contextlib.suppress(Exception):
            yield call(handle, "dispose")
    return outcome("completed", "completed", "completed")


def download_file(session: BrowserSession, action: BrowserFileInput, cancelled: Cancelled) -> Flow[BrowserFileOutcome]:
    """Fetch the granted file through the context (its cookies, its origin policy) and hand it to the grant owner.

    The source is a download the page already offered under the granted name: one the interceptor blocked,
    or a link in the active page. The bytes go to the :class:`GrantStore`, never to a path the model chose.
    """
    started = _start_transfer(session, action, cancelled, "download")
    if not isinstance(started, tuple):
        return started
    tab, grant, store = started
    source = next((url for url, name in reversed(tab.blocked_downloads) if name == grant.file_name), None)
    if source is None:
        source = yield from session.agent(tab, "downloadLink", grant.file_name)
    if not isinstance(source, str) or not session.origins.allows(source):
        return refused()
    session.guard.permit_download(source)
    try:
        response = yield call(session.context.request, "get", source, max_redirects=0, timeout=30_000)
    except Exception:
        return outcome("unknown", "unknown", "not_started")
    try:
        if cancelled is not None and cancelled():
            return outcome("interrupted", "none", "completed")
        if response.status != 200:
            return outcome("unknown", "unknown", "completed")
        size = response.headers.get("content-length")
        if size is not None and size.isdigit() and int(size) > grant.max_bytes:
            return outcome("refused", "none", "completed")
        body = yield call(response, "body")
        if not store.deliver(grant.grant_id, body):
            return outcome("refused", "none", "completed")
    finally:
        yield call(response, "dispose")
    return outcome("completed", "completed", "completed")
