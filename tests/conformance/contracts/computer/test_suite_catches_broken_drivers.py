"""The computer suite fails a driver that cuts corners, on exactly the clauses it breaks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.desktops import needs_x

pytestmark = [needs_x, pytest.mark.desktop, pytest.mark.child_run]


def _certify(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, factory: str, selection: str
) -> pytest.RunResult:
    """The computer suite's checks ``selection`` picks, run on a broken driver in a child pytest."""
    # The plugin loads the factory while configuring, before any rootdir path is added: make `tests` importable.
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parents[4]))
    return pytester.runpytest_subprocess(
        f"--computer-driver=tests.broken.computer_drivers:{factory}", "-p", "no:randomly", "-k", selection
    )


def test_corner_cutting_driver_fails_its_clauses(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    result = _certify(
        pytester, monkeypatch, "corner_cutting_factory", "wait_pauses or unknown_key or double_click_is or click_lands"
    )
    output = result.stdout.str()
    for clause in ("CO-WAIT-001", "CO-UNSUP-001", "CO-DCLICK-001"):
        assert f"FAILED {clause}" in output, output[-3000:]
    assert "FAILED CO-CLICK-001" not in output
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed") == 4  # wait, two unknown-key variants, double click
    assert outcomes.get("passed") == 1  # the plain click still conforms


def test_a_screenshot_the_sdk_refuses_fails_only_the_screenshot_clause(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _certify(pytester, monkeypatch, "untyped_screenshot_factory", "click_lands or is_a_computer_screenshot")
    output = result.stdout.str()
    assert "FAILED CO-SHOT-001" in output, output[-3000:]
    # The click check needs a screenshot first: the refusal blames the screenshot clause, never the click.
    assert "FAILED CO-CLICK-001" not in output, output[-3000:]
    assert result.parseoutcomes().get("failed") == 2


def test_a_driver_sending_cropped_scaled_screenshots_conforms(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The driver guide's fix for missed clicks: a cropped screenshot, points mapped back by scale and offset. The
    # suite places each screenshot on the screen by the page's calibration marks, not by its size alone.
    result = _certify(pytester, monkeypatch, "cropped_screenshot_factory", "check_")
    output = result.stdout.str()
    assert "verdict: conforms" in output, output[-3000:]
    assert result.parseoutcomes().get("skipped") is None, output[-3000:]


def test_a_driver_sending_enlarged_screenshots_conforms(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One coordinate space is what the documents ask for; a screenshot larger than the screen keeps it when every
    # point is scaled back, so neither the screenshot clauses nor the pointer ones may fail it.
    result = _certify(pytester, monkeypatch, "upscaled_screenshot_factory", "check_screenshots or check_pointer")
    output = result.stdout.str()
    assert "FAILED" not in output, output[-3000:]
    assert result.parseoutcomes().get("passed", 0) >= 5, output[-3000:]


def test_a_screenshot_with_two_scales_fails_only_the_screenshot_scale_clause(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _certify(pytester, monkeypatch, "stretched_screenshot_factory", "check_screenshots or click_lands")
    output = result.stdout.str()
    assert "FAILED CO-SHOT-002" in output, output[-3000:]
    failed = sorted({line.split()[2] for line in result.stdout.lines if re.match(r"\s+\d+\. FAILED ", line)})
    assert failed == ["CO-SHOT-002"], output[-3000:]
