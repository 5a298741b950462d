"""conformance.atomic: a user's file is replaced whole or not at all, with the permissions open() would give."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from conformance import atomic


def test_a_new_file_gets_the_umask_mode_not_a_private_one(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        written = atomic.write_text(tmp_path / "certificate.json", "{}\n")
    finally:
        os.umask(old)
    assert written.read_text(encoding="utf-8") == "{}\n"
    assert stat.S_IMODE(written.stat().st_mode) == 0o644


def test_an_existing_file_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "page.html"
    target.write_text("old", encoding="utf-8")
    target.chmod(0o640)
    atomic.write_text(target, "new")
    assert (target.read_text(encoding="utf-8"), stat.S_IMODE(target.stat().st_mode)) == ("new", 0o640)


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "certificate.md"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(UnicodeEncodeError):
        atomic.write_text(target, "half \udc80 written")
    assert target.read_text(encoding="utf-8") == "old"
    assert [path.name for path in tmp_path.iterdir()] == ["certificate.md"]
