"""Fixtures and settings for the toolset checks.

Registers the hypothesis profiles ``quick`` (the default here) and ``thorough`` (``--hypothesis-profile=
thorough``), and, until the kit's plugin does it, applies the known-deviation file for the installed SDK.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings

from conformance.deviations import apply_deviations
from conformance.probes import FLAVOURS, Flavour

# database=None: checks must not leave a .hypothesis directory in the caller's tree.
settings.register_profile(
    "quick",
    max_examples=12,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
settings.register_profile(
    "thorough",
    max_examples=400,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


def pytest_configure(config: pytest.Config) -> None:
    # The hypothesis plugin loads a profile named on the command line; only pick ours when none was named.
    if config.getoption("hypothesis_profile", None) is None:
        settings.load_profile("quick")


@pytest.fixture(params=FLAVOURS)
def flavour(request: pytest.FixtureRequest) -> Flavour:
    """Every check runs once against the sync toolsets and once against the async ones."""
    value: Flavour = request.param
    return value


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Interim: the kit's plugin will call apply_deviations for every contract suite; marking twice is harmless.
    apply_deviations(items)
