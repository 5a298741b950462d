"""From a ``--driver`` or ``--computer-driver`` value to an open driver: loading the factory, then opening it.

:func:`load_callable` imports a ``module:attribute`` option value, with one typed error that says exactly what is
wrong. :func:`open_driver` calls the factory with the check's environment; the factory may return the driver
itself, a context manager, an async context manager, a generator or async generator that yields it, or an
awaitable of any of these, and gets back a cleanup that undoes exactly what was entered. Browser and computer
certification, and replay, all go through these two.

A driver author runs ``pytest --driver=mypkg.drivers:make_driver`` in the folder that holds ``mypkg``. Plain
``pytest`` (unlike ``python -m pytest``) does not put that folder on ``sys.path``, so when the module is not
importable otherwise the loader adds the folders the command was started from (the working directory, and any
extra folders the caller names, such as pytest's rootdir) and tries once more. When the module still cannot be
found, the error lists every folder searched and how to add one.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from conformance.harness.errors import DriverSetupError, DriverTimeout, describe_error
from conformance.harness.loop import HarnessLoop


class SpecError(ValueError):
    """A ``module:attribute`` value that cannot be loaded; the message names the option and the problem."""


def _findable(module_name: str) -> bool:
    top = module_name.split(".", 1)[0]
    try:
        return importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        return False


def _add_start_folders(module_name: str, extra: Iterable[Path]) -> None:
    """Append the start folders to ``sys.path`` when ``module_name`` is not importable without them."""
    if _findable(module_name):
        return
    for folder in (Path(os.getcwd()), *extra):
        entry = str(folder.resolve())
        if entry not in sys.path and folder.is_dir():
            sys.path.append(entry)
            importlib.invalidate_caches()
            if _findable(module_name):
                return


def _not_found(spec: str, option: str, missing: str) -> SpecError:
    folders = [entry or os.getcwd() for entry in sys.path if os.path.isdir(entry or os.getcwd())]
    searched = "\n".join(f"  {folder}" for folder in folders)
    return SpecError(
        f"{option}={spec!r}: module {missing!r} not found; searched these folders:\n{searched}\n"
        f"Run from the folder that holds {missing.split('.', 1)[0]!r}, add its folder to PYTHONPATH "
        f"(PYTHONPATH=path/to/folder pytest ...), or install your project (pip install -e .)."
    )


def load_callable(spec: str, option: str, search: Iterable[Path] = ()) -> Callable[..., Any]:
    """Import ``module`` and return its callable ``attribute`` (dotted paths allowed after the colon).

    ``search`` names folders to try, after the working directory, when ``module`` is not importable as is.
    """
    module_name, colon, attribute = spec.partition(":")
    if not colon or not module_name or not attribute:
        raise SpecError(f"{option}={spec!r}: expected module:attribute, e.g. mypkg.drivers:make_driver")
    _add_start_folders(module_name, search)
    try:
        target: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name and module_name.startswith(error.name):
            raise _not_found(spec, option, error.name) from None
        raise SpecError(f"{option}={spec!r}: importing {module_name!r} failed: {error}") from error
    except Exception as error:
        raise SpecError(
            f"{option}={spec!r}: importing {module_name!r} raised {type(error).__name__}: {error}"
        ) from error
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise SpecError(f"{option}={spec!r}: {module_name!r} has no attribute {attribute!r}") from None
    if not callable(target):
        raise SpecError(f"{option}={spec!r}: {attribute!r} is a {type(target).__name__}, not a callable factory")
    return target  # type: ignore[no-any-return]


Cleanup = Callable[[], None]


def open_driver(
    factory: Callable[[Any], object], env: object, loop: HarnessLoop, timeout: float | None = None
) -> tuple[object, Cleanup]:
    """Call ``factory(env)`` here and unwrap what it returns into ``(driver, cleanup)``.

    Whatever form the factory has, a factory that raises (when called, when its generator first runs, when its
    context manager is entered) raises :class:`DriverSetupError` with the factory's own error in one line.
    """
    try:
        produced = loop.resolve(factory(env), what="the driver factory", timeout=timeout)
        return _unwrap(produced, loop, timeout)
    except (DriverSetupError, DriverTimeout):
        raise
    except Exception as error:
        raise DriverSetupError(f"the driver factory raised {describe_error(error)}") from error


def open_on_driver_thread(
    factory: Callable[[Any], object], env: object, loop: HarnessLoop, timeout: float
) -> tuple[object, Cleanup]:
    """:func:`open_driver` where the driver's code runs (the loop's worker), the whole of it under ``timeout``.

    A factory that hangs is abandoned with its thread and reported as a :class:`DriverSetupError`.
    """
    try:
        made: tuple[object, Cleanup] = loop.run(
            lambda: open_driver(factory, env, loop, timeout), what="the driver factory", timeout=timeout
        )
    except DriverTimeout as hung:
        raise DriverSetupError(f"{hung} (the driver was abandoned)") from None
    return made


def close_driver(loop: HarnessLoop, cleanup: Cleanup, generation: int) -> str | None:
    """Run a driver's ``cleanup`` under the deadline; what went wrong in one line, or None.

    A driver made before the loop's ``generation`` changed (a call hung and its thread was abandoned) is not
    cleaned up at all: its code belongs to the stuck thread.
    """
    if loop.generation != generation:
        return "a call into the driver hung, so the driver was abandoned without its cleanup"
    try:
        loop.run(cleanup, what="the driver's cleanup")
    except DriverTimeout as timeout:
        return f"{timeout}; the driver was abandoned"
    except Exception as error:
        return f"the driver's cleanup raised {describe_error(error)}"
    return None


def _unwrap(produced: object, loop: HarnessLoop, timeout: float | None) -> tuple[object, Cleanup]:
    what, cleaning = "the driver factory", "the driver's cleanup"
    if inspect.isgenerator(produced):
        generator = produced
        driver = _first_yield(lambda: next(generator))
        return driver, lambda: _finish_generator(lambda: next(generator), generator.close)
    if inspect.isasyncgen(produced):
        agen = produced
        driver = _first_yield(lambda: loop.resolve(agen.__anext__(), what=what, timeout=timeout))
        return driver, lambda: _finish_generator(lambda: loop.resolve(agen.__anext__(), what=cleaning), lambda: None)
    if hasattr(produced, "__aenter__") and hasattr(produced, "__aexit__"):
        manager: Any = produced
        driver = loop.resolve(manager.__aenter__(), what=what, timeout=timeout)
        return driver, lambda: loop.resolve(manager.__aexit__(None, None, None), what=cleaning)
    if hasattr(produced, "__enter__") and hasattr(produced, "__exit__"):
        sync_manager: Any = produced
        driver = sync_manager.__enter__()
        return driver, lambda: sync_manager.__exit__(None, None, None)
    return produced, lambda: None


def _first_yield(advance: Callable[[], object]) -> object:
    try:
        return advance()
    except (StopIteration, StopAsyncIteration):
        raise DriverSetupError("the driver factory's generator finished without yielding a driver") from None


def _finish_generator(advance: Callable[[], object], close: Callable[[], object]) -> None:
    try:
        advance()
    except (StopIteration, StopAsyncIteration):
        return
    close()
    raise DriverSetupError("the driver factory's generator yielded more than once")
