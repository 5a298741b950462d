"""One certification per certificate folder: a second run into a folder in use is refused, never silently merged."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conformance.folder_lock import LOCK_NAME, FolderInUseError, FolderLock

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.child_run]

REPOSITORY = Path(__file__).resolve().parents[2]


def _collect_into(folder: Path) -> subprocess.CompletedProcess[str]:
    """A run that only collects, writing its certificate into ``folder`` (so it takes the folder's lock)."""
    command = [sys.executable, "-m", "pytest", f"--certificate={folder}", "-p", "no:cacheprovider", "--co", "-q"]
    return subprocess.run(command, cwd=REPOSITORY, capture_output=True, text=True, timeout=120, check=False)


def test_a_second_lock_on_the_folder_is_refused_naming_the_holder(tmp_path: Path) -> None:
    first = FolderLock(tmp_path)
    first.acquire()
    with pytest.raises(FolderInUseError, match=rf"another certification \(process \d+\) is writing to {tmp_path}"):
        FolderLock(tmp_path).acquire()
    first.release()
    second = FolderLock(tmp_path)
    second.acquire()  # free again once released
    second.release()
    assert not (tmp_path / LOCK_NAME).exists()


def test_a_run_into_a_folder_another_run_holds_is_a_usage_error(tmp_path: Path) -> None:
    holder = FolderLock(tmp_path)
    holder.acquire()
    try:
        done = _collect_into(tmp_path)
    finally:
        holder.release()
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert f"--certificate={tmp_path}: another certification (process" in done.stderr
    assert not list(tmp_path.iterdir()), "the refused run wrote into the folder"


def test_a_run_releases_the_folder_when_it_ends(tmp_path: Path) -> None:
    done = _collect_into(tmp_path)
    assert done.returncode in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED), done.stdout + done.stderr
    assert not (tmp_path / LOCK_NAME).exists()
    FolderLock(tmp_path).acquire()
