"""Sync or async: the one word for which form of a driver, toolset or runner a piece of the kit works with."""

from __future__ import annotations

from typing import Literal, TypeAlias

Flavour: TypeAlias = Literal["sync", "async"]

# Both forms, in the order checks and benchmarks list them.
FLAVOURS: tuple[Flavour, ...] = ("sync", "async")
