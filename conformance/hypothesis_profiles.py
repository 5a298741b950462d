"""Hypothesis profiles for the property checks: ``quick`` (the default, keeps the SDK suites well under their
time targets) and ``thorough`` (selected with ``--hypothesis-profile=thorough``).

The hypothesis plugin resolves ``--hypothesis-profile`` while pytest configures itself, so the kit's plugin
registers these when it is imported, before any conftest is read.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

QUICK = "quick"
THOROUGH = "thorough"


def register_profiles() -> None:
    """Register both profiles (idempotent). ``database=None``: checks must not leave a .hypothesis directory
    in the caller's tree; the function-scoped ``flavour`` fixture is a plain parameter, safe to reuse."""
    for name, examples in ((QUICK, 12), (THOROUGH, 250)):
        settings.register_profile(
            name,
            max_examples=examples,
            deadline=None,
            database=None,
            suppress_health_check=[HealthCheck.function_scoped_fixture],
        )
