"""Spare contexts (reference.browser._spare): made ahead of need, closed to the network until a driver adopts one."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from playwright.async_api import Error as PlaywrightError

from conformance.harness.environment import Environment
from reference.browser import AsyncBrowserProcess, AsyncPlaywrightBrowserDriver
from reference.browser._spare import SpareContexts, prepare_context

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser]

VIEWPORT = (1280, 720)
HOST = "127.0.0.1"


def test_a_spare_reaches_nothing_until_a_driver_adopts_it(env: Environment) -> None:
    async def go() -> None:
        process = await AsyncBrowserProcess.start()
        try:
            prepared = await prepare_context(process.usable(), VIEWPORT, HOST)
            try:
                page = prepared.context.pages[0]
                assert page.url == "about:blank"
                with contextlib.suppress(PlaywrightError):  # the guard's refusal aborts the navigation
                    await page.goto(env.url("tabs-a.html"), wait_until="commit")
                assert page.url == "about:blank", "the spare's guard let its page load a fixture page"
            finally:
                await prepared.close()
        finally:
            await process.close()

    asyncio.run(go())
    assert not env.requests(), "a spare context reached the fixture server before any driver adopted it"


def test_a_driver_adopts_a_spare_with_its_own_origins_and_closes_it(env: Environment) -> None:
    async def go() -> None:
        process = await AsyncBrowserProcess.start()
        spares = SpareContexts()
        try:
            spares.prepare(process.usable(), VIEWPORT, HOST)
            prepared = await spares.take(VIEWPORT, HOST)
            assert prepared is not None
            driver = await AsyncPlaywrightBrowserDriver.create(
                process.usable(), allowed_origins=[env.main_origin], start_url=env.url("tabs-a.html"), prepared=prepared
            )
            try:
                state = await driver.state()
                assert [tab["title"] for tab in state["tabs"]] == ["Tabs A"]
                # The page itself (not the driver's navigate, which checks the URL first) tries the other origin:
                # only the guard, now holding the driver's origins, stands in the way.
                page = prepared.context.pages[0]
                with contextlib.suppress(PlaywrightError):
                    await page.goto(env.url("tabs-b.html", origin="other"), wait_until="commit")
                assert await page.title() == "Tabs A"
            finally:
                await driver.close()
            assert prepared.context not in process.usable().contexts, "closing the driver left the spare's context open"
        finally:
            await spares.close()
            await process.close()

    asyncio.run(go())
    assert not env.requests("other"), "the adopted spare reached the non-permitted origin"


def test_a_spare_that_does_not_fit_is_closed_not_used() -> None:
    async def go() -> None:
        process = await AsyncBrowserProcess.start()
        spares = SpareContexts()
        try:
            spares.prepare(process.usable(), VIEWPORT, HOST)
            assert await spares.take((800, 600), HOST) is None
            assert process.usable().contexts == [], "the spare that did not fit was left open"
            spares.prepare(process.usable(), VIEWPORT, HOST)
            await spares.close()
            assert process.usable().contexts == [], "closing the spares left a context open"
            assert await spares.take(VIEWPORT, HOST) is None
        finally:
            await process.close()

    asyncio.run(go())
