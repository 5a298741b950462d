"""A ``--driver`` factory for the openai SDK's read-only browser example (``examples/browser/read_only.py``).

``pytest --driver=tests.published.sdk_reader:make_driver`` with the example's folder of the SDK's source
distribution on PYTHONPATH (`pip download --no-deps --no-binary :all: openai==<installed version>`: the
example's code is never copied into this repository). The driver is the example's own ``ReadOnlyBrowser``,
made as the example's ``open_reader`` makes it, with only what the kit's task needs pointed elsewhere:

- ``open_reader`` serves its own documents on ``http://reader.invalid/`` and cannot be pointed at another site
  (its document keys must be paths on that origin), so the factory does its few steps itself: a headless
  Chromium started with the example's launch options (the same three environment variables, the sandbox kept),
  a context with service workers blocked and downloads refused, a route guard that answers a GET of an owned
  page and aborts every other request, WebSockets closed, the first page opened with ``page.goto``, then
  ``ReadOnlyBrowser(page, pages, browser)``.
- The owned pages ("the exact allowed URLs", the example's guide to adapting it) are the kit's fixture pages on
  its permitted origin, served by the kit instead of from memory, since they are the kit's documents. Nothing
  else is owned: not the pages' own scripts (recorder.js) nor their posts, which the guard refuses as the
  example's does.
- Debian's Chromium at /usr/bin/chromium (the example's bundled Playwright Chromium is not installed here; its
  README offers another channel for that), and no sandbox as root, where Chromium cannot start one.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import Any

from playwright.async_api import Route, WebSocketRoute, async_playwright

from conformance import resources
from conformance.harness.environment import Environment

CHROMIUM = "/usr/bin/chromium"


def _owned_pages(env: Environment) -> dict[str, str]:
    # The kit's HTML documents at their session URLs: the reader's exact allowed URLs for this task.
    root = resources.pages()
    names = sorted(path.relative_to(root).as_posix() for path in root.rglob("*.html"))
    pages = {env.url(name): name for name in names}
    pages[env.start_url] = env.start_url
    return pages


async def make_driver(env: Environment) -> AsyncIterator[Any]:
    from read_only import ReadOnlyBrowser  # type: ignore[import-not-found]  # from the downloaded sdist only

    pages = _owned_pages(env)
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

            # open_reader's guard: only a GET of an owned page goes through; every other request is refused.
            async def route(request: Route) -> None:
                if request.request.url not in pages or request.request.method != "GET":
                    await request.abort()
                    return
                await request.continue_()

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
