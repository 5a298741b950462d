"""Registry coverage for the toolset suite: every TS clause is checked, every check names real TS clauses,
and every clause cites a heading that exists in its spec file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import conformance.contracts.toolset
from conformance.clauses import load_clauses, registry

CLAUSES = load_clauses("toolset")

SUITE = Path(conformance.contracts.toolset.__file__).parent


# Run in a child process so the suite's conftest and plugins load as they do for a maintainer, without
# disturbing this session. Syrupy is off because collection alone would report its snapshots as unused.
COLLECT = """
import json, sys, pytest
found = {}
class Grab:
    def pytest_collection_modifyitems(self, items):
        for item in items:
            found[item.nodeid] = sorted({str(a) for m in item.iter_markers("clause") for a in m.args})
pytest.main(["--collect-only", "-q", "-p", "no:randomly", "-p", "no:syrupy", sys.argv[1]], plugins=[Grab()])
print("RESULT" + json.dumps(found))
"""


@pytest.fixture(scope="module")
def declared_by_check() -> dict[str, set[str]]:
    """Each collected check of the suite with the clause IDs it declares."""
    done = subprocess.run([sys.executable, "-c", COLLECT, str(SUITE)], capture_output=True, text=True, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT")]
    assert lines, done.stdout[-2000:] + done.stderr[-2000:]
    return {node: set(ids) for node, ids in json.loads(lines[0][len("RESULT") :]).items()}


def test_the_suite_collects(declared_by_check: dict[str, set[str]]) -> None:
    assert len(declared_by_check) > 500


def test_every_check_declares_existing_toolset_clauses(declared_by_check: dict[str, set[str]]) -> None:
    clauses = registry()
    bare = [node for node, ids in declared_by_check.items() if not ids]
    assert bare == [], f"checks without a clause marker: {bare[:5]}"
    unknown = sorted({cid for ids in declared_by_check.values() for cid in ids if cid not in clauses})
    assert unknown == []
    foreign = sorted({cid for ids in declared_by_check.values() for cid in ids if not cid.startswith("TS-")})
    assert foreign == []


def test_every_toolset_clause_is_checked(declared_by_check: dict[str, set[str]]) -> None:
    used = set().union(*declared_by_check.values())
    unchecked = [clause.id for clause in CLAUSES if clause.id not in used]
    assert unchecked == []


def test_every_check_runs_in_both_flavours(declared_by_check: dict[str, set[str]]) -> None:
    nodes = list(declared_by_check)
    missing = [node for node in nodes if "[sync" not in node and "-sync" not in node and "async" not in node]
    assert missing == [], f"checks not parametrized over flavour: {missing[:5]}"
    syncs = sum(1 for node in nodes if "sync" in node.split("[", 1)[1] and "async" not in node.split("[", 1)[1])
    assert syncs * 2 == len(nodes)


def test_clause_ids_are_unique_and_prefixed() -> None:
    ids = [clause.id for clause in CLAUSES]
    assert len(ids) == len(set(ids))
    assert all(clause_id.startswith("TS-") for clause_id in ids)
