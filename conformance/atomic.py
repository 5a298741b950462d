"""Writing a file so readers see the old content or the whole new one, never a partial write.

Every file the kit writes for a user (certificates, their HTML pages, cassettes, replay timelines) goes through
here, so an interrupted run or a full disk cannot leave a half-written certificate behind.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file in the same folder, renamed into place."""
    target = Path(path)
    descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
        # mkstemp creates the file private; give it the permissions a plain open() would have.
        os.chmod(temporary, _default_mode(target))
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def _default_mode(target: Path) -> int:
    """An existing file keeps its mode; a new one gets what ``open()`` would give it under the current umask."""
    if target.exists():
        return target.stat().st_mode & 0o777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


__all__ = ["write_text"]
