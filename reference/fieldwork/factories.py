"""Conformance factories: ``pytest --driver=reference.fieldwork:sync_factory`` (or ``async_factory``).

Fieldwork only ever shows its own form, so every check gets the form page of its fixture session
(``fieldwork/reservation.html``) whatever ``env.start_url`` asks for; checks written for other pages then report
what applies (members Fieldwork lacks are "not implemented", checks on other pages see the form instead).
Hints honoured: viewport and observation. Target binding is always on.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, Final

from reference.browser import AsyncBrowserProcess, SyncBrowserProcess

from ._context import context_options
from .async_driver import AsyncFieldworkDriver
from .driver import FieldworkDriver

FORM_PAGE: Final = "fieldwork/reservation.html"
_SHARED_SYNC: Final = "reference.fieldwork.sync-process"
_SHARED_ASYNC: Final = "reference.fieldwork.async-process"


def _viewport(env: Any) -> tuple[int, int]:
    width, height = getattr(env.hints, "viewport", (1280, 720))
    return int(width), int(height)


def _observation(env: Any) -> bool:
    return bool(getattr(env.hints, "observation", True))


def sync_factory(env: Any) -> Iterator[FieldworkDriver]:
    process: SyncBrowserProcess = env.shared(_SHARED_SYNC, SyncBrowserProcess.start, SyncBrowserProcess.close)
    context = process.browser.new_context(**context_options(_viewport(env)))
    try:
        yield FieldworkDriver.open(context.new_page(), env.url(FORM_PAGE), observation=_observation(env))
    finally:
        context.close()


async def async_factory(env: Any) -> AsyncIterator[AsyncFieldworkDriver]:
    process: AsyncBrowserProcess = await env.shared_async(
        _SHARED_ASYNC, AsyncBrowserProcess.start, AsyncBrowserProcess.close
    )
    context = await process.browser.new_context(**context_options(_viewport(env)))
    try:
        page = await context.new_page()
        yield await AsyncFieldworkDriver.open(page, env.url(FORM_PAGE), observation=_observation(env))
    finally:
        await context.close()
