"""A ``--driver`` factory for the openai SDK's read-only browser example (``examples/browser/read_only.py``).

``pytest --driver=tests.published.sdk_reader:make_driver`` with the example's folder of the SDK's source
distribution on PYTHONPATH (`pip download --no-deps --no-binary :all: openai==<installed version>`: the
example's code is never copied into this repository). The driver is the example's own ``ReadOnlyBrowser``,
made as the example's ``open_reader`` makes it, with only what the kit's task needs pointed elsewhere:

- ``open_reader`` serves its own documents on ``http://reader.invalid/`` and cannot be pointed at another site
  (its document keys must be paths on that origin), so the factory does its few steps itself: a headless
  Chromium started with the example's launch options (the same three environment variables, the sandbox kept),
  a context with service workers blocked and downloads refused, a route guard that lets an owned URL through
  and aborts every other request, WebSockets closed, the first page opened with ``page.goto``, then
  ``ReadOnlyBrowser(page, pages, browser)``.
- The owned pages ("the exact allowed URLs", the example's guide to adapting it) are the kit's task's URLs:
  every URL of the kit's permitted origin, query strings and the kit's endpoints included, served by the kit
  instead of from memory (a dict that answers ``url in pages`` for that origin). The guard lets them through
  whatever the method, since the kit's pages post their reports to it (the example's guard refuses anything it
  did not serve itself, so the pages could never tell the kit what happened to them, and nothing would be
  checked). Every other origin is refused, so the checks of where the browser may go still judge it.
- Debian's Chromium at /usr/bin/chromium (the example's bundled Playwright Chromium is not installed here; its
  README offers another channel for that), and no sandbox as root, where Chromium cannot start one.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urljoin

from playwright.async_api import Route, WebSocketRoute, async_playwright

from conformance.harness.environment import Environment
from tests.published.task_urls import TaskUrls

CHROMIUM = "/usr/bin/chromium"


async def make_driver(env: Environment) -> AsyncIterator[Any]:
    from read_only import ReadOnlyBrowser  # type: ignore[import-not-found]  # from the downloaded sdist only

    pages = TaskUrls(env.allowed_origins)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            chromium_sandbox=os.geteuid() != 0,
            env={name: value for name in ("PATH", "HOME", "TMPDIR") if (value := os.environ.get(name)) is not None},
        )
        env.report_browser_route("launched")
        driver: Any = None
        try:
            context = await browser.new_context(service_workers="block", accept_downloads=False)

            # open_reader's guard answers an owned URL itself and aborts everything else, so nothing it does not own
            # ever loads. It answers from memory, so no answer of its can redirect; the kit's server can, so an
            # owned URL is fetched here without following redirects, and one pointing elsewhere is not an owned
            # answer (Chromium would follow it without asking this guard again).
            async def route(request: Route) -> None:
                if request.request.url not in pages:
                    await request.abort()
                    return
                response = await request.fetch(max_redirects=0)
                location = urljoin(request.request.url, response.headers.get("location", ""))
                if 300 <= response.status < 400 and location not in pages:
                    await request.abort()
                    return
                await request.fulfill(response=response)

            async def refuse_socket(socket: WebSocketRoute) -> None:
                await socket.close()

            await context.route("**/*", route)
            await context.route_web_socket("**/*", refuse_socket)
            page = await context.new_page()
            await page.goto(env.start_url)
            driver = ReadOnlyBrowser(page, pages, browser)
            yield driver
        finally:
            if driver is None:
                await browser.close()
            else:
                await driver.close()
