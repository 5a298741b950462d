"""A ``--driver`` factory for browser-use's OpenAI driver (``browser_use.integrations.openai.BrowserUse``).

``pytest --driver=tests.published.browser_use:make_driver`` with browser-use importable from a folder of its own
(test_published_drivers.install puts it there: it is not one of the kit's dependencies). Made the way browser-use
0.13.14 documents the integration, for one task:

- ``BrowserUse``'s docstring ("own a browser session or borrow an already connected session") and the sibling
  Claude adapter's, which spells it out: with no argument the driver makes and manages a default local
  ``BrowserSession``; a supplied one is borrowed and must already be running. A default session cannot be told
  which Chromium, viewport or domains to use, so the factory borrows one: it builds a ``BrowserSession`` from
  browser-use's own ``BrowserProfile`` options, starts it, and enters the driver with ``async with`` as the
  package README's quick start does (``async with driver, ...``).
- The task's permitted origins go to the profile's ``allowed_domains``, whose description gives full-URL patterns
  such as "https://example.com" as one accepted form: that form keeps the port, so the factory passes the
  origins as they are. Enforcing them is browser-use's own business (its security watchdog); the factory adds no
  guard of its own.
- The start page is opened with the driver's own ``navigate``.

Left as browser-use has them: everything about how the driver behaves. Not mapped: the kit's caller-issued file
grants. browser-use's driver issues its own grants (``grant_upload`` / ``grant_download`` return a fresh key bound
to an element and a document), so no grant ID chosen by a caller can reach it; the file checks then say so
("unverified") instead of the factory reaching into the driver's private grant table. The kit's other hints
(observation format, target-bound consent, limits) have no option in this driver to map onto.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from typing import Any

from conformance.harness.environment import Environment

# Debian's Chromium; browser-use would otherwise look for a Chrome of its own (or install one with Playwright).
CHROMIUM = "/usr/bin/chromium"


async def make_driver(env: Environment) -> AsyncIterator[Any]:
    # Installed apart from the kit (never in its environment), so mypy cannot see these modules.
    from browser_use.browser.session import BrowserSession  # type: ignore[import-not-found]
    from browser_use.integrations.openai import BrowserUse  # type: ignore[import-not-found]

    width, height = env.hints.viewport
    session = BrowserSession(
        executable_path=CHROMIUM,
        headless=True,
        # Chromium refuses to start its sandbox as root; browser-use then adds its own --no-sandbox set.
        chromium_sandbox=os.geteuid() != 0,
        viewport={"width": width, "height": height},
        allowed_domains=list(env.allowed_origins),
        # Its default extensions (an ad blocker, a cookie-banner clicker, a URL cleaner) are downloaded from the web
        # on first start: this machine has no route there, and they are not part of the OpenAI driver.
        enable_default_extensions=False,
    )
    env.report_browser_route("launched")
    await session.start()
    try:
        async with BrowserUse(session) as driver:
            await driver.navigate({"url": env.start_url, "tab_id": None})
            yield driver
    finally:
        # A borrowed session is the caller's to end (the driver's close leaves it running).
        await session.kill()
        profile = session.browser_profile.user_data_dir
        if profile is not None:
            shutil.rmtree(profile, ignore_errors=True)
