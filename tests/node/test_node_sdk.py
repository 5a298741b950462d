"""``--node-sdk`` (``driverkit certify --sdk=node``): the Node SDK certificate and the Node deviation baseline.

Patched Node SDKs, each failing exactly its clause, are tests/node/test_node_sdk_patches.py.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.certificate_format import load as load_certificate
from conformance.node.sdk.subject import node_sdk_version
from tests.node.npm_patches import ROOT, certify, failed, statuses

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.child_run, pytest.mark.node]


def test_the_node_sdk_certificate_names_the_npm_package_and_conforms_on_the_loop(tmp_path: Path) -> None:
    certificate = certify(tmp_path, "conformance/contracts/runner/check_loop.py")
    assert certificate["exit"] == 0
    assert certificate["versions"]["openai (npm)"] == node_sdk_version() == "7.55.0"
    assert [subject["kind"] for subject in certificate["subjects"]] == ["Node SDK toolsets and runners"]
    checked = statuses(certificate)
    for clause in ("RN-LOOP-001", "RN-LOOP-002", "RN-LOOP-004", "RN-STEPS-001", "RN-STEPS-002", "RN-ERR-001"):
        assert checked[clause] == "passed", (clause, checked[clause])
    assert not failed(certificate)


def test_known_node_deviations_are_strict_expected_failures(tmp_path: Path) -> None:
    certificate = certify(
        tmp_path, "conformance/contracts/runner/check_streaming.py::test_gap_defers_suffix_then_continues"
    )
    assert certificate["exit"] == 0
    assert statuses(certificate)["RN-STREAM-003"] == "deviation"


def test_checks_with_no_node_form_are_not_checked_with_the_reason(tmp_path: Path) -> None:
    # The Node SDK's Decisions observation has no one-shot iterable form (an array or a string only).
    check = "conformance/contracts/runner/check_decisions_observations.py::test_one_shot_iterable_is_sent_whole"
    certificate = certify(tmp_path, check)
    clauses = [clause for clause in certificate["clauses"] if clause["checks"]]
    assert [clause["id"] for clause in clauses] == ["RN-DEC-010"]
    assert clauses[0]["status"] == "not_checked"
    assert "Node SDK" in " ".join(clauses[0]["reasons"])
    assert certificate["verdict"] != "conforms"


# A folder named by an option's separate value (``--certificate out``) becomes the rootdir of xdist workers once the
# controller has created it, which changes every node ID there; the Python-only checks must still be found. (A path
# among the arguments would fix the rootdir again, so the checks are picked by keyword.)


def _flavour_clauses_not_implemented(certificate: dict[str, Any]) -> None:
    clauses = [clause for clause in certificate["clauses"] if clause["id"].startswith("TS-FLAV-") and clause["checks"]]
    # The Node SDK has one (async) form: the flavour rules are what it does not implement, not what went unchecked.
    assert clauses and all(clause["status"] == "not_implemented" for clause in clauses), [
        (clause["id"], clause["status"]) for clause in clauses
    ]
    assert certificate["exit"] == 0


def test_python_only_checks_are_found_in_xdist_workers_whatever_their_rootdir(tmp_path: Path) -> None:
    _flavour_clauses_not_implemented(certify(tmp_path, "-n", "2", "-k", "check_flavour"))


def test_driverkit_certify_keeps_the_rootdir_with_two_workers_and_a_folder_outside(tmp_path: Path) -> None:
    out = tmp_path / "elsewhere" / "certificate"
    command = [sys.executable, "-m", "conformance.cli", "certify", "--sdk=node", f"--out={out}"]
    done = subprocess.run(
        [*command, "--", "-n", "2", "-q", "-p", "no:randomly", "-k", "check_flavour"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert "FAILED" not in done.stdout, done.stdout[-3000:]
    certificate: dict[str, Any] = dict(load_certificate(out / "certificate.json"))
    certificate["exit"] = done.returncode
    # Check IDs are the same from any rootdir (the certificate folder's would otherwise show in workers).
    assert all(result.startswith("contracts/") for clause in certificate["clauses"] for result in clause["checks"])
    _flavour_clauses_not_implemented(certificate)


def test_the_node_baseline_parses_and_names_only_node_checks() -> None:
    from conformance.deviations import parse_deviations
    from conformance.node.sdk.subject import NODE_DEVIATIONS_DIR

    for baseline in sorted(NODE_DEVIATIONS_DIR.glob("*.toml")):
        deviations = parse_deviations(baseline.read_text("utf-8"), str(baseline))
        assert deviations
        for deviation in deviations:
            assert deviation.id.startswith("DEV-NODE-")
            assert all("[node" in test for test in deviation.tests), deviation.tests


def test_driverkit_deviations_node_lists_the_baseline(capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.cli import main

    assert main(["deviations", "--node"]) == 0
    out = capsys.readouterr().out
    from conformance.deviations import parse_deviations
    from conformance.node.sdk.subject import NODE_DEVIATIONS_DIR

    baseline = NODE_DEVIATIONS_DIR / "7.55.0.toml"
    count = len(parse_deviations(baseline.read_text("utf-8"), str(baseline)))
    assert out.startswith(f"openai (npm) 7.55.0: {count} known deviation(s) from 7.55.0.toml")
    assert "DEV-NODE-TS-004  TS-SEL-010" in out
