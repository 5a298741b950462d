"""``--driver=mypkg.drivers:make`` loads from the folder pytest runs in, and a missing module names the folders."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conformance.harness.factory import SpecError, load_callable


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A driver author's folder holding ``authorpkg``, which is on no import path yet."""
    package = tmp_path / "authorpkg_for_loading"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "drivers.py").write_text("def make(env):\n    return env\n")
    monkeypatch.setattr(sys, "path", [entry for entry in sys.path if entry not in ("", str(tmp_path))])
    monkeypatch.delitem(sys.modules, "authorpkg_for_loading", raising=False)
    monkeypatch.delitem(sys.modules, "authorpkg_for_loading.drivers", raising=False)
    return tmp_path


def test_the_working_directory_is_searched(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    factory = load_callable("authorpkg_for_loading.drivers:make", "--driver")
    assert factory("env") == "env"
    assert str(project) in sys.path


def test_extra_folders_are_searched(
    project: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path_factory.mktemp("elsewhere"))
    assert callable(load_callable("authorpkg_for_loading.drivers:make", "--driver", search=[project]))


def test_a_missing_module_names_the_folders_searched(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    with pytest.raises(SpecError) as raised:
        load_callable("nowhere_pkg.drivers:make", "--driver")
    message = str(raised.value)
    assert "--driver='nowhere_pkg.drivers:make': module 'nowhere_pkg' not found; searched these folders:" in message
    assert f"  {project}" in message
    assert "PYTHONPATH" in message and "pip install -e ." in message


def test_an_installed_module_is_not_shadowed(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    assert callable(load_callable("conformance.harness.factory:load_callable", "--driver"))
    assert str(project) not in sys.path  # found without adding the working directory
