"""The reference Playwright browser driver (sync and async) for the SDK's ``BrowserToolset``.

Quick start::

    from reference.browser import PlaywrightBrowserDriver, launch
    from reference.toolsets import read_only_browser

    with launch() as browser:  # isolated Chromium, stopped on every exit path
        with PlaywrightBrowserDriver.create(
            browser.browser, allowed_origins=["https://example.com"], start_url="https://example.com/"
        ) as driver:  # its own context, behind its own network guard
            toolset = read_only_browser(driver)
            ...

``AsyncPlaywrightBrowserDriver.create`` and ``launch_async`` are the ``asyncio`` twins. ``sync_factory`` and
``async_factory`` certify the drivers with the kit: ``pytest --driver=reference.browser:sync_factory``.
"""

from ._driver import AsyncPlaywrightBrowserDriver, PlaywrightBrowserDriver
from ._factories import async_factory, sync_factory
from ._launch import AsyncBrowserProcess, LaunchError, SyncBrowserProcess, launch, launch_async
from ._limits import BrowserLimits

__all__ = [
    "AsyncBrowserProcess",
    "AsyncPlaywrightBrowserDriver",
    "BrowserLimits",
    "LaunchError",
    "PlaywrightBrowserDriver",
    "SyncBrowserProcess",
    "async_factory",
    "launch",
    "launch_async",
    "sync_factory",
]
