"""Pieces of SDK patches: defects written into the installed openai runner for one test at a time (with
``monkeypatch``), so the runner checks can be seen to fail on the clause each defect breaks."""

from __future__ import annotations

from typing import Any


def cut_stream_as_complete(stream: Any) -> Any:
    """What a stream cut before its terminal event accumulated, taken as the completed response: the regression
    of a runner that accepts an early end, counting its unfinished items as done."""
    snapshot = stream._state._ResponseStreamState__current_snapshot
    snapshot.status = "completed"
    for item in snapshot.output:
        if getattr(item, "status", None) == "in_progress":
            item.status = "completed"
    return snapshot
