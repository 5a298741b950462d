"""``AsyncFieldworkDriver``: the asyncio twin of :class:`reference.fieldwork.driver.FieldworkDriver`.

Same flows (``_form``), run with Playwright's async API. Use it with ``AsyncBrowserToolset``.
"""

from __future__ import annotations

from openai.lib.browser import (
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
from playwright.async_api import Page

from reference.flows import async_handler, run_async

from ._form import Cancelled, FormSession


class AsyncFieldworkDriver:
    """Drive the reservation form at ``form_url`` in an async Playwright ``page`` the caller owns."""

    def __init__(self, page: Page, form_url: str, *, observation: bool = True, show_values: bool = True) -> None:
        self._form = FormSession(page, form_url, observation=observation, show_values=show_values, wrap=async_handler)

    @classmethod
    async def open(
        cls, page: Page, form_url: str, *, observation: bool = True, show_values: bool = True
    ) -> AsyncFieldworkDriver:
        """Attach to ``page``, install the network policy on its context, then load the form."""
        driver = cls(page, form_url, observation=observation, show_values=show_values)
        await run_async(driver._form.open())
        return driver

    @property
    def page(self) -> Page:
        return self._form.page  # type: ignore[no-any-return]

    async def state(self) -> BrowserState:
        return await run_async(self._form.state())

    async def read_page(self, args: ReadPageInput, *, cancelled: Cancelled = None) -> BrowserReadV1:
        return await run_async(self._form.read_page(args, cancelled))

    async def get_page_text(self, args: TabInput, *, cancelled: Cancelled = None) -> BrowserReadV1:
        return await run_async(self._form.get_page_text(args, cancelled))

    async def find(self, args: FindInput, *, cancelled: Cancelled = None) -> BrowserReadV1:
        return await run_async(self._form.find(args, cancelled))

    async def wait_for(self, args: WaitForInput, *, cancelled: Cancelled = None) -> str:
        return await run_async(self._form.wait_for(args, cancelled))

    async def screenshot(self, args: TabInput, *, cancelled: Cancelled = None) -> ResponseInputImageContentParam:
        return await run_async(self._form.screenshot(args, cancelled))

    async def click(self, args: ClickInput, *, cancelled: Cancelled = None) -> str:
        return await run_async(self._form.click(args, cancelled))

    async def type(self, args: TypeInput, *, cancelled: Cancelled = None) -> str:
        return await run_async(self._form.type(args, cancelled))

    async def select_option(self, args: SelectOptionInput, *, cancelled: Cancelled = None) -> str:
        return await run_async(self._form.select_option(args, cancelled))

    async def set_checked(self, args: SetCheckedInput, *, cancelled: Cancelled = None) -> str:
        return await run_async(self._form.set_checked(args, cancelled))
