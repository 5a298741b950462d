"""Settings for the runner checks: until the kit's plugin does it, apply the known-deviation file for the
installed SDK (conformance/known_deviations/<version>.toml) so documented disagreements run as strict xfails."""

from __future__ import annotations

import pytest

from conformance.deviations import DeviationFileError, apply_deviations


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Interim, as in the toolset suite: marking twice is harmless once the plugin applies deviations itself.
    try:
        apply_deviations(items)
    except DeviationFileError as error:
        raise pytest.UsageError(f"known deviations: {error}") from None
