"""``FieldworkDriver``: a synchronous browser driver for one owned reservation form, on a Playwright page.

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
from playwright.sync_api import ElementHandle, Frame, Page, Route
from playwright.sync_api import Error as PlaywrightError

from . import _agent
from ._scope import FormScope, check_tab
from ._state import ObservationLog, tab_state

Cancelled = Callable[[], bool] | None
ACTION_TIMEOUT_MS = 5_000
_OPTIONS_SCRIPT = "(node) => Array.from(node.options, (o) => ({label: o.textContent.trim(), value: o.value}))"


def _check(cancelled: Cancelled) -> None:
    # Checked before every effect; the SDK keeps the predicate true once a stop was requested.
    if cancelled is not None and cancelled():
        raise BrowserCancelledError("Fieldwork action cancelled before it ran.")


class FieldworkDriver:
    """Drive the reservation form at ``form_url`` in ``page`` (which the caller owns and closes).

    ``observation=False`` reports legacy state without observation metadata. ``show_values`` controls whether
    reads include the fields' current values (the form is the application's own, so it allows them by default).
    """

    def __init__(self, page: Page, form_url: str, *, observation: bool = True, show_values: bool = True) -> None:
        self.page = page
        self.scope = FormScope(form_url)
        self._log = ObservationLog() if observation else None
        self._show_values = show_values
        self._documents = 0
        page.on("framenavigated", self._on_navigation)
        page.on("dialog", lambda dialog: dialog.dismiss())
        page.on("popup", lambda popup: popup.close())

    @classmethod
    def open(cls, page: Page, form_url: str, **options: bool) -> FieldworkDriver:
        """Attach to ``page``, install the network policy on its context, then load the form.

        The policy is installed on the whole context (popups and workers included), so give each driver a context
        of its own.
        """
        driver = cls(page, form_url, **options)
        page.context.route("**/*", driver._route)
        page.goto(form_url, wait_until="load")
        return driver

    # ----------------------------------------------------------------------------------- plumbing

    def _route(self, route: Route) -> None:
        if self.scope.allows_request(route.request.url):
            route.continue_()
        else:
            route.abort("blockedbyclient")

    def _on_navigation(self, frame: Frame) -> None:
        if frame == self.page.main_frame and self._log is not None:
            self._log.navigated()

    def _agent(self, request: dict[str, object]) -> object:
        try:
            return self.page.evaluate(_agent.agent_source(), request)
        except PlaywrightError:
            raise BrowserError("The form could not be read right now.") from None

    def _read(self) -> dict[str, object]:
        self.scope.require_form(self.page.url)
        answer = dict(_agent.answer(self._agent(_agent.read_request(self._documents + 1, values=self._show_values))))
        if answer.get("stamped"):
            self._documents += 1
        return answer

    def _element(self, ref: str | None, roles: Sequence[str]) -> ElementHandle:
        """The exact node ``ref`` was issued for, or a BrowserError; never a look-alike found by name."""
        if ref is None:
            raise BrowserError("Fieldwork needs a target ref from a read; it never acts on the focused control.")
        self.scope.require_form(self.page.url)
        try:
            handle = self.page.evaluate_handle(_agent.agent_source(), _agent.resolve_request(ref, roles))
        except PlaywrightError:
            raise BrowserError("The form could not be read right now.") from None
        element = handle.as_element()
        if element is None:
            code = handle.json_value()
            handle.dispose()
            _agent.answer(code)  # raises the refusal that matches the agent's error code
            raise BrowserError("The form refused that action.")
        return element

    def _act(self, action: Callable[[], object], failure: str) -> None:
        try:
            action()
        except PlaywrightError:
            raise BrowserError(failure) from None

    # ----------------------------------------------------------------------------------- state and reads

    def state(self) -> BrowserState:
        return tab_state(self.page.url, self.page.title(), self._log)

    def read_page(self, args: ReadPageInput, *, cancelled: Cancelled = None) -> BrowserReadV1:
        check_tab(args["tab_id"])
        _check(cancelled)
        return _agent.structured_read(self._read(), filter=args["filter"])

    def get_page_text(self, args: TabInput, *, cancelled: Cancelled = None) -> BrowserReadV1:
        check_tab(args["tab_id"])
        _check(cancelled)
        return _agent.text_read(self._read())

    def find(self, args: FindInput, *, cancelled: Cancelled = None) -> BrowserReadV1:
        check_tab(args["tab_id"])
        _check(cancelled)
        return _agent.found(_agent.structured_read(self._read(), filter="all"), args["query"])

    def wait_for(self, args: WaitForInput, *, cancelled: Cancelled = None) -> str:
        check_tab(args["tab_id"])
        wanted = " ".join(args["text"].split())
        deadline = time.monotonic() + args["timeout_ms"] / 1000
        while True:
            _check(cancelled)
            if wanted in str(self._read().get("text") or ""):
                return "The text is on the form."
            if time.monotonic() >= deadline:
                raise BrowserError("The text did not appear before the timeout.")
            self.page.wait_for_timeout(50)

    def screenshot(self, args: TabInput, *, cancelled: Cancelled = None) -> ResponseInputImageContentParam:
        check_tab(args["tab_id"])
        _check(cancelled)
        self.scope.require_form(self.page.url)
        try:
            png = self.page.screenshot(type="png")
        except PlaywrightError:
            raise BrowserError("The screenshot could not be taken.") from None
        return {"type": "input_image", "image_url": "data:image/png;base64," + base64.b64encode(png).decode()}

    # ----------------------------------------------------------------------------------- actions

    def click(self, args: ClickInput, *, cancelled: Cancelled = None) -> str:
        check_tab(args["tab_id"])
        element = self._element(args["target"], _agent.CLICKABLE)
        _check(cancelled)
        self._act(lambda: element.click(timeout=ACTION_TIMEOUT_MS), "The control could not be clicked.")
        return "Clicked."

    def type(self, args: TypeInput, *, cancelled: Cancelled = None) -> str:
        check_tab(args["tab_id"])
        element = self._element(args["target"], _agent.TYPABLE)
        _agent.check_entry(element.get_attribute("type"), args["text"])
        _check(cancelled)
        # fill() replaces the field's value, so typing the same text twice leaves one copy.
        self._act(
            lambda: element.fill(args["text"], timeout=ACTION_TIMEOUT_MS),
            "That field did not accept the text.",
        )
        return "Entered."

    def select_option(self, args: SelectOptionInput, *, cancelled: Cancelled = None) -> str:
        check_tab(args["tab_id"])
        element = self._element(args["target"], _agent.SELECTABLE)
        options = element.evaluate(_OPTIONS_SCRIPT)
        value = _agent.choose_option(options, args["values"])
        _check(cancelled)
        self._act(
            lambda: element.select_option(value=value, timeout=ACTION_TIMEOUT_MS), "The option could not be selected."
        )
        return "Selected."

    def set_checked(self, args: SetCheckedInput, *, cancelled: Cancelled = None) -> str:
        check_tab(args["tab_id"])
        element = self._element(args["target"], _agent.CHECKABLE)
        _check(cancelled)
        self._act(
            lambda: element.set_checked(args["checked"], timeout=ACTION_TIMEOUT_MS), "The checkbox could not be set."
        )
        return "Checked." if args["checked"] else "Unchecked."
