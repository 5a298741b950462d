"""Fixtures and settings for the toolset checks.

Picks the ``quick`` hypothesis profile unless one was named on the command line (the kit's plugin registers
the profiles; its collection hook applies the known-deviation file for the installed SDK).
"""

from __future__ import annotations

import pytest
from hypothesis import settings

from conformance.flavours import FLAVOURS, Flavour
from conformance.hypothesis_profiles import QUICK
from conformance.rig.modes import sdk_under_check


def pytest_configure(config: pytest.Config) -> None:
    # The hypothesis plugin loads a profile named on the command line; only pick ours when none was named.
    if config.getoption("hypothesis_profile", None) is None:
        settings.load_profile(QUICK)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    # Read while collecting, not when this file is imported (which may come before the plugin has configured the
    # run's SDK): a --node-sdk run checks the Node SDK's toolsets (async only) in place of Python's two flavours.
    if "flavour" not in metafunc.fixturenames:
        return
    for marker in metafunc.definition.iter_markers("parametrize"):
        names = marker.args[0]
        if "flavour" in ([name.strip() for name in names.split(",")] if isinstance(names, str) else names):
            return
    flavours = ["node"] if sdk_under_check() == "node" else list(FLAVOURS)
    metafunc.parametrize("flavour", flavours, indirect=True)


@pytest.fixture
def flavour(request: pytest.FixtureRequest) -> Flavour:
    """Every check runs once against the sync toolsets and once against the async ones (in a --node-sdk run,
    once against the Node SDK's)."""
    value: Flavour = request.param
    return value
