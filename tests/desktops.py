"""What the desktop tests share: the desktop fixture pages and the skip for machines without an X stack."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conformance import resources

PAGES = Path(resources.pages("desktop"))

needs_x = pytest.mark.skipif(
    not (shutil.which("Xvfb") and shutil.which("openbox") and Path("/usr/lib/chromium/chromium").exists()),
    reason="Xvfb, openbox and Chromium are needed (apt-get install xvfb openbox chromium)",
)
