"""Sync or async: the one word for which form of a driver, toolset or runner a piece of the kit works with.

``node`` is the Node SDK (``--node-sdk``), whose toolsets and runners are async only; it is never among
:data:`FLAVOURS`, and the rig's Python-only helpers refuse it (:func:`python_only`) rather than quietly checking
the Python SDK's async form in its place.
"""

from __future__ import annotations

from typing import Final, Literal, TypeAlias

Flavour: TypeAlias = Literal["sync", "async", "node"]

# Both forms, in the order checks and benchmarks list them.
FLAVOURS: tuple[Flavour, ...] = ("sync", "async")
NODE: Final = "node"


def python_only(flavour: Flavour, what: str) -> None:
    """Report a check as not checked when it reaches Python SDK API in a Node SDK run (it has no Node form yet)."""
    if flavour == NODE:
        from conformance.assertions import not_checked

        not_checked(f"on the Node SDK: this check uses {what}, which the kit has not adapted to the Node SDK yet")
