"""A checkpoint ledger for a run of the Node SDK's ``ResponsesToolRunner`` (``--sdk=node``).

The Python SDK's ledger is an object (``ResponsesToolLedger(run_id=..., save=..., resume_from=...)``); the Node
SDK's is a plain run option, ``ledger: {runId, save, resumeFrom}`` (``ResponsesRunnerLedger``). Both save the
same checkpoint (the same 14 snake_case fields), so a check asks :func:`conformance.rig.checkpoint_ledger` for a
ledger of its mode's flavour, and for ``node`` gets this description, which the Node scenario turns into the
option. A checkpoint Node saved arrives in Python as plain JSON data and goes back to Node the same way as
``resumeFrom``, so resuming hands the Node SDK exactly what it saved.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class NodeLedger:
    """What a Node run's ``ledger`` option is made of: the run ID, the save callback, and the checkpoint to
    resume from (None for a new run)."""

    run_id: str
    save: Callable[[Any], None]
    resume_from: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.run_id, str) or not self.run_id:
            raise ValueError(f"a Node ledger needs a nonempty run ID, got {self.run_id!r}")
        if not callable(self.save):
            raise ValueError(f"a Node ledger's save must be callable, got {type(self.save).__name__}")
        if self.resume_from is not None and not isinstance(self.resume_from, Mapping):
            raise ValueError(
                f"a Node ledger resumes from a checkpoint (a mapping), got {type(self.resume_from).__name__}"
            )

    def option(self) -> dict[str, Any]:
        """The ``ResponsesRunnerOptions.ledger`` value, with ``resumeFrom`` only when resuming."""
        ledger: dict[str, Any] = {"runId": self.run_id, "save": self.save}
        if self.resume_from is not None:
            ledger["resumeFrom"] = dict(self.resume_from)
        return ledger
