"""The Fieldwork members, each written once as a flow (see ``reference.flows``) over one form session.

It claims no general browsing (spec/000, "Return a structured page read"): it reads and fills its own form,
refuses to act anywhere else, and blocks every request to another origin. Its refs name a control in one
rendering of one document; an action re-resolves the ref to that exact node at execution time, so consent given
for one control can never land on a re-rendered or replaced one (spec/000, "Confirmation, navigation, and
recovery"). ``type`` always needs a target and there is no ``key``: nothing here acts on whatever has focus.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable, Sequence
from typing import Any

from openai.lib.browser import (
    BrowserCancelledError,
    BrowserError,
    BrowserReadV1,
    BrowserState,
    ClickInput,
    FindInput,
    ReadPageInput,
    SelectOptionInput,
    SetCheckedInput,
    TabInput,
    TypeInput,
    WaitForInput,
)
from openai.types.responses import ResponseInputImageContentParam
from playwright.sync_api import Error as PlaywrightError

from reference.flows import Flow, Pause, call

from . import _agent
from ._scope import FormScope, check_tab
from ._state import ObservationLog, tab_state

Cancelled = Callable[[], bool] | None
ACTION_TIMEOUT_MS = 5_000
_OPTIONS_SCRIPT = "(node) => Array.from(node.options, (o) => ({label: o.textContent.trim(), value: o.value}))"


def check_cancelled(cancelled: Cancelled) -> None:
    # Checked before every effect; the SDK keeps the predicate true once a stop was requested.
    if cancelled is not None and cancelled():
        raise BrowserCancelledError("Fieldwork action cancelled before it ran.")


class FormSession:
    """What one driver knows about its page: the form's scope, the observation log, and the document count.

    ``page`` is a sync or an async Playwright page; the flows below work with either.
    """

    def __init__(
        self,
        page: Any,
        form_url: str,
        *,
        observation: bool,
        show_values: bool,
        wrap: Callable[[Callable[..., Flow[None]]], Callable[..., Any]],
    ) -> None:
        self.page = page
        self.scope = FormScope(form_url)
        self.log = ObservationLog() if observation else None
        self.show_values = show_values
        self.documents = 0
        # ``wrap`` turns a flow into a Playwright event handler of the driver's kind (sync or async).
        self._route_handler = wrap(self._route)
        page.on("framenavigated", self._on_navigation)
        page.on("dialog", wrap(self._dismiss))
        page.on("popup", wrap(self._close_popup))

    def _on_navigation(self, frame: Any) -> None:
        if frame == self.page.main_frame and self.log is not None:
            self.log.navigated()

    def _dismiss(self, dialog: Any) -> Flow[None]:
        yield call(dialog, "dismiss")

    def _close_popup(self, popup: Any) -> Flow[None]:
        yield call(popup, "close")

    def _route(self, route: Any) -> Flow[None]:
        if self.scope.allows_request(route.request.url):
            yield call(route, "continue_")
        else:
            yield call(route, "abort", "blockedbyclient")

    # ----------------------------------------------------------------------------------- building blocks

    def open(self) -> Flow[None]:
        """Install the network policy on the page's whole context (popups and workers too), then load the form."""
        yield call(self.page.context, "route", "**/*", self._route_handler)
        yield call(self.page, "goto", self.scope.form_url, wait_until="load")

    def read(self) -> Flow[dict[str, object]]:
        self.scope.require_form(self.page.url)
        request = _agent.read_request(self.documents + 1, values=self.show_values)
        try:
            raw = yield call(self.page, "evaluate", _agent.agent_source(), request)
        except PlaywrightError:
            raise BrowserError("The form could not be read right now.") from None
        answer = dict(_agent.answer(raw))
        if answer.get("stamped"):
            self.documents += 1
        return answer

    def element(self, ref: str | None, roles: Sequence[str]) -> Flow[Any]:
        """The exact node ``ref`` was issued for, or a BrowserError; never a look-alike found by name."""
        if ref is None:
            raise BrowserError("Fieldwork needs a target ref from a read; it never acts on the focused control.")
        self.scope.require_form(self.page.url)
        try:
            handle = yield call(self.page, "evaluate_handle", _agent.agent_source(), _agent.resolve_request(ref, roles))
        except PlaywrightError:
            raise BrowserError("The form could not be read right now.") from None
        element = handle.as_element()
        if element is None:
            code = yield call(handle, "json_value")
            yield call(handle, "dispose")
            _agent.answer(code)  # raises the refusal that matches the agent's error code
            raise BrowserError("The form refused that action.")
        return element

    def act(self, element: Any, method: str, failure: str, *args: Any, **kwargs: Any) -> Flow[None]:
        try:
            yield call(element, method, *args, timeout=ACTION_TIMEOUT_MS, **kwargs)
        except PlaywrightError:
            raise BrowserError(failure) from None

    # ----------------------------------------------------------------------------------- state and reads

    def state(self) -> Flow[BrowserState]:
        title = yield call(self.page, "title")
        return tab_state(self.page.url, title, self.log)

    def read_page(self, args: ReadPageInput, cancelled: Cancelled) -> Flow[BrowserReadV1]:
        check_tab(args["tab_id"])
        check_cancelled(cancelled)
        return _agent.structured_read((yield from self.read()), filter=args["filter"])

    def get_page_text(self, args: TabInput, cancelled: Cancelled) -> Flow[BrowserReadV1]:
        check_tab(args["tab_id"])
        check_cancelled(cancelled)
        return _agent.text_read((yield from self.read()))

    def find(self, args: FindInput, cancelled: Cancelled) -> Flow[BrowserReadV1]:
        check_tab(args["tab_id"])
        check_cancelled(cancelled)
        return _agent.found(_agent.structured_read((yield from self.read()), filter="all"), args["query"])

    def wait_for(self, args: WaitForInput, cancelled: Cancelled) -> Flow[str]:
        check_tab(args["tab_id"])
        wanted = " ".join(args["text"].split())
        deadline = time.monotonic() + args["timeout_ms"] / 1000
        while True:
            check_cancelled(cancelled)
            answer = yield from self.read()
            if wanted in str(answer.get("text") or ""):
                return "The text is on the form."
            if time.monotonic() >= deadline:
                raise BrowserError("The text did not appear before the timeout.")
            yield Pause(0.05, self.page)

    def screenshot(self, args: TabInput, cancelled: Cancelled) -> Flow[ResponseInputImageContentParam]:
        check_tab(args["tab_id"])
        check_cancelled(cancelled)
        self.scope.require_form(self.page.url)
        try:
            png = yield call(self.page, "screenshot", type="png")
        except PlaywrightError:
            raise BrowserError("The screenshot could not be taken.") from None
        return {"type": "input_image", "image_url": "data:image/png;base64," + base64.b64encode(png).decode()}

    # ----------------------------------------------------------------------------------- actions

    def click(self, args: ClickInput, cancelled: Cancelled) -> Flow[str]:
        check_tab(args["tab_id"])
        element = yield from self.element(args["target"], _agent.CLICKABLE)
        check_cancelled(cancelled)
        yield from self.act(element, "click", "The control could not be clicked.")
        return "Clicked."

    def type(self, args: TypeInput, cancelled: Cancelled) -> Flow[str]:
        check_tab(args["tab_id"])
        element = yield from self.element(args["target"], _agent.TYPABLE)
        _agent.check_entry((yield call(element, "get_attribute", "type")), args["text"])
        check_cancelled(cancelled)
        # fill() replaces the field's value, so typing the same text twice leaves one copy.
        yield from self.act(element, "fill", "That field did not accept the text.", args["text"])
        return "Entered."

    def select_option(self, args: SelectOptionInput, cancelled: Cancelled) -> Flow[str]:
        check_tab(args["tab_id"])
        element = yield from self.element(args["target"], _agent.SELECTABLE)
        options = yield call(element, "evaluate", _OPTIONS_SCRIPT)
        value = _agent.choose_option(options, args["values"])
        check_cancelled(cancelled)
        yield from self.act(element, "select_option", "The option could not be selected.", value=value)
        return "Selected."

    def set_checked(self, args: SetCheckedInput, cancelled: Cancelled) -> Flow[str]:
        check_tab(args["tab_id"])
        element = yield from self.element(args["target"], _agent.CHECKABLE)
        check_cancelled(cancelled)
        yield from self.act(element, "set_checked", "The checkbox could not be set.", args["checked"])
        return "Checked." if args["checked"] else "Unchecked."
