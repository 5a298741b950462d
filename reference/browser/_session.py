"""The state one driver keeps about its browser context: tabs, history, diagnostics and the page agent.

Both drivers own one :class:`BrowserSession`. Event handlers and the request interceptor are flows too, so the
same code serves the sync and the async API; the session only needs to know which runner wraps its handlers.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Final
from urllib.parse import unquote, urlsplit

from openai.lib.browser import BrowserCancelledError, BrowserError, BrowserState, BrowserTab
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from reference.flows import Flow, Pause, call
from reference.grants import GrantStore
from reference.policy import OriginSet

from ._guard import REFUSED_HEADER, NetworkGuard
from ._limits import BrowserLimits
from ._observation import ChangeLog, display_origin, legacy_url, observed_url, truncate_utf8, well_formed

# The file is one function expression; the session applies it to its private global name.
_AGENT_SOURCE: Final = resources.files(__package__).joinpath("page_agent.js").read_text("utf-8").strip().rstrip(";")
# The agent serialises its own answer (see page_agent.js "entry"); a document without the agent says so.
_AGENT_CALL: Final = (
    "([name, method, args]) => window[name] ? window[name].call(method, args) : JSON.stringify({missing: true})"
)
_DIALOG_KINDS: Final = ("alert", "confirm", "prompt", "beforeunload")
# How long one responsiveness probe of a state() read waits before the stop request is looked at again.
_ANSWER_PROBE_MS: Final = 250
Cancelled = Callable[[], bool] | None

ERROR_MESSAGES: Final[dict[str, str]] = {
    "unknown": "That ref is unknown or no longer on the page; read the page again.",
    "stale": "That ref is unknown or no longer on the page; read the page again.",
    "scope": "That ref names a page section; element actions need an element ref.",
    "not_scope": "That ref is not a section ref from read_page_scoped.",
    "role": "That control does not support this action.",
    "disabled": "That control is disabled or read-only.",
    "obscured": "Another element covers that control.",
    "offscreen": "That control cannot be brought into view.",
    "focus": "That control could not take focus.",
    "no_option": "A requested value is not an available option of that control.",
    "single": "That control accepts exactly one value.",
    "page_tampered": "The page locked a built-in the driver needs to read it; it cannot be read.",
}


def check_cancelled(cancelled: Cancelled) -> None:
    """Refuse to start (or continue) an effect once the caller asked to stop."""
    if cancelled is not None and cancelled():
        raise BrowserCancelledError("Browser execution was cancelled.")


@dataclass
class Tab:
    """One page of the context, with the driver's stable ID and its bounded diagnostics."""

    id: str
    page: Any
    loads: int = 0
    navigation_failures: int = 0
    popup: bool = False
    committed: bool = False  # reached an allowed document at least once
    doomed: bool = False  # to be closed at the next opportunity (refused popup, dialog storm)
    console: deque[dict[str, str]] = field(default_factory=deque)
    network: deque[dict[str, Any]] = field(default_factory=deque)
    blocked_downloads: deque[tuple[str, str]] = field(default_factory=lambda: deque(maxlen=8))
    dialog_times: deque[float] = field(default_factory=deque)
    # Main-frame navigations seen: with bound consent, an action without a ref is tied to the document the last
    # state() report showed (the one the caller approved against), and this tells whether it is still there.
    documents: int = 0


@dataclass(frozen=True)
class Point:
    x: float
    y: float


