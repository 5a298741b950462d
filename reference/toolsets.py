"""Ready-made SDK toolsets over a reference driver, for applications that want safe defaults.

- :func:`read_only_browser` exposes reads only (page reads, images, waits, tab list): nothing it offers changes
  the page, so the SDK needs no ``confirm`` (spec/000 "Confirmation, navigation, and recovery").
- :func:`interactive_browser` adds the default actions and navigation, with the caller's ``confirm`` and an
  origin policy built from ``allowed_origins`` (parsed, never prefix-matched). Opt-in members (pointer,
  scripts, diagnostics, files) stay off unless the caller lists them in ``extra_members``.

The async twins take an async driver and async callbacks, as ``AsyncBrowserToolset`` requires.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Final

from openai.lib.browser import AsyncBrowserToolset, BrowserToolset

from reference.policy import OriginSet, async_origin_policy, origin_policy

READ_ONLY_MEMBERS: Final[tuple[str, ...]] = (
    "read_page",
    "get_page_text",
    "find",
    "screenshot",
    "zoom",
    "list_tabs",
    "wait_for",
)
INTERACTIVE_MEMBERS: Final[tuple[str, ...]] = (
    *READ_ONLY_MEMBERS,
    "navigate",
    "click",
    "type",
    "key",
    "scroll",
    "select_option",
    "hover",
    "new_tab",
    "switch_tab",
    "close_tab",
    "scroll_to",
)


def _implemented(driver: object, names: Iterable[str]) -> list[str]:
    # list_tabs comes from state(); `key` is absent from drivers that bind consent to targets.
    return [name for name in names if name == "list_tabs" or callable(getattr(driver, name, None))]


def read_only_browser(driver: Any, *, members: Sequence[str] = READ_ONLY_MEMBERS) -> BrowserToolset:
    """A toolset that can only read: no confirmation callback is needed or accepted."""
    unsafe = sorted(set(members) - set(READ_ONLY_MEMBERS))
    if unsafe:
        raise ValueError(f"Not read-only members: {', '.join(unsafe)}")
    return BrowserToolset(driver, members=_implemented(driver, members))


def async_read_only_browser(driver: Any, *, members: Sequence[str] = READ_ONLY_MEMBERS) -> AsyncBrowserToolset:
    """The async twin of :func:`read_only_browser`."""
    unsafe = sorted(set(members) - set(READ_ONLY_MEMBERS))
    if unsafe:
        raise ValueError(f"Not read-only members: {', '.join(unsafe)}")
    return AsyncBrowserToolset(driver, members=_implemented(driver, members))


def interactive_browser(
    driver: Any,
    *,
    confirm: Callable[..., bool],
    allowed_origins: Iterable[str] | OriginSet,
    extra_members: Sequence[str] = (),
) -> BrowserToolset:
    """Default reads and actions; every action asks ``confirm`` and every navigation checks the origins."""
    return BrowserToolset(
        driver,
        members=_implemented(driver, [*INTERACTIVE_MEMBERS, *extra_members]),
        confirm=confirm,
        url_policy=origin_policy(allowed_origins),
    )


def async_interactive_browser(
    driver: Any,
    *,
    confirm: Callable[..., Awaitable[bool]],
    allowed_origins: Iterable[str] | OriginSet,
    extra_members: Sequence[str] = (),
) -> AsyncBrowserToolset:
    """The async twin of :func:`interactive_browser`; ``confirm`` must be an async callback."""
    return AsyncBrowserToolset(
        driver,
        members=_implemented(driver, [*INTERACTIVE_MEMBERS, *extra_members]),
        confirm=confirm,
        url_policy=async_origin_policy(allowed_origins),
    )
