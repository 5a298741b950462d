"""A pytest plugin for bench_certificate_html.py only: times the evidence the kit gathers for failing checks.

Loaded into a certification run with ``-p tests.benchmarks.evidence_timer``; it wraps the plugin's evidence hook
and writes the total seconds spent in it, and how many checks paid for it, to ``$DRIVERKIT_EVIDENCE_TIMES``.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from typing import Any

import pytest

from conformance import certification_plugin as plugin

_spent = {"seconds": 0.0, "checks": 0}
# The plugin's own name for the hook (it imports the function), so the hook it calls is the timed one.
_original: Callable[..., str | None] = vars(plugin)["evidence_of"]


def _timed(*args: Any, **kwargs: Any) -> str | None:
    started = time.perf_counter()
    found = _original(*args, **kwargs)
    _spent["seconds"] += time.perf_counter() - started
    _spent["checks"] += found is not None  # the checks that paid for evidence (a passing check returns None)
    return found


vars(plugin)["evidence_of"] = _timed


def pytest_sessionfinish(session: pytest.Session) -> None:
    target = os.environ.get("DRIVERKIT_EVIDENCE_TIMES")
    if target:
        with open(target, "w", encoding="utf-8") as handle:
            json.dump(_spent, handle)