class BrowserSession:
    """Tabs, change history, network policy and page-agent access for one browser context."""

    def __init__(
        self,
        context: Any,
        *,
        origins: OriginSet,
        limits: BrowserLimits,
        observation: bool,
        bind_targets: bool,
        grants: GrantStore | None,
        owner: str,
        guard: NetworkGuard,
        compact_reads: bool = False,
        wrap: Callable[[Callable[..., Flow[None]]], Callable[..., Any]],
    ) -> None:
        self.context = context
        self.origins = origins
        self.limits = limits
        self.observation = observation
        self.bind_targets = bind_targets
        self.grants = grants
        self.owner = owner
        self.guard = guard
        self.compact_reads = compact_reads
        self._wrap = wrap
        self.agent_name = "__rdk_" + secrets.token_hex(8)
        self._agent_script = f"({_AGENT_SOURCE})({json.dumps(self.agent_name)});"
        self.tabs: dict[int, Tab] = {}
        self.active: Tab | None = None
        self.log = ChangeLog(limits.history)
        # Tab ID -> its document count when state() last reported it (see Tab.documents).
        self.observed: dict[str, int] = {}
        self._next_tab = 0
        self._installed = False

    # ----- setup -------------------------------------------------------------------------------------------
    def install(self) -> Flow[None]:
        """Inject the agent into every future document and adopt the context's existing pages."""
        yield call(self.context, "add_init_script", script=self._agent_script)
        self.context.on("page", self._on_page)
        # Context-level, so requests of pages that never become tabs (a popup whose first navigation the guard
        # refused) are still seen.
        self.context.on("response", self._response)
        self.context.on("requestfailed", self._request_failed)
        for page in list(self.context.pages):
            self.adopt(page, announce=False)
        self._installed = True

    def open_start_page(self, url: str) -> Flow[None]:
        """Show the caller's start page in the (only) tab; history starts after this setup step."""
        if not self.origins.allows(url):
            raise BrowserError("The start page is not on a permitted origin.")
        if self.active is None:
            page = yield call(self.context, "new_page")
            self.adopt(page, announce=False)
        assert self.active is not None
        yield from self.goto(self.active, url, None)
        self.log = ChangeLog(self.limits.history)

    def _on_page(self, page: Any) -> None:
        self.adopt(page, announce=True, popup=True)

    def adopt(self, page: Any, *, announce: bool, popup: bool = False) -> Tab:
        existing = self.tabs.get(id(page))
        if existing is not None:
            return existing
        self._next_tab += 1
        tab = Tab(f"tab-{self._next_tab}", page, popup=popup)
        self.tabs[id(page)] = tab
        page.on("dialog", self._wrap(self._dialog))
        page.on("framenavigated", lambda frame: self._navigated(tab, frame))
        page.on("load", lambda _page: self._loaded(tab))
        page.on("console", lambda message: self._console(tab, message))
        page.on("download", lambda _download: self._download_event(tab))
        page.on("close", lambda _page: self.forget(tab))
        page.set_default_timeout(self.limits.action_timeout_ms)
        if announce:
            self.log.add({"type": "tab_opened", "tab_id": tab.id})
        self.active = tab
        return tab

    def forget(self, tab: Tab) -> None:
        """Drop a closed tab (idempotent: our own close and the page's close event both land here)."""
        if self.tabs.pop(id(tab.page), None) is None:
            return
        self.log.add({"type": "tab_closed", "tab_id": tab.id})
        if self.active is tab:
            remaining = list(self.tabs.values())
            self.active = remaining[-1] if remaining else None

    def activate(self, tab: Tab) -> None:
        if self.active is not tab:
            self.active = tab
            self.log.add({"type": "tab_switched", "tab_id": tab.id})

    # ----- tab lookup --------------------------------------------------------------------------------------
    def tab(self, tab_id: str | None) -> Tab:
        if tab_id is None:
            if self.active is None or self.active.page.is_closed():
                raise BrowserError("No tab is open.")
            return self.active
        for tab in self.tabs.values():
            if tab.id == tab_id and not tab.page.is_closed():
                return tab
        raise BrowserError("Unknown tab ID.")

    def housekeeping(self) -> Flow[None]:
        """Close tabs marked for closing (refused popups, dialog storms) before reporting or acting."""
        for tab in list(self.tabs.values()):
            if tab.page.is_closed():
                self.forget(tab)
            elif tab.doomed:
                with contextlib.suppress(Exception):
                    yield call(tab.page, "close")
                self.forget(tab)

    # ----- state -------------------------------------------------------------------------------------------
    def state(self, cancelled: Cancelled = None) -> Flow[BrowserState]:
        check_cancelled(cancelled)
        if self.active is not None and not self.active.page.is_closed():
            # Let queued page events (refusals, popups, dialogs) reach their handlers before reporting.
            yield Pause(0, self.active.page)
        yield from self.housekeeping()
        tabs: list[BrowserTab] = []
        truncated = False
        for tab in list(self.tabs.values()):
            if cancelled is not None:
                yield from self._until_answering(tab, cancelled)
            try:
                title = yield call(tab.page, "title")
            except Exception:
                title = ""  # a page in the middle of navigating has no title to report yet
            title = well_formed(str(title))
            url = str(tab.page.url)
            if self.observation:
                title, cut = truncate_utf8(title, 1024)
                truncated = truncated or cut
                shown = observed_url(url)
            else:
                shown = legacy_url(url)
            tabs.append({"id": tab.id, "title": title, "url": shown, "active": tab is self.active})
        if tabs and not any(item["active"] for item in tabs):
            tabs[-1]["active"] = True
            self.active = list(self.tabs.values())[-1]
        self.observed = {tab.id: tab.documents for tab in self.tabs.values()}
        if not self.observation:
            return {"tabs": tabs}
        return {"tabs": tabs, "observation": self.log.snapshot(truncated)}

    def _until_answering(self, tab: Tab, cancelled: Callable[[], bool]) -> Flow[None]:
        """Wait, in short steps that heed ``cancelled``, until the tab's page can answer a title read.

        A page whose main thread is busy answers nothing, and a title read cannot be interrupted once sent (the sync
        API has no timeout for it), so the read starts only once a short probe with a timeout gets through: a stop
        request then ends a pending state() instead of waiting for the page (spec/002 "Browser driver contract").
        """
        while not tab.page.is_closed():
            try:
                yield call(tab.page, "wait_for_function", "() => true", timeout=_ANSWER_PROBE_MS)
                return
            except PlaywrightTimeoutError:
                check_cancelled(cancelled)
            except Exception:
                return  # navigating or closing: the title read that follows copes with both

    def bound_to_observed(self, tab: Tab) -> Flow[None]:
        """With bound consent, refuse input that has no ref once the tab left the document state() reported.

        spec/002 "Approve actions and own the session": approval is given against a prior observation, and the
        page may navigate while a person decides, so coordinate input and scrolling must not land on its successor.
        """
        if not self.bind_targets:
            return
        # A round trip to the page: the browser sends a navigation's event before this answer, so once it is back
        # every replacement of the document has been counted (a zero-length pause is not enough for the async
        # API, whose connection may still hold the event unread). A read that fails means the page is changing.
        try:
            yield call(tab.page, "evaluate", "() => 0")
        except Exception:
            raise BrowserError("The page is changing; read the state again before acting.") from None
        if self.observed.get(tab.id) != tab.documents:
            raise BrowserError("The page changed since it was last observed; read the state again before acting.")

    # ----- page agent --------------------------------------------------------------------------------------
    def agent(self, tab: Tab, method: str, *args: Any) -> Flow[Any]:
        """Call the page agent in the tab's current document, injecting it first if the document predates it."""
        for _attempt in range(2):
            answer = yield call(tab.page, "evaluate", _AGENT_CALL, [self.agent_name, method, list(args)])
            result = json.loads(answer)
            if not (isinstance(result, dict) and result.get("missing")):
                return result
            yield call(tab.page, "evaluate", self._agent_script)
        raise BrowserError("The page is not ready for reading.")

    def point(self, tab: Tab, ref: str, **options: Any) -> Flow[Point]:
        """Viewport coordinates of a ref'd control after checking it is current, visible and not covered."""
        result = yield from self.agent(tab, "point", ref, {"enabled": True, "hit": True, **options})
        fail_on_agent_error(result)
        return Point(float(result["x"]), float(result["y"]))

    def read_options(self) -> dict[str, Any]:
        limits = self.limits
        return {
            "limits": {
                "work_nodes": limits.work_nodes,
                "text_bytes": limits.text_bytes,
                "max_elements": limits.max_elements,
                "max_options": limits.max_options,
            },
            "allowed": list(self.origins.origins),
        }

    # ----- navigation --------------------------------------------------------------------------------------
    def refuse_navigation(self, tab: Tab | None) -> None:
        self.log.add({"type": "navigation_refused", "tab_id": None if tab is None else tab.id, "reason": "policy"})

    def goto(self, tab: Tab, url: str, cancelled: Cancelled) -> Flow[None]:
        """Navigate and wait for the load event, checking ``cancelled`` every 50 ms and stopping when it is set.

        ``goto`` is only asked to wait briefly; the rest of the wait is a poll on our own load counter, which is
        what lets the sync driver notice cancellation while a slow server has not answered yet.
        """
        loads, failures = tab.loads, tab.navigation_failures
        deadline = time.monotonic() + self.limits.navigation_timeout_ms / 1000
        try:
            yield call(tab.page, "goto", url, wait_until="load", timeout=200)
            return
        except Exception as error:
            if "Timeout" not in type(error).__name__:
                raise BrowserError("The page could not be loaded.") from None
        while True:
            if tab.loads > loads:
                return
            if tab.navigation_failures > failures or tab.page.is_closed():
                raise BrowserError("The page could not be loaded.")
            if (cancelled is not None and cancelled()) or time.monotonic() > deadline:
                yield from self.stop_loading(tab)
                check_cancelled(cancelled)
                raise BrowserError("The page took too long to load.")
            yield Pause(0.05, tab.page)

    def stop_loading(self, tab: Tab) -> Flow[None]:
        """Abandon a pending navigation, as the browser's stop button does.

        A page script cannot do this (evaluating in the old document waits for the new one), so it goes through
        a short-lived Chromium DevTools session for the tab.
        """
        try:
            devtools = yield call(self.context, "new_cdp_session", tab.page)
            try:
                yield call(devtools, "send", "Page.stopLoading")
            finally:
                yield call(devtools, "detach")
        except Exception:
            pass  # the tab closed or committed meanwhile; nothing is loading any more

    # ----- event handlers ----------------------------------------------------------------------------------
    def _navigated(self, tab: Tab, frame: Any) -> None:
        if frame.parent_frame is not None:
            return
        tab.documents += 1
        if self.origins.allows(str(frame.url)):
            tab.committed = True
        self.log.add({"type": "navigation", "tab_id": tab.id})

    def _loaded(self, tab: Tab) -> None:
        tab.loads += 1

    def _console(self, tab: Tab, message: Any) -> None:
        location = message.location if isinstance(message.location, dict) else {}
        record = {"level": str(message.type), "origin": display_origin(str(location.get("url", ""))) or "page"}
        _bounded_append(tab.console, record, self.limits.diagnostics_history)

    def _owner_tab(self, request: Any) -> tuple[Tab | None, bool]:
        """The tab that made a request, and whether it is that tab's top-level navigation."""
        try:
            frame = request.frame
            return self.tabs.get(id(frame.page)), bool(request.is_navigation_request() and frame.parent_frame is None)
        except Exception:
            return None, False  # service worker or already-detached frame

    def _response(self, response: Any) -> None:
        request = response.request
        tab, top_level = self._owner_tab(request)
        refusal = response.headers.get(REFUSED_HEADER)
        if refusal is not None:
            self._refused(tab, top_level, str(request.url), str(refusal))
        if tab is not None:
            record = {
                "method": request.method,
                "url": _path_only(response.url),
                "status": "blocked" if refusal else response.status,
                "type": request.resource_type,
            }
            _bounded_append(tab.network, record, self.limits.diagnostics_history)

    def _refused(self, tab: Tab | None, top_level: bool, url: str, reason: str) -> None:
        """Record what the network guard refused, now that the page event says which tab asked."""
        tab_id = None if tab is None else tab.id
        if reason == "download":
            if tab is not None:
                name = self.guard.blocked_downloads.get(url) or unquote(urlsplit(url).path.rsplit("/", 1)[-1])
                tab.blocked_downloads.append((url, name))
            self.log.add({"type": "download", "tab_id": tab_id, "status": "blocked"})
        elif top_level or tab is None:
            self.refuse_navigation(tab)
            if tab is not None:
                tab.navigation_failures += 1
                if tab.popup and not tab.committed:
                    tab.doomed = True  # a popup the page opened towards a refused origin is closed

    def _request_failed(self, request: Any) -> None:
        tab, top_level = self._owner_tab(request)
        if tab is None:
            return
        if top_level:
            tab.navigation_failures += 1
        record = {
            "method": request.method,
            "url": _path_only(request.url),
            "status": None,
            "type": request.resource_type,
        }
        _bounded_append(tab.network, record, self.limits.diagnostics_history)

    def _download_event(self, tab: Tab) -> None:
        # Downloads that bypass the interceptor (blob: and data: links) are cancelled by the context.
        self.log.add({"type": "download", "tab_id": tab.id, "status": "blocked"})

    def _dialog(self, dialog: Any) -> Flow[None]:
        tab = self.tabs.get(id(dialog.page))
        kind = dialog.type if dialog.type in _DIALOG_KINDS else "other"
        if tab is None:
            yield call(dialog, "dismiss")
            return
        self.log.add({"type": "dialog_dismissed", "tab_id": tab.id, "kind": kind})
        now = time.monotonic()
        tab.dialog_times.append(now)
        while tab.dialog_times and now - tab.dialog_times[0] > self.limits.dialog_window_s:
            tab.dialog_times.popleft()
        try:
            if len(tab.dialog_times) > self.limits.dialog_burst:
                # A page that keeps opening dialogs would starve every later operation: retire the tab.
                tab.doomed = True
                yield call(tab.page, "close")
                self.forget(tab)
            elif kind == "beforeunload":
                # Leaving was approved (navigation or close); a page cannot veto it.
                yield call(dialog, "accept")
            else:
                yield call(dialog, "dismiss")
        except Exception:
            pass


def fail_on_agent_error(result: Any) -> None:
    if not isinstance(result, dict):
        raise BrowserError("The page did not answer.")
    code = result.get("error")
    if code is not None:
        raise BrowserError(ERROR_MESSAGES.get(str(code), "The page refused that action."))


def _bounded_append(queue: deque[Any], item: Any, limit: int) -> None:
    queue.append(item)
    while len(queue) > limit:
        queue.popleft()


def _path_only(url: str) -> str:
    """Origin and path of a URL: queries, fragments and userinfo can carry secrets and are dropped."""
    origin = display_origin(url)
    if origin is None:
        return urlsplit(url).scheme + ":"
    path = urlsplit(url).path
    return origin + (path if len(path) <= 120 else path[:117] + "...")
