"""Building the docs site as CI and a contributor do (``mkdocs build --strict``), for the tests that check it."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from tools.docs_text import REPOSITORY


def build_site(destination: Path) -> float:
    """Build the site into ``destination`` with warnings as errors; the seconds the build took."""
    started = time.monotonic()
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(destination)],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert built.returncode == 0, f"mkdocs build --strict failed:\n{built.stdout}\n{built.stderr}"
    return time.monotonic() - started
