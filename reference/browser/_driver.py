"""The two public drivers: :class:`PlaywrightBrowserDriver` (sync) and :class:`AsyncPlaywrightBrowserDriver`.

Each member is a one-line delegation to the flow that implements it (see ``reference.flows``): the classes exist so
the SDK sees real ``def``/``async def`` methods with typed arguments and the keyword-only ``cancelled``
parameter, which is how it detects the flavour and passes the caller's stop predicate.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypedDict, TypeVar

from openai.lib.browser import (
    BrowserFileInput,
    BrowserFileOutcome,
    BrowserReadV1,
    BrowserScopedReadV1,
    BrowserState,
    ClickAtInput,
    ClickInput,
    DragPathInput,
    FindInput,
    HoldKeysInput,
    HoverAtInput,
    KeyInput,
    NavigateInput,
    NewTabInput,
    ReadDiagnosticsInput,
    ReadPageInput,
    ReadPageScopedInput,
    RunScriptInput,
    ScrollInput,
    SelectOptionInput,
    SetCheckedInput,
    TabInput,
    TypeInput,
    WaitForInput,
    ZoomInput,
)
from openai.types.responses import ResponseInputImageContentParam
from typing_extensions import Unpack

from reference.flows import Flow, async_handler, call, run_async, run_sync, sync_handler
from reference.grants import GrantStore
from reference.policy import OriginSet

from . import _actions, _capture, _extras, _pointer, _reads, _tabs
from ._guard import NetworkGuard
from ._launch import context_options
from ._limits import BrowserLimits
from ._session import BrowserSession, Cancelled
from ._spare import PreparedContext

F = TypeVar("F", bound=Callable[..., Any])


class _focus_member(Generic[F]):
    """A member that acts on the current focus, hidden when consent is bound to targets.

    spec/000 "Confirmation, navigation, and recovery": with target-bound consent, ``key`` must not be offered.
    Raising AttributeError makes ``getattr(driver, "key", None)`` return None, so the SDK never registers it.
    """

    def __init__(self, function: F) -> None:
        self._function = function

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    def __get__(self, instance: Any, owner: type | None = None) -> F:
        if instance is None:
            return self._function
        if instance._session.bind_targets:
            raise AttributeError(f"{self._name} is not offered when consent is bound to controls")
        return self._function.__get__(instance, owner)  # type: ignore[no-any-return]


class DriverOptions(TypedDict, total=False):
    """Options of ``create`` for both drivers (all optional).

    ``viewport`` (CSS pixels, default 1280x720); ``limits`` (:class:`BrowserLimits`); ``observation`` (report
    observation metadata V1 in state, default True); ``bind_targets`` (consent tied to a control: ``type`` needs
    a target and ``key`` is not offered); ``grants`` (the :class:`GrantStore` file transfers redeem from);
    ``owner`` (the identity grants are issued to; random by default); ``start_url`` (a permitted page shown in
    the first tab before the change history starts); ``compact_reads`` (``read_page``, ``get_page_text`` and
    ``find`` return the compact text rendering, same refs and privacy rules, instead of ``BrowserReadV1``);
    ``guard_host`` (the address of this machine the network guard listens on, default 127.0.0.1: a browser
    elsewhere must reach the guard there, since all its traffic goes through it).
    """

    viewport: tuple[int, int]
    limits: BrowserLimits | None
    observation: bool
    bind_targets: bool
    grants: GrantStore | None
    owner: str | None
    start_url: str | None
    compact_reads: bool
    guard_host: str


def _open(
    browser: Any,
    allowed_origins: Iterable[str] | OriginSet,
    options: DriverOptions,
    *,
    asynchronous: bool,
    prepared: PreparedContext | None = None,
) -> Flow[BrowserSession]:
    """Open the driver's isolated, guarded context and its session; on any failure nothing is left open.

    ``prepared`` is a spare context made ahead of need (``_spare``) that fits these options: the driver adopts it
    instead of opening one, giving its guard the driver's origins before any page loads.
    """
    unknown = sorted(set(options) - set(DriverOptions.__annotations__))
    if unknown:
        raise TypeError(f"unknown driver options: {', '.join(unknown)}")
    origins = allowed_origins if isinstance(allowed_origins, OriginSet) else OriginSet(allowed_origins)
    viewport = options.get("viewport", (1280, 720))
    guard_host = options.get("guard_host", "127.0.0.1")
    if prepared is not None:
        if not prepared.fits(viewport, guard_host):
            raise ValueError("the prepared context was made for another viewport or guard host")
        guard, context = prepared.guard, prepared.context
        guard.origins = origins  # until now it permitted nothing; its only page is still blank
    else:
        guard = NetworkGuard(origins, guard_host)
        try:
            context = yield call(browser, "new_context", **context_options(viewport), proxy=guard.proxy_settings())
        except BaseException:
            guard.close()
            raise
    session = BrowserSession(
        context,
        origins=guard.origins,
        limits=options.get("limits") or BrowserLimits(),
        observation=options.get("observation", True),
        bind_targets=options.get("bind_targets", False),
        grants=options.get("grants"),
        owner=options.get("owner") or "driver-" + secrets.token_hex(6),
        guard=guard,
        compact_reads=options.get("compact_reads", False),
        wrap=async_handler if asynchronous else sync_handler,
    )
    try:
        yield from session.install()
        start_url = options.get("start_url")
        if start_url is not None:
            yield from session.open_start_page(start_url)
    except BaseException:
        with contextlib.suppress(Exception):
            yield call(context, "close")
        guard.close()
        raise
    return session


class PlaywrightBrowserDriver:
    """A full browser driver over ``playwright.sync_api`` for one caller-owned ``BrowserContext``.

    Create it with :meth:`create`; the context should be fresh and isolated (see :func:`reference.browser.launch`).
    """

    def __init__(self, session: BrowserSession) -> None:
        self._session = session

    @classmethod
    def create(
        cls, browser: Any, *, allowed_origins: Iterable[str] | OriginSet, **options: Unpack[DriverOptions]
    ) -> PlaywrightBrowserDriver:
        """Open a fresh isolated context in ``browser`` whose traffic passes the driver's network guard.

        The driver owns that context: call :meth:`close` (or use it as a context manager) when done. The
        options are described on :class:`DriverOptions`.
        """
        return cls(run_sync(_open(browser, allowed_origins, options, asynchronous=False)))

    def close(self) -> None:
        """Close the driver's context and stop its network guard (safe to call twice)."""
        session = self._session
        try:
            session.context.close()
        except Exception:
            pass  # already closed together with its browser
        finally:
            session.guard.close()

    def __enter__(self) -> PlaywrightBrowserDriver:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def owner(self) -> str:
        """The identity file grants must be issued to for this driver to redeem them."""
        return self._session.owner

    def state(self, *, cancelled: Cancelled = None) -> BrowserState:
        return run_sync(self._session.state(cancelled))

    def navigate(self, action: NavigateInput, *, cancelled: Cancelled = None) -> str:
        return run_sync(_tabs.navigate(self._session, action, cancelled))

    def read_page(self, action: ReadPageInput, *, cancelled: Cancelled = None) -> BrowserReadV1 | str:
        return run_sync(_reads.read_page(self._session, action, cancelled))

    def get_page_text(self, action: TabInput, *, cancelled: Cancelled = None) -> BrowserReadV1 | str:
        return run_sync(_reads.get_page_text(self._session, action, cancelled))

    def find(self, action: FindInput, *, cancelled: Cancelled = None) -> BrowserReadV1 | str:
        return run_sync(_reads.find(self._session, action, cancelled))

    def click(self, action: ClickInput, *, cancelled: Cancelled = None) -> str:
        return run_sync(_actions.click(self._session, action, cancelled))

    def type(self, action: TypeInput, *, cancelled: Cancelled = None) -> str:
        return run_sync(_actions.type_text(self._session, action, cancelled))

    def scroll(self, action: ScrollInput, *, cancelled: Cancelled = None) -> str:
        return run_sync(_actions.scroll(self._session, action, cancelled))

    def select_option(self, action: SelectOptionInput, *, cancelled: Cancelled = None) -> str:
        return run_sync(_actions.select_option(self._session, action, cancelled))

    def hover(self, action: ClickInput, *, cancelled: Cancelled = None) -> str:
        return run_sync(_actions.hover(self._session, action, cancelled))

    def screenshot(self, action: TabInput, *, cancelled: Cancelled = None) -> ResponseInputImageContentParam:
        return run_sync(_capture.screenshot(self._session, action, cancelled))

    def zoom(self, action: ZoomInput, *, cancelled: Cancelled = None) -> ResponseInputImageContentParam:
        return run_sync(_capture.zoom(self._session, action, cancelled))

    def new_tab(self, action: NewTabInput, *, cancelled: Cancelled = None) -> str:
        return run_sync(_tabs.new_tab(self._session, action, cancelled))

    def switch_tab(self, action: TabInput, *, cancelled: Cancelled = None) -> str:
        return run_sync(_tabs.switch_tab(self._session, action, cancelled))

    def close_tab(self, action: TabInput, *, cancelled: Cancelled = None) -> str:
        return run_sync(_tabs.close_tab(self._session, action, cancelled))

    def scroll_to(self, action: ClickInput, *, cancelled: Cancelled = None) -> str:
        return run_sync(_actions.scroll_to(self._session, action, cancelled))

    def wait_for(self, action: WaitForInput, *, cancelled: Cancelled = None) -> str:
        return run_sync(_reads.wait_for(self._session, action, cancelled))

    def hover_at(self, action: HoverAtInput, *, cancelled: Cancelled = None) -> str:
        return run_sync(_pointer.hover_at(self._session, action, cancelled))

    def set_checked(self, action: SetCheckedInput, *, cancelled: Cancelled = None) -> str:
        return run_sync(_actions.set_checked(self._session, action, cancelled))

    def click_at(self, action: ClickAtInput, *, cancelled: Cancelled = None) -> str:
        return run_sync(_pointer.click_at(self._session, action, cancelled))

    def drag_path(self, action: DragPathInput, *, cancelled: Cancelled = None) -> str:
        return run_sync(_pointer.drag_path(self._session, action, cancelled))

    def hold_keys(self, action: HoldKeysInput, *, cancelled: Cancelled = None) -> str:
        return run_sync(_pointer.hold_keys(self._session, action, cancelled))

    def read_page_scoped(self, action: ReadPageScopedInput, *, cancelled: Cancelled = None) -> BrowserScopedReadV1:
        return run_sync(_reads.read_page_scoped(self._session, action, cancelled))

    def read_diagnostics(self, action: ReadDiagnosticsInput, *, cancelled: Cancelled = None) -> BrowserReadV1:
        return run_sync(_extras.read_diagnostics(self._session, action, cancelled))

    def run_script(self, action: RunScriptInput, *, cancelled: Cancelled = None) -> str:
        return run_sync(_extras.run_script(self._session, action, cancelled))

    def upload_file(self, action: BrowserFileInput, *, cancelled: Cancelled = None) -> BrowserFileOutcome:
        return run_sync(_extras.upload_file(self._session, action, cancelled))

    def download_file(self, action: BrowserFileInput, *, cancelled: Cancelled = None) -> BrowserFileOutcome:
        return run_sync(_extras.download_file(self._session, action, cancelled))

    @_focus_member
    def key(self, action: KeyInput, *, cancelled: Cancelled = None) -> str:
        return run_sync(_actions.key(self._session, action, cancelled))


