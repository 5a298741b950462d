"""Which lines of the (copied) reference package a certification runs: a pytest plugin for the control run.

``python -m pytest -p tools.mutate.tracing ...`` with :data:`VARIABLE` set to a file path records every line
executed in files under ``<working directory>/reference`` (the copy the runner made) and writes
``{"reference/browser/_tabs.py": [lines...]}`` there when pytest ends. A source variant whose changed lines never
ran in the control cannot change the certification's outcome, so the runner does not spend a certification on it.

Only frames of those files are traced line by line (the global trace function returns None for every other
frame), which keeps the overhead to one cheap call per function entry elsewhere. Threads started after the
plugin loads (the kit's driver worker, the network guard's handlers) are traced too.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any, Final

VARIABLE: Final = "DRIVERKIT_MUTANT_TRACE"

_executed: dict[str, set[int]] = {}
_prefix = ""
_lock = threading.Lock()


def _local(frame: FrameType, event: str, argument: Any) -> Any:
    if event == "line":
        _executed[frame.f_code.co_filename].add(frame.f_lineno)
    return _local


def _global(frame: FrameType, event: str, argument: Any) -> Any:
    filename = frame.f_code.co_filename
    if not filename.startswith(_prefix):
        return None
    lines = _executed.get(filename)
    if lines is None:
        with _lock:
            lines = _executed.setdefault(filename, set())
    lines.add(frame.f_lineno)
    return _local


def _write() -> None:
    target = os.environ.get(VARIABLE)
    if not target:
        return
    root = Path(_prefix).parent
    executed = {
        Path(filename).relative_to(root).as_posix(): sorted(lines) for filename, lines in sorted(_executed.items())
    }
    Path(target).write_text(json.dumps(executed), encoding="utf-8")


def _start() -> None:
    global _prefix
    _prefix = str(Path.cwd().resolve() / "reference") + os.sep
    sys.settrace(_global)
    threading.settrace(_global)


if os.environ.get(VARIABLE):
    # At import, which pytest does while it reads -p: before the driver's modules are imported, so their
    # module-level lines count too.
    _start()


def pytest_unconfigure(config: Any) -> None:
    if os.environ.get(VARIABLE):
        sys.settrace(None)
        threading.settrace(None)
        _write()
