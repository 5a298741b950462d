"""The reference asynchronous computer driver, for ``AsyncComputerToolset``.

X calls block, and python-xlib connections must not be used from two threads at once, so every action runs on
one dedicated worker thread while the event loop stays free: each action is the sync driver's method of the same
name made ``async`` (``reference.twins``), run there. ``wait`` sleeps on the event loop itself and checks the
cancellation probe between short sleeps.
"""

from __future__ import annotations

import asyncio
import functools
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Unpack

from reference.twins import async_twin

from .driver import ActionCancelled, Cancelled, XvfbComputerDriver, XvfbOptions

_CANCEL_POLL_SECONDS = 0.02


class AsyncXvfbComputerDriver:
    """Implements the SDK's ``AsyncComputerDriver`` over one X display; same options as the sync driver."""

    def __init__(self, display: str, **options: Unpack[XvfbOptions]) -> None:
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="xvfb-driver")
        try:
            # Open the X connections on the worker thread that will use them.
            self._sync = self._worker.submit(XvfbComputerDriver, display, **options).result()
        except BaseException:
            self._worker.shutdown(wait=True)
            raise
        self.display = display
        self.wait_seconds = self._sync.wait_seconds
        self.coordinates = self._sync.coordinates

    async def _on_worker(self, member: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        work = functools.partial(getattr(self._sync, member), *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(self._worker, work)

    click = async_twin(XvfbComputerDriver.click, _on_worker)
    double_click = async_twin(XvfbComputerDriver.double_click, _on_worker)
    drag = async_twin(XvfbComputerDriver.drag, _on_worker)
    keypress = async_twin(XvfbComputerDriver.keypress, _on_worker)
    move = async_twin(XvfbComputerDriver.move, _on_worker)
    scroll = async_twin(XvfbComputerDriver.scroll, _on_worker)
    type = async_twin(XvfbComputerDriver.type, _on_worker)

    async def wait(self, action: Any = None, *, cancelled: Cancelled = None) -> None:
        deadline = time.monotonic() + self.wait_seconds
        while True:
            if cancelled is not None and cancelled():
                raise ActionCancelled("the computer action was cancelled")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            await asyncio.sleep(min(remaining, _CANCEL_POLL_SECONDS))

    screenshot = async_twin(XvfbComputerDriver.screenshot, _on_worker)

    @property
    def screen_size(self) -> tuple[int, int]:
        return self._sync.screen_size

    def close(self) -> None:
        try:
            self._worker.submit(self._sync.close).result()
        finally:
            self._worker.shutdown(wait=True)

    async def aclose(self) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self.close)

    async def __aenter__(self) -> AsyncXvfbComputerDriver:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


__all__ = ["AsyncXvfbComputerDriver"]
