"""A merged certificate keeps the evidence its shards gathered for the checks behind its failed clauses."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from conformance import certificate
from conformance.clauses import registry
from conformance.merge import load, merge
from conformance.session import ClauseResult, ClauseStatus

FIRST, SECOND = (clause.id for clause in registry().with_prefix("BR")[:2])


def _shard(directory: Path, status: ClauseStatus, check: str, evidence: Mapping[str, Any]) -> Path:
    results = [
        ClauseResult(registry().get(FIRST), status, [check], ["it broke"] if status == "failed" else []),
        ClauseResult(registry().get(SECOND), "not_checked", []),
    ]
    subject = certificate.CertifiedSubject("browser driver", "m:f", {"flavour": "sync"})
    certificate.write(directory, certificate.build([subject], results, evidence={check: evidence}))
    return directory


def test_the_failing_shards_evidence_survives_the_merge(tmp_path: Path) -> None:
    seen = {
        "calls": [],
        "omitted_calls": 0,
        "effects": None,
        "omitted_effects": 0,
        "point": None,
        "before": {"image": None, "note": "b"},
        "after": {"image": None, "note": "a"},
    }
    failing = _shard(tmp_path / "one", "failed", "m.py::test_a", seen)
    passing = _shard(tmp_path / "two", "passed", "m.py::test_b", {**seen, "before": {"image": None, "note": ""}})
    merged = merge([load(failing), load(passing)])
    assert merged["evidence"] == {"m.py::test_a": seen}
    page = certificate.write(tmp_path / "merged", merged)[2].read_text("utf-8")
    assert 'id="check-1-evidence"' in page and ">a</p>" in page
