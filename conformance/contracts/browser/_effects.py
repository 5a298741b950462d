"""Which page effects (as the fixture pages record them) count as the page having been touched."""

from __future__ import annotations

# The page was clicked, typed into, keyed or scrolled: a read must cause none of these.
INTERACTION_KINDS: frozenset[str] = frozenset(
    {
        "click",
        "dblclick",
        "contextmenu",
        "auxclick",
        "mousedown",
        "mouseup",
        "input",
        "change",
        "keydown",
        "keyup",
        "scroll",
        "wheel",
    }
)

# Any input at all, hovering included: reads, waits and refused calls must cause none of these.
INPUT_KINDS: frozenset[str] = INTERACTION_KINDS | {"mouseover"}
