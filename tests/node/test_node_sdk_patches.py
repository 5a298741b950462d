"""Patched Node SDKs (``--node-sdk``): each catalogued defect fails exactly its clause, and an unpatched copy passes.

Every patch of tests/node/npm_patch_catalogues.py is planted in its own copy of npm ``openai`` and certified on the
check that covers it, which must blame exactly the patch's clause; per catalogue, the unpatched copy certified on the
same checks passes them all, so each patched run's failure is its patch's doing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.node.npm_patch_catalogues import CATALOGUES
from tests.node.npm_patches import assert_fails_exactly_its_clause, assert_unpatched_passes

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.child_run, pytest.mark.node]

# "family/name": the patch (a name is unique within its family's catalogue).
PATCHES = {
    f"{family}/{name}": patch for family, catalogue in CATALOGUES.items() for name, patch in catalogue.patches.items()
}


@pytest.mark.parametrize("patch", sorted(PATCHES))
def test_a_patched_node_sdk_fails_exactly_its_clause(patch: str, pristine: Path, tmp_path: Path) -> None:
    assert_fails_exactly_its_clause(PATCHES[patch], pristine, tmp_path)


@pytest.mark.parametrize("family", sorted(CATALOGUES))
def test_an_unpatched_copy_passes_the_same_checks(family: str, pristine: Path, tmp_path: Path) -> None:
    assert_unpatched_passes(CATALOGUES[family], pristine, tmp_path)
