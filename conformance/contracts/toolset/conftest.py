"""Fixtures and settings for the toolset checks.

Registers the hypothesis profiles (see profiles.py) and picks ``quick`` unless one was named on the command
line, and, until the kit's plugin does it, applies the known-deviation file for the installed SDK.
"""

from __future__ import annotations

import pytest
from hypothesis import settings

from conformance.contracts.toolset.profiles import QUICK, register_profiles
from conformance.deviations import DeviationFileError, apply_deviations
from conformance.probes import FLAVOURS, Flavour

register_profiles()


def pytest_configure(config: pytest.Config) -> None:
    # The hypothesis plugin loads a profile named on the command line; only pick ours when none was named.
    if config.getoption("hypothesis_profile", None) is None:
        settings.load_profile(QUICK)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Interim: the kit's plugin will call apply_deviations for every contract suite; marking twice is harmless.
    try:
        apply_deviations(items)
    except DeviationFileError as error:
        # A usage error prints one clear line naming the file and entry instead of an internal traceback.
        raise pytest.UsageError(f"known deviations: {error}") from None


@pytest.fixture(params=FLAVOURS)
def flavour(request: pytest.FixtureRequest) -> Flavour:
    """Every check runs once against the sync toolsets and once against the async ones."""
    value: Flavour = request.param
    return value
