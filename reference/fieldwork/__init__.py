"""Fieldwork: a browser driver for one owned reservation form (``fixtures/pages/fieldwork/reservation.html``).

    from reference.browser import launch
    from reference.fieldwork import FieldworkDriver, context_options

    with launch() as process:
        context = process.browser.new_context(**context_options())
        driver = FieldworkDriver.open(context.new_page(), "http://127.0.0.1:8000/fieldwork/reservation.html")
        ...  # BrowserToolset(driver, members=[...], confirm=...)
        context.close()

It reads the form as ``BrowserReadV1`` with refs bound to one rendering of one document, acts only through those
refs (no ``key``, no untargeted ``type``), refuses to work on any other page and blocks other origins.
"""

from ._context import context_options
from .async_driver import AsyncFieldworkDriver
from .driver import FieldworkDriver
from .factories import FORM_PAGE, async_factory, sync_factory

FIELDWORK_MEMBERS = ("read_page", "get_page_text", "find", "click", "type", "select_option", "set_checked", "wait_for")

__all__ = [
    "FIELDWORK_MEMBERS",
    "FORM_PAGE",
    "AsyncFieldworkDriver",
    "FieldworkDriver",
    "async_factory",
    "context_options",
    "sync_factory",
]
