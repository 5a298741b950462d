"""``driverkit doctor`` names each missing piece with the command that adds it, and what that rules out."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conformance import doctor, resources
from conformance.cli import main

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser, pytest.mark.desktop, pytest.mark.container, pytest.mark.node]


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


def _executable(path: Path, body: str = "") -> str:
    """A shell script at ``path`` running ``body``: a stand-in for a program doctor looks for."""
    path.write_text(f"#!/bin/sh\n{body}")
    path.chmod(0o755)
    return str(path)


def _fake_node(tmp_path: Path, version: str) -> str:
    """A stand-in ``node`` that only answers ``--version`` (what doctor and the bridge ask of it)."""
    return _executable(tmp_path / "node", f"echo {version}\n")


def test_node_too_old_is_named_with_the_debian_command(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DRIVERKIT_NODE", _fake_node(tmp_path, "v16.20.2"))
    results = doctor.findings()
    node = next(result for result in results if result.name == "node")
    assert not node.found and "Node v16.20.2" in node.detail and "needs Node 18 or newer" in node.detail
    assert "apt-get install -y nodejs npm" in node.render()
    assert "cannot certify JavaScript drivers (node:PATH#EXPORT)" in doctor.summary(results)


def test_node_absent_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DRIVERKIT_NODE", raising=False)
    real_which = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name: None if name == "node" else real_which(name))
    node = next(result for result in doctor.findings() if result.name == "node")
    assert not node.found and node.detail.startswith("node not found on PATH")
    assert node.fix.startswith("apt-get install -y nodejs npm")


def test_debian_node_18_is_enough_but_named_too_old_for_playwright(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("DRIVERKIT_NODE", _fake_node(tmp_path, "v18.20.4"))
    node = next(result for result in doctor.findings() if result.name == "node")
    assert node.found, node.render()
    assert node.detail.startswith("Node 18.20 at ") and "needs Node 20+" in node.detail


def test_the_browser_line_says_which_chromium_headless_runs_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DRIVERKIT_CHROMIUM", raising=False)
    monkeypatch.delenv("OPENAI_EXAMPLE_BROWSER_CHANNEL", raising=False)
    full = _executable(tmp_path / "chromium")
    monkeypatch.setattr(doctor, "DEBIAN_CHROMIUM", full)
    monkeypatch.setattr(doctor, "DEBIAN_HEADLESS_SHELL", str(tmp_path / "no-shell"))
    without = doctor._playwright_chromium()
    assert without.found and "apt-get install -y chromium-headless-shell" in without.detail
    shell = _executable(tmp_path / "chromium-headless-shell")
    monkeypatch.setattr(doctor, "DEBIAN_HEADLESS_SHELL", shell)
    assert doctor._playwright_chromium().detail.endswith(f"headless: Debian's headless shell at {shell}")


def test_a_named_chromium_that_is_not_executable_is_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_EXAMPLE_BROWSER_CHANNEL", raising=False)
    monkeypatch.setenv("DRIVERKIT_CHROMIUM", str(tmp_path / "absent"))
    finding = doctor._playwright_chromium()
    assert not finding.found and "is not an executable file" in finding.detail
    assert "unset DRIVERKIT_CHROMIUM" in finding.render()
    monkeypatch.setenv("DRIVERKIT_CHROMIUM", _executable(tmp_path / "mine"))
    assert doctor._playwright_chromium().found


def test_advice_fits_a_wheel_install(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(doctor, "checkout", lambda: None)
    monkeypatch.setattr(doctor.shutil, "which", lambda name: "/usr/bin/docker" if name == "docker" else None)
    monkeypatch.setattr(doctor, "_run", lambda argv: None)  # no engine answers
    monkeypatch.setattr(Path, "is_file", lambda self: False)  # no node_modules/openai anywhere
    results = {result.name: result for result in doctor.findings()}
    assert results["Docker engine"].fix == "service docker start (or dockerd &)"
    assert results["npm openai"].fix.startswith(f"npm install openai@{doctor.NPM_OPENAI} in the driver's project")
    assert all("setup.sh" not in result.fix and "checkout" not in result.fix for result in results.values())


def test_advice_in_a_checkout_names_its_scripts(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(doctor, "checkout", lambda: tmp_path)
    monkeypatch.setattr(Path, "is_file", lambda self: False)
    npm = next(result for result in doctor.findings() if result.name == "npm openai")
    assert npm.fix == f"bash {tmp_path / 'scripts' / 'setup.sh'}"


def test_the_exit_status_answers_for_the_certification_asked_for(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    everything = [doctor.Finding("x", name, True, "here") for name in ("Python", "openai", "pytest", "playwright")]
    everything += [doctor.Finding("browser", "browser", True, "here"), doctor.Finding("node", "npm openai", False, "")]
    monkeypatch.setattr(doctor, "findings", lambda: everything)
    assert main(["doctor"]) == 0  # the main job (browser drivers) can run; only the npm openai is missing
    assert main(["doctor", "--for", "sdk"]) == 0
    capsys.readouterr()
    assert main(["doctor", "--for", "browser", "--for", "node-sdk"]) == 1
    assert "cannot run what was asked for: the npm openai (--sdk=node)" in capsys.readouterr().out
    assert main(["doctor", "--for", "all"]) == 1
