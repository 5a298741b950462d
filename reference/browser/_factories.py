"""Driver factories for the kit's certification harness (``pytest --driver=reference.browser:sync_factory``).

One browser per test process (``env.shared`` / ``env.shared_async``), a fresh isolated context per check that
shows ``env.start_url``, and the check's hints applied: viewport, observation metadata, target-bound consent,
file grants and work limits.

The browser is launched, or connected to when ``DRIVERKIT_BROWSER_WS_ENDPOINT`` (a Playwright server) or
``DRIVERKIT_BROWSER_CDP_ENDPOINT`` (a DevTools endpoint) is set; ``DRIVERKIT_BROWSER_GUARD_HOST`` moves each
driver's network guard off loopback, to where such a browser reaches this machine. A remote browser that
cannot be reached, or that went away, fails the factory with an error naming the endpoint, so the kit reports
it as the factory's failure.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import fields
from typing import Any

from reference.grants import GrantStore

from ._driver import AsyncPlaywrightBrowserDriver, DriverOptions, PlaywrightBrowserDriver
from ._launch import AsyncBrowserProcess, SyncBrowserProcess
from ._limits import BrowserLimits
from ._remote import RemoteBrowser, guard_host, route
from ._spare import SpareContexts

_SHARED_SYNC = "reference.browser.sync-process"
_SHARED_ASYNC = "reference.browser.async-process"
_SHARED_ASYNC_SPARES = "reference.browser.async-spares"


async def _new_spares() -> SpareContexts:
    return SpareContexts()


def _limits(env: Any) -> BrowserLimits:
    # Hints the driver has no limit for are ignored; the checks that depend on them report "not implemented".
    known = {item.name for item in fields(BrowserLimits)}
    requested = dict(getattr(env.hints, "limits", {}) or {})
    return BrowserLimits().with_overrides({name: value for name, value in requested.items() if name in known})


def _issue_grants(env: Any, store: GrantStore, owner: str) -> None:
    for grant in getattr(env.hints, "grants", ()) or ():
        store.issue(
            grant.grant_id,
            kind=grant.kind,
            owner=owner,
            file_name=grant.file_name,
            content=grant.content,
            max_bytes=grant.max_bytes,
            expires_in_s=grant.expires_in_s,
        )


def _report_route(env: Any, remote: RemoteBrowser | None) -> None:
    # The kit's environment records it on the certificate; an environment without the method (an older kit, a
    # caller's own) is simply not told.
    report = getattr(env, "report_browser_route", None)
    if callable(report):
        report(route(remote))


def _viewport(env: Any) -> tuple[int, int]:
    width, height = getattr(env.hints, "viewport", (1280, 720))
    return int(width), int(height)


def _options(env: Any, grants: GrantStore) -> DriverOptions:
    """The driver options the kit's environment asks for, the same for both flavours."""
    return DriverOptions(
        viewport=_viewport(env),
        limits=_limits(env),
        observation=bool(getattr(env.hints, "observation", True)),
        bind_targets=bool(getattr(env.hints, "bind_targets", False)),
        grants=grants,
        start_url=env.start_url,
        guard_host=guard_host(),
    )


def sync_factory(env: Any) -> Iterator[PlaywrightBrowserDriver]:
    process: SyncBrowserProcess = env.shared(_SHARED_SYNC, SyncBrowserProcess.start, SyncBrowserProcess.close)
    _report_route(env, process.remote)
    grants = GrantStore()
    try:
        driver = PlaywrightBrowserDriver.create(
            process.usable(), allowed_origins=env.allowed_origins, **_options(env, grants)
        )
    except Exception as error:
        process.explain(error)  # a connected browser that went away is the error to report, not its symptom
        raise
    try:
        _issue_grants(env, grants, driver.owner)
        yield driver
    finally:
        driver.close()


async def async_factory(env: Any) -> AsyncIterator[AsyncPlaywrightBrowserDriver]:
    process: AsyncBrowserProcess = await env.shared_async(
        _SHARED_ASYNC, AsyncBrowserProcess.start, AsyncBrowserProcess.close
    )
    # After the process, so it is closed before the browser is (shared resources close in reverse order).
    spares: SpareContexts = await env.shared_async(_SHARED_ASYNC_SPARES, _new_spares, SpareContexts.close)
    _report_route(env, process.remote)
    grants = GrantStore()
    options = _options(env, grants)
    viewport, host = options["viewport"], options["guard_host"]
    browser = process.usable()
    try:
        driver = await AsyncPlaywrightBrowserDriver.create(
            browser,
            allowed_origins=env.allowed_origins,
            prepared=await spares.take(viewport, host),
            **options,
        )
    except Exception as error:
        process.explain(error)  # a connected browser that went away is the error to report, not its symptom
        raise
    # The next check's context and page are made while this one runs (most checks share a viewport).
    spares.prepare(browser, viewport, host)
    try:
        _issue_grants(env, grants, driver.owner)
        yield driver
    finally:
        await driver.close()
