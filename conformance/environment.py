"""The old home of the browser environment (before the harness package). Its names still work for one minor
release, each with a DeprecationWarning naming the import to use instead."""

from __future__ import annotations

import importlib
import warnings
from typing import Any, Final

# Name -> the module that now defines it. The public import is from ``conformance`` itself.
_MOVED: Final = {
    name: "conformance.harness.environment"
    for name in ("DriverHints", "Effect", "EffectTimeout", "Environment", "FileGrant", "ServedRequest")
}


def __getattr__(name: str) -> Any:
    home = _MOVED.get(name)
    if home is None:
        raise AttributeError(f"module 'conformance.environment' has no attribute {name!r}")
    warnings.warn(
        f"conformance.environment.{name} moved: use 'from conformance import {name}' "
        "(conformance.environment goes away in the next minor release)",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module(home), name)
