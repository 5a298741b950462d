"""``driverkit compare-sdks``: every clause both SDKs checked with different outcomes, and what only one checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
from conformance.compare import compare, render, same_checks

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.node]


def certificate(versions: dict[str, str], **statuses: str) -> dict[str, Any]:
    """A certificate of the current format with the given clause outcomes (a valid file for the command)."""
    clauses = [
        {
            "id": clause.replace("_", "-"),
            "status": status.split(":")[0],
            "summary": f"summary of {clause}",
            "source": "a document, a section",
            "member": None,
            "reasons": ["why"],
            "members": [],
            # Which check decided it: "status:check" names another check than the clause's own.
            "checks": [f"runner/check_x.py::{status.split(':')[1] if ':' in status else clause}[mode]"],
            "why": None,
            "blocked_by": None,
        }
        for clause, status in statuses.items()
    ]
    summary = dict.fromkeys(("passed", "failed", "deviation", "unverified", "not_implemented", "not_checked"), 0)
    for entry in clauses:
        summary[str(entry["status"])] = summary.get(str(entry["status"]), 0) + 1
    return {
        "format": "driverkit.certificate",
        "format_version": 2,
        "created": "2026-12-04T00:00:00+00:00",
        "verdict": "conforms except for known deviations",
        "versions": versions,
        "contract": ["a document"],
        "subjects": [{"kind": "SDK toolsets and runners", "spec": None, "profile": {}}],
        "run": {"complete": True, "incomplete": [], "notes": []},
        "summary": summary,
        "clauses": clauses,
        "fix_first": [],
        "evidence": {},
    }


PYTHON = certificate(
    {"openai": "3.57.0"},
    RN_A_001="passed",
    RN_A_002="deviation",
    RN_A_003="passed",
    RN_A_004="deviation:test_only_python_runs",
    TS_B_001="passed",
)
NODE = certificate(
    {"openai (npm)": "7.55.0"},
    RN_A_001="passed",
    RN_A_002="passed",
    RN_A_003="not_checked",
    RN_A_004="passed",
    TS_B_001="failed",
)


def test_differences_and_one_sided_clauses() -> None:
    differences, python_only, node_only = compare(PYTHON, NODE)
    assert [(d.clause, d.python["status"], d.node["status"], same_checks(d)) for d in differences] == [
        ("RN-A-002", "deviation", "passed", True),
        ("RN-A-004", "deviation", "passed", False),
        ("TS-B-001", "passed", "failed", True),
    ]
    assert python_only == ["RN-A-003"] and node_only == []


def test_the_markdown_names_versions_counts_and_each_difference() -> None:
    text = render(PYTHON, NODE)
    assert text.startswith("# Python SDK vs Node SDK\n")
    assert "openai (Python) 3.57.0 vs openai (npm) 7.55.0: 4 clause(s) checked on both, 2 behave differently." in text
    assert "| RN-A-002 summary of RN_A_002 | known deviation: why | passed: why |" in text
    assert "Checked on the Python SDK only (1): RN-A-003" in text
    assert "the deciding check has no run on the other SDK) (1): RN-A-004" in text
    assert "RN-A-004 summary" not in text


def test_the_command_exits_0_and_refuses_what_is_no_certificate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "py").mkdir()
    (tmp_path / "py" / "certificate.json").write_text(json.dumps(PYTHON), "utf-8")
    (tmp_path / "node.json").write_text(json.dumps(NODE), "utf-8")
    assert main(["compare-sdks", str(tmp_path / "py"), str(tmp_path / "node.json")]) == 0
    assert "2 behave differently" in capsys.readouterr().out
    (tmp_path / "other.json").write_text("{}", "utf-8")
    assert main(["compare-sdks", str(tmp_path / "py"), str(tmp_path / "other.json")]) == 2
    assert "not a driverkit certificate" in capsys.readouterr().err
