"""``driverkit doctor`` names each missing piece with the command that adds it, and what that rules out."""

from __future__ import annotations

import shutil

import pytest

from conformance import doctor, resources
from conformance.cli import main


def test_every_piece_is_reported(capsys: pytest.CaptureFixture[str]) -> None:
    main(["doctor"])
    out = capsys.readouterr().out
    for piece in ("Python", "openai", "playwright", "pytest", "Chromium for Playwright", "Xvfb", "X tools"):
        assert f" {piece}: " in out
    assert "window manager" in out and "Docker engine" in out and "desktop image" in out
    assert "certify browser drivers" in out


def test_a_missing_program_is_named_with_its_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    real_which = shutil.which
    monkeypatch.setattr(doctor.shutil, "which", lambda name: None if name == "Xvfb" else real_which(name))
    results = doctor.findings()
    xvfb = next(result for result in results if result.name == "Xvfb")
    assert not xvfb.found and xvfb.fix == "apt-get install -y xvfb"
    assert "fix: apt-get install -y xvfb" in xvfb.render()
    assert "cannot certify computer drivers on this host (--computer-driver)" in doctor.summary(results)


def test_a_missing_package_is_named() -> None:
    finding = doctor._package("no-such-distribution-for-driverkit", "pip install it")
    assert not finding.found and finding.render().startswith("MISSING")


def test_desktop_build_scripts_ship_with_the_kit() -> None:
    for script in ("build-desktop-image.sh", "make-base-image.sh", "execution/build-image.sh"):
        assert resources.containers(script).is_file()
    assert resources.containers("desktop", "Dockerfile").is_file()
