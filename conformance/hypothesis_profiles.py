"""Hypothesis profiles for the toolset checks: ``quick`` (the default, keeps the suite well under its 60 s
target) and ``thorough`` (selected with ``--hypothesis-profile=thorough``).

The hypothesis plugin resolves ``--hypothesis-profile`` while pytest configures itself, so the profiles must
be registered before that: the package conftest does it, which is early enough for ``pytest
conformance/contracts/toolset``; for ``--pyargs`` the kit's plugin must call :func:`register_profiles` when
it is imported.
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
