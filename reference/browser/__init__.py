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

``launch(ws_endpoint=...)`` connects to a Playwright server and ``launch(cdp_endpoint=...)`` to a DevTools
endpoint instead of launching (or set ``DRIVERKIT_BROWSER_WS_ENDPOINT`` / ``DRIVERKIT_BROWSER_CDP_ENDPOINT``);
each driver still opens its own guarded context there and closes only that.

``AsyncPlaywrightBrowserDriver.create`` and ``launch_async`` are the ``asyncio`` twins. ``sync_factory`` and
``async_factory`` certify the drivers with the kit: ``pytest --driver=reference.browser:sync_factory``.
"""

from ._driver import AsyncPlaywrightBrowserDriver, PlaywrightBrowserDriver
from ._errors import LaunchError, RemoteBrowserError
from ._factories import async_factory, sync_factory
from ._launch import AsyncBrowserProcess, SyncBrowserProcess, launch, launch_async
from ._limits import BrowserLimits
from ._remote import CDP_ENDPOINT_VARIABLE, CONNECT_TIMEOUT_VARIABLE, WS_ENDPOINT_VARIABLE, RemoteBrowser

__all__ = [
    "CDP_ENDPOINT_VARIABLE",
    "CONNECT_TIMEOUT_VARIABLE",
    "WS_ENDPOINT_VARIABLE",
    "AsyncBrowserProcess",
    "AsyncPlaywrightBrowserDriver",
    "BrowserLimits",
    "LaunchError",
    "PlaywrightBrowserDriver",
    "RemoteBrowser",
    "RemoteBrowserError",
    "SyncBrowserProcess",
    "async_factory",
    "launch",
    "launch_async",
    "sync_factory",
]
