"""Where driver code runs: one harness loop per pytest process, for browser and computer drivers alike.

:class:`HarnessLoop` runs sync driver code on one worker thread and async driver code on one event loop in its own
thread, every call under a deadline (``--driver-timeout``), so a driver that hangs fails its check with
:class:`~conformance.harness.errors.DriverTimeout` and is abandoned instead of stalling the run. The plugin makes
the one loop of a run (kept under ``fixtures.LOOP_KEY``); only a harness used on its own makes another.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import queue
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final, TypeVar

from conformance.harness.errors import DriverTimeout
from conformance.options import DEFAULT_DRIVER_TIMEOUT

T = TypeVar("T")


# How long the end of the run waits for tasks a driver left on the harness loop once they are cancelled.
LOOP_SHUTDOWN_SECONDS: Final = 5.0


_STOP: Final = object()


class _Worker:
    """One daemon thread that runs jobs in order; a job that hangs makes the whole worker abandoned.

    Sync drivers are thread-affine (a sync Playwright object must be used from the thread that made it), so the
    factory, every member and the cleanup of a sync driver, and the session resources its factory shares, all
    run on one worker. A stuck call in a thread cannot be killed: the kit stops waiting, abandons the worker
    with whatever it holds, and starts a new one for the next driver. Daemon threads never hold up the exit.
    """

    def __init__(self, name: str) -> None:
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while (job := self._jobs.get()) is not _STOP:
            function, future = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(function())
            except BaseException as error:  # handed to the waiting caller, which re-raises it
                future.set_exception(error)

    def submit(self, function: Callable[[], T]) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        self._jobs.put((function, future))
        return future

    def stop(self) -> None:
        self._jobs.put(_STOP)


class HarnessLoop:
    """Where the kit runs the driver's code, each call under a deadline.

    One event loop in its own thread for the whole session (async drivers keep a browser on it across checks,
    and it keeps turning while a check waits for page effects) and one worker thread for sync driver code.
    ``timeout`` is the deadline of every call into the driver; a call past it raises :class:`DriverTimeout`.
    """

    def __init__(self, timeout: float = DEFAULT_DRIVER_TIMEOUT) -> None:
        self.timeout = timeout
        self._loop = asyncio.new_event_loop()
        self._loop_thread = threading.Thread(target=self._loop.run_forever, name="driverkit-loop", daemon=True)
        self._loop_thread.start()
        self._worker: _Worker | None = None
        self._workers_made = 0
        # Threads the kit gave up on; resources made there are never touched again.
        self.abandoned: set[int] = set()

    # -- where code runs -------------------------------------------------------------------------------------

    def on_worker(self) -> bool:
        return self._worker is not None and threading.current_thread() is self._worker.thread

    def on_loop(self) -> bool:
        return threading.current_thread() is self._loop_thread

    @property
    def generation(self) -> int:
        """Changes whenever the worker or the loop is abandoned; a driver made before cannot be used after."""
        return len(self.abandoned)

    def run(self, function: Callable[[], object], *, what: str, timeout: float | None = None) -> Any:
        """``function()`` on the driver worker thread, then its result settled on the loop if awaitable."""
        seconds = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + seconds
        if self.on_worker():
            value = function()
        else:
            if self._worker is None:
                self._workers_made += 1
                self._worker = _Worker(f"driverkit-driver-{self._workers_made}")
            worker = self._worker
            future = worker.submit(function)
            try:
                value = future.result(timeout=seconds)
            except concurrent.futures.TimeoutError:
                self._abandon_worker(worker)
                raise DriverTimeout(what, seconds) from None
            except KeyboardInterrupt:
                # The call is still running there; nothing may queue behind it (the cleanup, say).
                self._abandon_worker(worker)
                raise
        return self.resolve(value, what=what, timeout=max(0.0, deadline - time.monotonic()), whole=seconds)

    def run_async(self, function: Callable[[], object], *, what: str, timeout: float | None = None) -> Any:
        """``function()`` called on the loop and awaited there when it returns an awaitable (async drivers)."""

        async def invoke() -> object:
            value = function()
            return await value if inspect.isawaitable(value) else value

        return self.resolve(invoke(), what=what, timeout=timeout)

    def resolve(
        self, value: object, *, what: str = "the driver", timeout: float | None = None, whole: float | None = None
    ) -> Any:
        """``value`` itself, or its result when it is awaitable (run to completion on the loop, under a deadline)."""
        if not inspect.isawaitable(value):
            return value
        seconds = self.timeout if timeout is None else timeout
        if self.on_loop():
            raise RuntimeError("the harness loop cannot wait for itself; await the value instead")
        loop = self._loop
        future = asyncio.run_coroutine_threadsafe(_within(value, seconds), loop)
        try:
            # The loop enforces the deadline itself; the extra second is for a loop too stuck to do so.
            return future.result(timeout=seconds + 1.0)
        except (TimeoutError, concurrent.futures.TimeoutError):
            future.cancel()
            if not self._responsive(loop):
                self._abandon_loop()
            raise DriverTimeout(what, seconds if whole is None else whole) from None

    def sleep(self, seconds: float) -> None:
        """Let ``seconds`` pass; the loop keeps running on its own thread meanwhile."""
        time.sleep(seconds)

    # -- giving up ------------------------------------------------------------------------------------------

    def _responsive(self, loop: asyncio.AbstractEventLoop) -> bool:
        ping: concurrent.futures.Future[None] = concurrent.futures.Future()
        loop.call_soon_threadsafe(ping.set_result, None)
        try:
            ping.result(timeout=1.0)
        except concurrent.futures.TimeoutError:
            return False
        return True

    def _abandon_worker(self, worker: _Worker) -> None:
        worker.stop()
        if worker.thread.ident is not None:
            self.abandoned.add(worker.thread.ident)
        if self._worker is worker:
            self._worker = None

    def _abandon_loop(self) -> None:
        """Leave a loop that some driver code blocks; the next awaitable runs on a fresh one."""
        if self._loop_thread.ident is not None:
            self.abandoned.add(self._loop_thread.ident)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._loop = asyncio.new_event_loop()
        self._loop_thread = threading.Thread(target=self._loop.run_forever, name="driverkit-loop", daemon=True)
        self._loop_thread.start()

    def close(self, timeout: float = LOOP_SHUTDOWN_SECONDS) -> list[str]:
        """Stop the worker and the loop, waiting at most ``timeout`` s for tasks a driver left running.

        Returns a description of each task still running when the time was up (they are left behind, on a
        daemon thread that does not hold up the exit).
        """
        if self._worker is not None:
            self._worker.stop()
            self._worker = None
        loop = self._loop
        if not self._responsive(loop):
            return ["the harness loop is blocked by driver code that never yields"]
        future = asyncio.run_coroutine_threadsafe(_cancel_leftovers(timeout), loop)
        try:
            leftovers = future.result(timeout=timeout + 2.0)
        except (TimeoutError, concurrent.futures.TimeoutError):
            leftovers = ["the harness loop did not finish cancelling its tasks"]
        loop.call_soon_threadsafe(loop.stop)
        self._loop_thread.join(timeout=1.0)
        if not self._loop_thread.is_alive():
            loop.close()
        return leftovers


async def _within(awaitable: Awaitable[T], seconds: float) -> T:
    async with asyncio.timeout(seconds) as scope:
        value = await awaitable
    if scope.expired():
        # The awaited code swallowed the cancellation and returned anyway: it still ran past the deadline.
        raise TimeoutError
    return value


async def _cancel_leftovers(timeout: float) -> list[str]:
    current = asyncio.current_task()
    tasks = [task for task in asyncio.all_tasks() if task is not current and not task.done()]
    for task in tasks:
        task.cancel()
    if tasks:
        await asyncio.wait(tasks, timeout=timeout)
    leftovers = [_describe(task) for task in tasks if not task.done()]
    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout(min(timeout, 1.0)):
            await loop.shutdown_asyncgens()
    except TimeoutError:
        leftovers.append("asynchronous generators that would not close")
    return leftovers


def _describe(task: asyncio.Task[Any]) -> str:
    coroutine = task.get_coro()
    code = getattr(coroutine, "cr_code", None) or getattr(coroutine, "gi_code", None)
    where = f" ({code.co_qualname} in {code.co_filename}:{code.co_firstlineno})" if code is not None else ""
    return f"task {task.get_name()}{where}"
