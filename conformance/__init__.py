"""responses-driver-kit: conformance checks for drivers of the OpenAI SDK browser and computer helpers.

The public names (see :mod:`conformance.api`) are importable from here. They are loaded on first use, not when the
package is imported: pytest imports this package for the kit's plugin in every run of a project that has the kit
installed, and that run must not pay for openai, Playwright or hypothesis unless it certifies something.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from conformance.api import *  # noqa: F403


def __getattr__(name: str) -> Any:
    # ``from conformance import reporting`` asks the package for the attribute before importing the submodule.
    # Answering that by loading the API would import the harness in the middle of importing the harness, so a
    # submodule's name (and any private name) is left to the import system.
    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is None:
        api = importlib.import_module("conformance.api")
        if name in api.__all__:
            # Kept as the package's own attribute, so later lookups of the name never come back here.
            value = globals()[name] = getattr(api, name)
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *importlib.import_module("conformance.api").__all__})
