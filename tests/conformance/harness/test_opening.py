"""Opening a driver from every factory form, and reading its flavour and ``cancelled`` (harness.factory/profile)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from conformance.harness.errors import DriverSetupError
from conformance.harness.factory import close_driver, open_driver
from conformance.harness.loop import HarnessLoop
from conformance.harness.profile import declares_cancelled, flavour_of


class Driver:
    def __init__(self) -> None:
        self.closed = False

    def click(self, action: object, *, cancelled: Callable[[], bool] | None = None) -> None:
        return None


def plain(env: object) -> Driver:
    return Driver()


@contextlib.contextmanager
def managed(env: object) -> Iterator[Driver]:
    driver = Driver()
    yield driver
    driver.closed = True


def generator(env: object) -> Iterator[Driver]:
    driver = Driver()
    yield driver
    driver.closed = True


async def async_generator(env: object) -> AsyncIterator[Driver]:
    driver = Driver()
    yield driver
    driver.closed = True


async def awaitable(env: object) -> Driver:
    return Driver()


@pytest.fixture
def loop() -> Iterator[HarnessLoop]:
    made = HarnessLoop(timeout=5.0)
    yield made
    made.close()


@pytest.mark.parametrize(
    ("factory", "cleans_up"),
    [(plain, False), (managed, True), (generator, True), (async_generator, True), (awaitable, False)],
    ids=["plain", "context-manager", "generator", "async-generator", "awaitable"],
)
def test_every_factory_form_opens_and_its_cleanup_undoes_what_was_entered(
    loop: HarnessLoop, factory: Callable[[object], Any], cleans_up: bool
) -> None:
    driver, cleanup = loop.run(lambda: open_driver(factory, None, loop), what="the factory")
    assert isinstance(driver, Driver) and not driver.closed
    assert close_driver(loop, cleanup, loop.generation) is None
    assert driver.closed is cleans_up


def test_a_factory_that_raises_is_one_setup_error_naming_its_error(loop: HarnessLoop) -> None:
    def broken(env: object) -> Driver:
        raise OSError("no display")

    with pytest.raises(DriverSetupError, match="the driver factory raised OSError: no display"):
        loop.run(lambda: open_driver(broken, None, loop), what="the factory")


def test_a_generator_that_yields_twice_is_refused_at_cleanup(loop: HarnessLoop) -> None:
    def twice(env: object) -> Iterator[Driver]:
        yield Driver()
        yield Driver()

    _driver, cleanup = loop.run(lambda: open_driver(twice, None, loop), what="the factory")
    assert "yielded more than once" in str(close_driver(loop, cleanup, loop.generation))


class KeywordsOnly:
    def wait(self, action: object, **options: object) -> None: ...

    def type(self, action: object, *, cancelled: Callable[[], bool] | None = None) -> None: ...

    async def click(self, action: object) -> None: ...


def test_cancelled_counts_only_when_the_method_names_it() -> None:
    # The SDK passes `cancelled` only to a method that declares it (spec 000, "Driver contract"): **kwargs is not that.
    assert declares_cancelled(KeywordsOnly().type)
    assert not declares_cancelled(KeywordsOnly().wait)


def test_a_driver_mixing_flavours_is_a_setup_error_naming_the_toolsets() -> None:
    with pytest.raises(DriverSetupError, match="ComputerToolset or AsyncComputerToolset"):
        flavour_of(KeywordsOnly(), ("type", "click"), "Computer")
    assert flavour_of(KeywordsOnly(), ("click",), "Computer") == "async"
    assert flavour_of(Driver(), ("click", "missing"), "Browser") == "sync"
