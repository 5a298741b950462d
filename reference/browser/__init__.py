"""The reference Playwright browser driver (sync and async) for the SDK's ``BrowserToolset``.

Quick start::

    from reference.browser import PlaywrightBrowserDriver, launch

    with launch() as browser:
        context = browser.new_context()
        try:
            driver = PlaywrightBrowserDriver.create(
                context, allowed_origins=["https://example.com"], start_url="https://example.com/"
            )
            ...  # pass it to reference.toolsets.read_only_browser(driver) or interactive_browser(...)
        finally:
            context.close()
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
