"""``AsyncFieldworkDriver``: the asyncio twin of :class:`reference.fieldwork.driver.FieldworkDriver`.

Same flows (``_form``), run with Playwright's async API. Use it with ``AsyncBrowserToolset``. Each member is the
sync driver's member of the same name made ``async`` (``reference.twins``): same signature, the same-named flow.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Page

from reference.flows import async_handler, run_async
from reference.twins import async_twin

from ._form import FormSession
from .driver import FieldworkDriver


async def _run_flow(driver: AsyncFieldworkDriver, member: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return await run_async(getattr(driver._form, member)(*args, **kwargs))


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

    state = async_twin(FieldworkDriver.state, _run_flow)
    read_page = async_twin(FieldworkDriver.read_page, _run_flow)
    get_page_text = async_twin(FieldworkDriver.get_page_text, _run_flow)
    find = async_twin(FieldworkDriver.find, _run_flow)
    wait_for = async_twin(FieldworkDriver.wait_for, _run_flow)
    screenshot = async_twin(FieldworkDriver.screenshot, _run_flow)
    click = async_twin(FieldworkDriver.click, _run_flow)
    type = async_twin(FieldworkDriver.type, _run_flow)
    select_option = async_twin(FieldworkDriver.select_option, _run_flow)
    set_checked = async_twin(FieldworkDriver.set_checked, _run_flow)
