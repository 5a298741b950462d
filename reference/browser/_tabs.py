"""Tab members: navigate, new_tab, switch_tab and close_tab.

The driver checks its own origin policy before any navigation, in addition to the SDK's ``url_policy`` and
the in-browser interceptor, so a refused URL never produces a request.
"""

from __future__ import annotations

from openai.lib.browser import BrowserError, NavigateInput, NewTabInput, TabInput

from reference.flows import Flow, call

from ._session import BrowserSession, Cancelled, check_cancelled

_REFUSED = "That URL is not permitted in this browser."


def navigate(session: BrowserSession, action: NavigateInput, cancelled: Cancelled) -> Flow[str]:
    check_cancelled(cancelled)
    tab = session.tab(action["tab_id"])
    if not session.origins.allows(action["url"]):
        session.refuse_navigation(tab)
        raise BrowserError(_REFUSED)
    yield from session.goto(tab, action["url"], cancelled)
    return "Navigated."


def new_tab(session: BrowserSession, action: NewTabInput, cancelled: Cancelled) -> Flow[str]:
    check_cancelled(cancelled)
    url = action["url"]
    if url is not None and not session.origins.allows(url):
        session.refuse_navigation(None)
        raise BrowserError(_REFUSED)
    page = yield call(session.context, "new_page")
    previous = session.active
    tab = session.adopt(page, announce=True)
    tab.popup = False
    session.active = previous
    session.activate(tab)
    if url is not None:
        yield from session.goto(tab, url, cancelled)
    return f"Opened {tab.id}."


def switch_tab(session: BrowserSession, action: TabInput, cancelled: Cancelled) -> Flow[str]:
    check_cancelled(cancelled)
    tab = session.tab(action["tab_id"])
    session.activate(tab)
    yield call(tab.page, "bring_to_front")
    return f"Switched to {tab.id}."


def close_tab(session: BrowserSession, action: TabInput, cancelled: Cancelled) -> Flow[str]:
    check_cancelled(cancelled)
    tab = session.tab(action["tab_id"])
    yield call(tab.page, "close")
    session.forget(tab)
    return f"Closed {tab.id}."
