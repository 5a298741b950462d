"""Fixtures and settings for the toolset checks.

Picks the ``quick`` hypothesis profile unless one was named on the command line (the kit's plugin registers
the profiles; its collection hook applies the known-deviation file for the installed SDK).
"""

from __future__ import annotations

import pytest
from hypothesis import settings

from conformance.flavours import FLAVOURS, Flavour
from conformance.hypothesis_profiles import QUICK


def pytest_configure(config: pytest.Config) -> None:
    # The hypothesis plugin loads a profile named on the command line; only pick ours when none was named.
    if config.getoption("hypothesis_profile", None) is None:
        settings.load_profile(QUICK)


@pytest.fixture(params=FLAVOURS)
def flavour(request: pytest.FixtureRequest) -> Flavour:
    """Every check runs once against the sync toolsets and once against the async ones."""
    value: Flavour = request.param
    return value
