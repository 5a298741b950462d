"""Driver options are checked before anything is opened: a misspelt option is an error naming it."""

from __future__ import annotations

import asyncio

import pytest

from reference.browser import AsyncPlaywrightBrowserDriver, PlaywrightBrowserDriver

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser]


class _NoBrowser:
    def new_context(self, **options: object) -> None:
        raise AssertionError("a context was opened despite the bad option")


def test_sync_create_names_an_unknown_option() -> None:
    with pytest.raises(TypeError, match="unknown driver options: start_page"):
        PlaywrightBrowserDriver.create(_NoBrowser(), allowed_origins=["http://127.0.0.1:1"], start_page="x")  # type: ignore[call-arg]


def test_async_create_names_an_unknown_option() -> None:
    async def go() -> None:
        await AsyncPlaywrightBrowserDriver.create(
            _NoBrowser(),
            allowed_origins=["http://127.0.0.1:1"],
            compact=True,  # type: ignore[call-arg]
        )

    with pytest.raises(TypeError, match="unknown driver options: compact"):
        asyncio.run(go())
