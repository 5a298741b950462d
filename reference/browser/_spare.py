"""Contexts opened ahead of need, so the next driver does not wait for Chromium to start a renderer.

Opening a driver costs a new context and its first page (Chromium starts a renderer process for it, the larger
part of a driver's opening time). An asyncio caller that opens drivers one after another (the kit's
``async_factory``, one driver per check) can have the next context and page made while the current driver works.

A spare is as closed to the network as a context can be until a driver adopts it: its network guard permits no
origin at all, and its one page is ``about:blank``. Adoption gives the guard the driver's origins before anything
is loaded (``_driver._open``). A spare is used once; one that does not fit (another viewport or guard host) is
closed, not reused.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import Any

from reference.policy import OriginSet

from ._guard import NetworkGuard
from ._launch import context_options


@dataclass
class PreparedContext:
    """A fresh context behind a guard that refuses everything, with one blank page; see the module docstring."""

    context: Any
    guard: NetworkGuard
    viewport: tuple[int, int]
    guard_host: str

    def fits(self, viewport: tuple[int, int], guard_host: str) -> bool:
        return self.viewport == viewport and self.guard_host == guard_host

    async def close(self) -> None:
        try:
            with contextlib.suppress(Exception):  # already closed together with its browser
                await self.context.close()
        finally:
            self.guard.close()


async def prepare_context(browser: Any, viewport: tuple[int, int], guard_host: str) -> PreparedContext:
    """Open a spare context and its blank page in ``browser`` (a ``playwright.async_api`` browser)."""
    guard = NetworkGuard(OriginSet(()), guard_host)
    try:
        context = await browser.new_context(**context_options(viewport), proxy=guard.proxy_settings())
    except BaseException:
        guard.close()
        raise
    prepared = PreparedContext(context, guard, viewport, guard_host)
    try:
        await context.new_page()
    except BaseException:
        await prepared.close()
        raise
    return prepared


class SpareContexts:
    """At most one spare context being made in the background, for the next driver of one asyncio loop."""

    def __init__(self) -> None:
        self._pending: asyncio.Task[PreparedContext] | None = None

    def prepare(self, browser: Any, viewport: tuple[int, int], guard_host: str) -> None:
        """Start making a spare for the next driver (on the running loop), unless one is already on its way."""
        if self._pending is None:
            self._pending = asyncio.get_running_loop().create_task(prepare_context(browser, viewport, guard_host))

    async def take(self, viewport: tuple[int, int], guard_host: str) -> PreparedContext | None:
        """The spare, once made, if it fits; None when there is none, it failed, or it does not fit (then closed).

        A failed spare is not an error here: the caller opens a context the ordinary way, which reports what is
        wrong with the browser if anything is.
        """
        pending, self._pending = self._pending, None
        if pending is None:
            return None
        if pending.get_loop() is not asyncio.get_running_loop():
            # Made on a loop the harness has since abandoned (a driver call hung there): it cannot be awaited here.
            pending.cancel()
            return None
        try:
            prepared = await pending
        except Exception:
            return None
        if prepared.fits(viewport, guard_host):
            return prepared
        await prepared.close()
        return None

    async def close(self) -> None:
        """Close the spare (waiting for it if it is still being made)."""
        pending, self._pending = self._pending, None
        if pending is None:
            return
        if pending.get_loop() is not asyncio.get_running_loop():
            pending.cancel()
            return
        try:
            prepared = await pending
        except Exception:
            return
        await prepared.close()
