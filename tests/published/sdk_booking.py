"""A ``--driver`` factory for the openai SDK's booking example driver (``examples/browser-use-demo/booking.py``).

``pytest --driver=tests.published.sdk_booking:make_driver`` with the example's folder of the SDK's source
distribution on PYTHONPATH (`pip download --no-deps --no-binary :all: openai==<installed version>`: the
example's code is never copied into this repository). The driver is the example's own ``BookingBrowser``, made as
the example's runner (``Run.initialize`` in runner.py) makes it: a context with service workers blocked and
downloads refused, ``BookingBrowser(context, url)``, the driver's own ``guard`` routed for every request,
WebSockets closed, and the driver's own ``open``. The browser is launched with the options of the example's
server.py (headless, the same three environment variables, no SIGINT handling, the sandbox kept).

Pointed elsewhere, and nothing more: the driver's one page ``url`` is the kit's start page; its guard sees
every request but those to the kit's permitted origins, which go through first (as the kit's certificate asks of
a guard that blocks its pages' recorder and reports: otherwise nothing could be checked); the context's
viewport is the one the task asks for (the runner picks 1024x720 for its own page); Debian's Chromium at
/usr/bin/chromium (the example's bundled Playwright Chromium is not installed here; its README offers another
channel for that), without the sandbox as root, where Chromium cannot start one.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import Any

from playwright.async_api import Route, WebSocketRoute, async_playwright

from conformance.harness.environment import Environment
from tests.published.task_urls import TaskUrls

CHROMIUM = "/usr/bin/chromium"


async def make_driver(env: Environment) -> AsyncIterator[Any]:
    from booking import BookingBrowser  # type: ignore[import-not-found]  # from the downloaded sdist only

    width, height = env.hints.viewport
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            chromium_sandbox=os.geteuid() != 0,
            handle_sigint=False,
            env={name: value for name in ("PATH", "HOME", "TMPDIR") if (value := os.environ.get(name)) is not None},
        )
        env.report_browser_route("launched")
        try:
            context = await browser.new_context(
                viewport={"width": width, "height": height}, service_workers="block", accept_downloads=False
            )
            driver = BookingBrowser(context, env.start_url)
            kit_urls = TaskUrls(env.allowed_origins)

            # The driver's own guard, after the kit's origins (its pages' recorder and reports) are let through.
            async def guard(route: Route) -> None:
                if route.request.url in kit_urls:
                    await route.continue_()
                else:
                    await driver.guard(route)

            await context.route("**/*", guard)

            async def refuse_socket(route: WebSocketRoute) -> None:
                await route.close()

            await context.route_web_socket("**/*", refuse_socket)
            await driver.open()
            yield driver
        finally:
            await browser.close()
