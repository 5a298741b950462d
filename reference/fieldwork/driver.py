"""``FieldworkDriver``: the synchronous driver for one owned reservation form, on a Playwright page.

Every member is the flow of the same name in ``_form`` (which says what Fieldwork claims and refuses), run
with Playwright's sync API.
"""

from __future__ import annotations

from openai.lib import browser
from openai.types.responses import ResponseInputImageContentParam
from playwright.sync_api import Page

from reference.flows import run_sync, sync_handler

from ._form import Cancelled, FormSession


class FieldworkDriver:
    """Drive the reservation form at ``form_url`` in ``page`` (which the caller owns and closes).

    ``observation=False`` reports legacy state without observation metadata. ``show_values`` controls whether
    reads include the fields' current values (the form is the application's own, so it allows them by default).
    """

    def __init__(self, page: Page, form_url: str, *, observation: bool = True, show_values: bool = True) -> None:
        self._form = FormSession(page, form_url, observation=observation, show_values=show_values, wrap=sync_handler)

    @classmethod
    def open(cls, page: Page, form_url: str, *, observation: bool = True, show_values: bool = True) -> FieldworkDriver:
        """Attach to ``page``, install the network policy on its context, then load the form.

        The policy is installed on the whole context (popups and workers included), so give each driver a context
        of its own.
        """
        driver = cls(page, form_url, observation=observation, show_values=show_values)
        run_sync(driver._form.open())
        return driver

    @property
    def page(self) -> Page:
        return self._form.page  # type: ignore[no-any-return]

    def state(self) -> browser.BrowserState:
        return run_sync(self._form.state())

    def read_page(self, args: browser.ReadPageInput, *, cancelled: Cancelled = None) -> browser.BrowserReadV1:
        return run_sync(self._form.read_page(args, cancelled))

    def get_page_text(self, args: browser.TabInput, *, cancelled: Cancelled = None) -> browser.BrowserReadV1:
        return run_sync(self._form.get_page_text(args, cancelled))

    def find(self, args: browser.FindInput, *, cancelled: Cancelled = None) -> browser.BrowserReadV1:
        return run_sync(self._form.find(args, cancelled))

    def wait_for(self, args: browser.WaitForInput, *, cancelled: Cancelled = None) -> str:
        return run_sync(self._form.wait_for(args, cancelled))

    def screenshot(self, args: browser.TabInput, *, cancelled: Cancelled = None) -> ResponseInputImageContentParam:
        return run_sync(self._form.screenshot(args, cancelled))

    def click(self, args: browser.ClickInput, *, cancelled: Cancelled = None) -> str:
        return run_sync(self._form.click(args, cancelled))

    def type(self, args: browser.TypeInput, *, cancelled: Cancelled = None) -> str:
        return run_sync(self._form.type(args, cancelled))

    def select_option(self, args: browser.SelectOptionInput, *, cancelled: Cancelled = None) -> str:
        return run_sync(self._form.select_option(args, cancelled))

    def set_checked(self, args: browser.SetCheckedInput, *, cancelled: Cancelled = None) -> str:
        return run_sync(self._form.set_checked(args, cancelled))
