"""The test command's tiers: the cases a default run leaves to ``./scripts/test.sh -m thorough``.

A thorough case shows again, on another driver or defect, what a case of the default tier already shows the same
way (exploration finding and shrinking a sequence defect, the fuzz check finding a runner defect, the computer
checks at another screen size). The default tier keeps at least one case of each such test; the thorough tier runs
before a release and after a change to exploration, the fuzzer or the desktop (docs/contributing.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import pytest

T = TypeVar("T")

THOROUGH = pytest.mark.thorough


def tiered(values: Iterable[T], thorough: Sequence[str], name: Callable[[T], str] = str) -> list[Any]:
    """``values`` as parameters named by ``name``, those named in ``thorough`` marked for the thorough tier.

    A name in ``thorough`` that no value has is an error, so renaming a case never moves it between tiers unseen.
    """
    values = list(values)
    unknown = set(thorough) - {name(value) for value in values}
    if unknown:
        raise ValueError(f"no such case to mark thorough: {sorted(unknown)}")
    return [pytest.param(value, id=name(value), marks=THOROUGH if name(value) in thorough else ()) for value in values]
