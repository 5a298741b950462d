"""The computer desktop's screen size is a certification option, and the computer checks scale their points to it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conformance.certificate_format import load as load_certificate
from conformance.contracts.computer._support import FREE_LEFT, FREE_TOP, PATH_FRACTIONS, POINT_FRACTIONS, _at
from conformance.harness.desktops.settings import COMMON_SCREENS, parse_screen_size
from tests.broken.certification import run_child
from tests.tiers import THOROUGH

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser, pytest.mark.desktop, pytest.mark.child_run]

REPOSITORY = Path(__file__).resolve().parents[4]


@pytest.mark.parametrize(
    ("text", "size"), [("1024x768", (1024, 768)), ("1280X800", (1280, 800)), (" 1920x1080 ", (1920, 1080))]
)
def test_screen_sizes_parse(text: str, size: tuple[int, int]) -> None:
    assert parse_screen_size(text) == size


@pytest.mark.parametrize("text", ["1024", "800x600", "1024x", "x768", "big", "99999x768"])
def test_bad_screen_sizes_name_the_problem(text: str) -> None:
    with pytest.raises(ValueError, match=r"1024x768|WIDTHxHEIGHT"):
        parse_screen_size(text)


@pytest.mark.parametrize("size", COMMON_SCREENS, ids=lambda size: f"{size[0]}x{size[1]}")
def test_check_points_stay_in_the_pages_free_area_of_every_screen(size: tuple[int, int]) -> None:
    for fractions in (POINT_FRACTIONS, PATH_FRACTIONS):
        placed = _at(size, fractions)
        assert len(set(placed)) == len(placed)
        for x, y in placed:
            assert FREE_LEFT <= x < size[0] and FREE_TOP <= y < size[1], (size, x, y)


def test_an_unsupported_screen_size_is_a_usage_error() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "--computer-driver=reference.computer:sync_factory", "--screen-size=800x600"],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == pytest.ExitCode.USAGE_ERROR
    assert "--screen-size=800x600: 800x600 is outside the supported screen sizes" in completed.stderr


# Thorough (tests/tiers.py): CI certifies the reference computer driver at the default size on both desktops, and
# the check points' placement at every common size is a unit test above.
@THOROUGH
@pytest.mark.slow
@pytest.mark.parametrize("size", ["1024x768", "1280x800"])
def test_the_reference_computer_driver_conforms_at_each_screen_size(size: str, tmp_path: Path) -> None:
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--computer-driver=reference.computer:sync_factory",
        f"--screen-size={size}",
        f"--certificate={tmp_path}",
        "-q",
    ]
    completed = run_child(command, cwd=REPOSITORY, timeout=900)
    output = completed.stdout + completed.stderr
    certificate = dict(load_certificate(tmp_path / "certificate.json"))
    profile = certificate["subjects"][0]["profile"]
    assert profile["screen size"] == size
    assert profile["software"]["driver class"] == "reference.computer.driver.XvfbComputerDriver"
    assert certificate["verdict"] == "conforms", output[-3000:]
