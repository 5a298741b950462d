"""Settings for the runner checks: the ``fuzz`` marker, and the ``quick`` hypothesis profile unless one was named.

The fuzz check (``check_fuzz_generated_streams.py``) draws its budget from the hypothesis profile, so a runner
suite run on its own must pick the kit's profile as the toolset suite does (``--hypothesis-profile=thorough``
names the long one).
"""

from __future__ import annotations

import pytest
from hypothesis import settings

from conformance.hypothesis_profiles import QUICK


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "fuzz: runs the runners over generated Responses streams (select with -m fuzz)")
    # The hypothesis plugin loads a profile named on the command line; only pick ours when none was named.
    if config.getoption("hypothesis_profile", None) is None:
        settings.load_profile(QUICK)
