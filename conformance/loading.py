"""Loading a ``module:attribute`` option value, with one typed error that says exactly what is wrong.

A driver author runs ``pytest --driver=mypkg.drivers:make_driver`` in the folder that holds ``mypkg``. Plain
``pytest`` (unlike ``python -m pytest``) does not put that folder on ``sys.path``, so when the module is not
importable otherwise the loader adds the folders the command was started from (the working directory, and any
extra folders the caller names, such as pytest's rootdir) and tries once more. When the module still cannot be
found, the error lists every folder searched and how to add one.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any


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