class AsyncPlaywrightBrowserDriver:
    """The ``playwright.async_api`` twin of :class:`PlaywrightBrowserDriver`, for ``AsyncBrowserToolset``."""

    def __init__(self, session: BrowserSession) -> None:
        self._session = session

    @classmethod
    async def create(
        cls,
        browser: Any,
        *,
        allowed_origins: Iterable[str] | OriginSet,
        prepared: PreparedContext | None = None,
        **options: Unpack[DriverOptions],
    ) -> AsyncPlaywrightBrowserDriver:
        """The async twin of :meth:`PlaywrightBrowserDriver.create`.

        ``prepared``: a spare context from :class:`reference.browser._spare.SpareContexts` to adopt instead of
        opening one (it must fit ``viewport`` and ``guard_host``); the driver then owns it like its own.
        """
        return cls(await run_async(_open(browser, allowed_origins, options, asynchronous=True, prepared=prepared)))

    async def close(self) -> None:
        """Close the driver's context and stop its network guard (safe to call twice)."""
        session = self._session
        try:
            await session.context.close()
        except Exception:
            pass  # already closed together with its browser
        finally:
            session.guard.close()

    async def __aenter__(self) -> AsyncPlaywrightBrowserDriver:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @property
    def owner(self) -> str:
        return self._session.owner

    async def state(self, *, cancelled: Cancelled = None) -> BrowserState:
        return await run_async(self._session.state(cancelled))

    async def navigate(self, action: NavigateInput, *, cancelled: Cancelled = None) -> str:
        return await run_async(_tabs.navigate(self._session, action, cancelled))

    async def read_page(self, action: ReadPageInput, *, cancelled: Cancelled = None) -> BrowserReadV1 | str:
        return await run_async(_reads.read_page(self._session, action, cancelled))

    async def get_page_text(self, action: TabInput, *, cancelled: Cancelled = None) -> BrowserReadV1 | str:
        return await run_async(_reads.get_page_text(self._session, action, cancelled))

    async def find(self, action: FindInput, *, cancelled: Cancelled = None) -> BrowserReadV1 | str:
        return await run_async(_reads.find(self._session, action, cancelled))

    async def click(self, action: ClickInput, *, cancelled: Cancelled = None) -> str:
        return await run_async(_actions.click(self._session, action, cancelled))

    async def type(self, action: TypeInput, *, cancelled: Cancelled = None) -> str:
        return await run_async(_actions.type_text(self._session, action, cancelled))

    async def scroll(self, action: ScrollInput, *, cancelled: Cancelled = None) -> str:
        return await run_async(_actions.scroll(self._session, action, cancelled))

    async def select_option(self, action: SelectOptionInput, *, cancelled: Cancelled = None) -> str:
        return await run_async(_actions.select_option(self._session, action, cancelled))

    async def hover(self, action: ClickInput, *, cancelled: Cancelled = None) -> str:
        return await run_async(_actions.hover(self._session, action, cancelled))

    async def screenshot(self, action: TabInput, *, cancelled: Cancelled = None) -> ResponseInputImageContentParam:
        return await run_async(_capture.screenshot(self._session, action, cancelled))

    async def zoom(self, action: ZoomInput, *, cancelled: Cancelled = None) -> ResponseInputImageContentParam:
        return await run_async(_capture.zoom(self._session, action, cancelled))

    async def new_tab(self, action: NewTabInput, *, cancelled: Cancelled = None) -> str:
        return await run_async(_tabs.new_tab(self._session, action, cancelled))

    async def switch_tab(self, action: TabInput, *, cancelled: Cancelled = None) -> str:
        return await run_async(_tabs.switch_tab(self._session, action, cancelled))

    async def close_tab(self, action: TabInput, *, cancelled: Cancelled = None) -> str:
        return await run_async(_tabs.close_tab(self._session, action, cancelled))

    async def scroll_to(self, action: ClickInput, *, cancelled: Cancelled = None) -> str:
        return await run_async(_actions.scroll_to(self._session, action, cancelled))

    async def wait_for(self, action: WaitForInput, *, cancelled: Cancelled = None) -> str:
        return await run_async(_reads.wait_for(self._session, action, cancelled))

    async def hover_at(self, action: HoverAtInput, *, cancelled: Cancelled = None) -> str:
        return await run_async(_pointer.hover_at(self._session, action, cancelled))

    async def set_checked(self, action: SetCheckedInput, *, cancelled: Cancelled = None) -> str:
        return await run_async(_actions.set_checked(self._session, action, cancelled))

    async def click_at(self, action: ClickAtInput, *, cancelled: Cancelled = None) -> str:
        return await run_async(_pointer.click_at(self._session, action, cancelled))

    async def drag_path(self, action: DragPathInput, *, cancelled: Cancelled = None) -> str:
        return await run_async(_pointer.drag_path(self._session, action, cancelled))

    async def hold_keys(self, action: HoldKeysInput, *, cancelled: Cancelled = None) -> str:
        return await run_async(_pointer.hold_keys(self._session, action, cancelled))

    async def read_page_scoped(
        self, action: ReadPageScopedInput, *, cancelled: Cancelled = None
    ) -> BrowserScopedReadV1:
        return await run_async(_reads.read_page_scoped(self._session, action, cancelled))

    async def read_diagnostics(self, action: ReadDiagnosticsInput, *, cancelled: Cancelled = None) -> BrowserReadV1:
        return await run_async(_extras.read_diagnostics(self._session, action, cancelled))

    async def run_script(self, action: RunScriptInput, *, cancelled: Cancelled = None) -> str:
        return await run_async(_extras.run_script(self._session, action, cancelled))

    async def upload_file(self, action: BrowserFileInput, *, cancelled: Cancelled = None) -> BrowserFileOutcome:
        return await run_async(_extras.upload_file(self._session, action, cancelled))

    async def download_file(self, action: BrowserFileInput, *, cancelled: Cancelled = None) -> BrowserFileOutcome:
        return await run_async(_extras.download_file(self._session, action, cancelled))

    @_focus_member
    async def key(self, action: KeyInput, *, cancelled: Cancelled = None) -> str:
        return await run_async(_actions.key(self._session, action, cancelled))
