"""The computer suite fails a driver whose action method returns a value, on exactly CO-SHAPE-003."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.desktops import needs_x

pytestmark = [needs_x, pytest.mark.desktop, pytest.mark.child_run]


def test_an_action_returning_a_value_fails_only_co_shape_003(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The plugin loads the factory while configuring, before any rootdir path is added: make `tests` importable.
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parents[4]))
    result = pytester.runpytest_subprocess(
        "--computer-driver=tests.broken.computer_result_drivers:reporting_factory",
        "-p",
        "no:randomly",
        "-k",
        "check_action_results or click_lands",
    )
    output = result.stdout.str()
    assert "FAILED CO-SHAPE-003" in output, output[-3000:]
    assert "FAILED CO-CLICK-001" not in output, output[-3000:]
    outcomes = result.parseoutcomes()
    # Only the click returns a value; the other seven actions and the click's landing still conform.
    assert outcomes.get("failed") == 1, output[-3000:]
    assert outcomes.get("passed") == 8, output[-3000:]
