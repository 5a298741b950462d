"""A shrunk failing sequence in words: numbered steps, what the last one showed, and the seed that replays it.

Two forms. :func:`reason` is the certificate's one line for the clause, kept within the certificate's reason limit
so the steps and the seed always survive (what the last step showed is cut first). :func:`long_form` is the same
finding one step a line, with the tab IDs the driver gave each tab the sequence named, for the terminal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from conformance.harness.errors import bounded

if TYPE_CHECKING:  # the machine module imports hypothesis, which rendering does not need
    from .machine import SequenceStep

# The certificate keeps this many characters of a reason (conformance.certificate.REASON_LIMIT).
REASON_LIMIT = 300


def numbered(steps: Sequence[SequenceStep]) -> list[str]:
    """``1. new_tab(url=null) -> T2``, one entry per step."""
    return [f"{number}. {step.words()}" for number, step in enumerate(steps, 1)]


def replay_hint(seed: int) -> str:
    return f"replay with --explore-seed={seed}"


def reason(steps: Sequence[SequenceStep], detail: str, seed: int, *, limit: int = REASON_LIMIT) -> str:
    """The clause's reason: the numbered steps, what the last one showed against the model, and the seed."""
    count = len(steps)
    head = f"a sequence of {count} step{'' if count == 1 else 's'} (shrunk): {' '.join(numbered(steps))} -- "
    tail = f" -- {replay_hint(seed)}"
    room = limit - len(head) - len(tail)
    if room < 60:
        # Too many steps for one line: the last steps, which led to the failure, and how many came before.
        kept = numbered(steps)[-3:]
        head = f"a sequence of {count} steps (shrunk), ending: {' '.join(kept)} -- "
        room = limit - len(head) - len(tail)
    return f"{head}{_cut(detail, max(room, 20))}{tail}"


def _cut(text: str, room: int) -> str:
    if len(text) <= room:
        return text
    marker = "..."
    return text[: max(0, room - len(marker))] + marker


def long_form(
    clause: str, steps: Sequence[SequenceStep], detail: str, seed: int, tab_ids: Mapping[str, str], sequences: int
) -> str:
    """Every step on its own line, then what the last step showed, the tab IDs and the seed."""
    lines = [
        f"exploration ({sequences} sequence{'' if sequences == 1 else 's'}, seed {seed}) found {clause} broken; "
        f"the shortest failing sequence it found:",
        *(f"  {line}" for line in numbered(steps)),
        f"step {len(steps)} showed: {bounded(detail, 2000)}",
    ]
    if tab_ids:
        lines.append("tabs in that session: " + ", ".join(f"{name} = {tab_id!r}" for name, tab_id in tab_ids.items()))
    lines.append(replay_hint(seed))
    return "\n".join(lines)
