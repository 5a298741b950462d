"""Loading a ``module:attribute`` option value, with one typed error that says exactly what is wrong."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


class SpecError(ValueError):
    """A ``module:attribute`` value that cannot be loaded; the message names the option and the problem."""


def load_callable(spec: str, option: str) -> Callable[..., Any]:
    """Import ``module`` and return its callable ``attribute`` (dotted paths allowed after the colon)."""
    module_name, colon, attribute = spec.partition(":")
    if not colon or not module_name or not attribute:
        raise SpecError(f"{option}={spec!r}: expected module:attribute, e.g. mypkg.drivers:make_driver")
    try:
        target: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name and module_name.startswith(error.name):
            raise SpecError(f"{option}={spec!r}: module {error.name!r} not found") from None
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
