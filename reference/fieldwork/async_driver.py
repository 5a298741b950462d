"""``AsyncFieldworkDriver``: the asyncio twin of :class:`reference.fieldwork.driver.FieldworkDriver`.

Same scope, refs and refusals (the shared rules live in ``_agent``, ``_scope`` and ``_state``); only the
Playwright calls are awaited. Use it with ``AsyncBrowserToolset``.
"""

from __future__ import annotations

import asyncio
import base64
import time
from collections.abc import Awaitable, Callable, Sequence

from openai.lib.browser import (
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
from playwright.async_api import ElementHandle, Frame, Page, Route
from playwright.async_api import Error as PlaywrightError

from . import _agent
from ._scope import FormScope, check_tab
from ._state import ObservationLog, tab_state
from .driver import _OPTIONS_SCRIPT, ACTION_TIMEOUT_MS, Cancelled, _check


class AsyncFieldworkDriver:
    """Drive the reservation form at ``form_url`` in an async Playwright ``page`` the caller owns."""

    def __init__(self, page: Page, form_url: str, *, observation: bool = True, show_values: bool = True) -> None:
        self.page = page
        self.scope = FormScope(form_url)
        self._log = ObservationLog() if observation else None
        self._show_values = show_values
        self._documents = 0
        page.on("framenavigated", self._on_navigation)
        page.on("dialog", lambda dialog: asyncio.ensure_future(dialog.dismiss()))
        page.on("popup", lambda popup: asyncio.ensure_future(popup.close()))

    @classmethod
    async def open(cls, page: Page, form_url: str, **options: bool) -> AsyncFieldworkDriver:
        """Attach to ``page``, install the network policy, then load the form."""
        driver = cls(page, form_url, **options)
        await page.context.route("**/*", driver._route)
        await page.goto(form_url, wait_until="load")
        return driver

    # ----------------------------------------------------------------------------------- plumbing

    async def _route(self, route: Route) -> None:
        if self.scope.allows_request(route.request.url):
            await route.continue_()
        else:
            await route.abort("blockedbyclient")

    def _on_navigation(self, frame: Frame) -> None:
        if frame == self.page.main_frame and self._log is not None:
            self._log.navigated()

    async def _agent(self, request: dict[str, object]) -> object:
        try:
            return await self.page.evaluate(_agent.agent_source(), request)
        except PlaywrightError:
            raise BrowserError("The form could not be read right now.") from None

    async def _read(self) -> dict[str, object]:
        self.scope.require_form(self.page.url)
        raw = await self._agent(_agent.read_request(self._documents + 1, values=self._show_values))
        answer = dict(_agent.answer(raw))
        if answer.get("stamped"):
            self._documents += 1
        return answer

    async def _element(self, ref: str | None, roles: Sequence[str]) -> ElementHandle:
        if ref is None:
            raise BrowserError("Fieldwork needs a target ref from a read; it never acts on the focused control.")
        self.scope.require_form(self.page.url)
        try:
            handle = await self.page.evaluate_handle(_agent.agent_source(), _agent.resolve_request(ref, roles))
        except PlaywrightError:
            raise BrowserError("The form could not be read right now.") from None
        element = handle.as_element()
        if element is None:
            code = await handle.json_value()
            await handle.dispose()
            _agent.answer(code)  # raises the refusal that matches the agent's error code
            raise BrowserError("The form refused that action.")
        return element

    async def _act(self, action: Callable[[], Awaitable[object]], failure: str) -> None:
        try:
            await action()
        except PlaywrightError:
            raise BrowserError(failure) from None

    # ----------------------------------------------------------------------------------- state and reads

    async def state(self) -> BrowserState:
        return tab_state(self.page.url, await self.page.title(), self._log)

    async def read_page(self, args: ReadPageInput, *, cancelled: Cancelled = None) -> BrowserReadV1:
        check_tab(args["tab_id"])
        _check(cancelled)
        return _agent.structured_read(await self._read(), filter=args["filter"])

    async def get_page_text(self, args: TabInput, *, cancelled: Cancelled = None) -> BrowserReadV1:
        check_tab(args["tab_id"])
        _check(cancelled)
        return _agent.text_read(await self._read())

    async def find(self, args: FindInput, *, cancelled: Cancelled = None) -> BrowserReadV1:
        check_tab(args["tab_id"])
        _check(cancelled)
        return _agent.found(_agent.structured_read(await self._read(), filter="all"), args["query"])

    async def wait_for(self, args: WaitForInput, *, cancelled: Cancelled = None) -> str:
        check_tab(args["tab_id"])
        wanted = " ".join(args["text"].split())
        deadline = time.monotonic() + args["timeout_ms"] / 1000
        while True:
            _check(cancelled)
            if wanted in str((await self._read()).get("text") or ""):
                return "The text is on the form."
            if time.monotonic() >= deadline:
                raise BrowserError("The text did not appear before the timeout.")
            await asyncio.sleep(0.05)

    async def screenshot(self, args: TabInput, *, cancelled: Cancelled = None) -> ResponseInputImageContentParam:
        check_tab(args["tab_id"])
        _check(cancelled)
        self.scope.require_form(self.page.url)
        try:
            png = await self.page.screenshot(type="png")
        except PlaywrightError:
            raise BrowserError("The screenshot could not be taken.") from None
        return {"type": "input_image", "image_url": "data:image/png;base64," + base64.b64encode(png).decode()}

    # ----------------------------------------------------------------------------------- actions

    async def click(self, args: ClickInput, *, cancelled: Cancelled = None) -> str:
        check_tab(args["tab_id"])
        element = await self._element(args["target"], _agent.CLICKABLE)
        _check(cancelled)
        await self._act(lambda: element.click(timeout=ACTION_TIMEOUT_MS), "The control could not be clicked.")
        return "Clicked."

    async def type(self, args: TypeInput, *, cancelled: Cancelled = None) -> str:
        check_tab(args["tab_id"])
        element = await self._element(args["target"], _agent.TYPABLE)
        _agent.check_entry(await element.get_attribute("type"), args["text"])
        _check(cancelled)
        await self._act(
            lambda: element.fill(args["text"], timeout=ACTION_TIMEOUT_MS),
            "That field did not accept the text.",
        )
        return "Entered."

    async def select_option(self, args: SelectOptionInput, *, cancelled: Cancelled = None) -> str:
        check_tab(args["tab_id"])
        element = await self._element(args["target"], _agent.SELECTABLE)
        value = _agent.choose_option(await element.evaluate(_OPTIONS_SCRIPT), args["values"])
        _check(cancelled)
        await self._act(
            lambda: element.select_option(value=value, timeout=ACTION_TIMEOUT_MS), "The option could not be selected."
        )
        return "Selected."

    async def set_checked(self, args: SetCheckedInput, *, cancelled: Cancelled = None) -> str:
        check_tab(args["tab_id"])
        element = await self._element(args["target"], _agent.CHECKABLE)
        _check(cancelled)
        await self._act(
            lambda: element.set_checked(args["checked"], timeout=ACTION_TIMEOUT_MS), "The checkbox could not be set."
        )
        return "Checked." if args["checked"] else "Unchecked."
