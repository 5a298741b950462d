"""Which Chromium the reference driver launches: a named one, else Debian's headless shell when headless, else
Debian's full Chromium, else Playwright's own (see ``reference/browser/_launch.py`` for why the shell comes first)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reference.browser import _launch
from reference.browser._errors import LaunchError
from reference.browser._launch import CHANNEL_VARIABLE, EXECUTABLE_VARIABLE, chromium_executable, launch_options

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser]


def _executable(path: Path) -> str:
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return str(path)


@pytest.fixture
def debian(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """Stand-ins for Debian's two executables, both installed; neither variable set."""
    shell = _executable(tmp_path / "chromium-headless-shell")
    full = _executable(tmp_path / "chromium")
    monkeypatch.setattr(_launch, "DEBIAN_HEADLESS_SHELL", shell)
    monkeypatch.setattr(_launch, "DEBIAN_CHROMIUM", full)
    monkeypatch.delenv(EXECUTABLE_VARIABLE, raising=False)
    monkeypatch.delenv(CHANNEL_VARIABLE, raising=False)
    return shell, full


def test_a_headless_browser_is_the_headless_shell(debian: tuple[str, str]) -> None:
    shell, _full = debian
    assert chromium_executable(headless=True) == shell
    assert launch_options("/nonexistent")["executable_path"] == shell


def test_a_headed_browser_is_the_full_chromium(debian: tuple[str, str]) -> None:
    _shell, full = debian
    assert chromium_executable(headless=False) == full
    assert launch_options("/nonexistent", headless=False)["executable_path"] == full


def test_without_the_shell_a_headless_browser_is_the_full_chromium(debian: tuple[str, str]) -> None:
    shell, full = debian
    os.remove(shell)
    assert chromium_executable(headless=True) == full


def test_without_either_playwright_chooses(debian: tuple[str, str]) -> None:
    for path in debian:
        os.remove(path)
    assert chromium_executable(headless=True) is None
    assert "executable_path" not in launch_options("/nonexistent")


def test_the_variable_names_the_executable(
    debian: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    own = _executable(tmp_path / "my-chromium")
    monkeypatch.setenv(EXECUTABLE_VARIABLE, own)
    assert chromium_executable(headless=True) == own
    assert chromium_executable(headless=False) == own


@pytest.mark.parametrize("problem", ["missing", "not executable", "a folder"])
def test_a_variable_that_names_no_executable_is_refused(
    problem: str, debian: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    named = tmp_path / "named"
    if problem == "not executable":
        named.write_text("")
    elif problem == "a folder":
        named.mkdir()
    monkeypatch.setenv(EXECUTABLE_VARIABLE, str(named))
    with pytest.raises(LaunchError, match=f"{EXECUTABLE_VARIABLE}='{named}' is not an executable file"):
        launch_options("/nonexistent")


def test_the_chrome_channel_takes_no_executable(debian: tuple[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CHANNEL_VARIABLE, "chrome")
    options = launch_options("/nonexistent")
    assert options["channel"] == "chrome" and "executable_path" not in options
