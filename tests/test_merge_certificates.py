"""``driverkit merge-certificates``: shards of one run merge into the certificate one run would have written.

Real shards come from certifying the reference browser driver in two ``-k`` slices beside one run of both
slices together; crafted shards (built with ``conformance.certificate.build``, the writer's own format) cover
disagreement, different subjects and bad input.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from conformance import certificate
from conformance.certificate_format import load as load_certificate
from conformance.clauses import registry
from conformance.cli import main
from conformance.merge import MergeError, load, merge
from conformance.session import ClauseResult, ClauseStatus, NotCheckedWhy

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser, pytest.mark.child_run]

DRIVER = "reference.browser:sync_factory"
FIRST, SECOND, THIRD = (clause.id for clause in registry().with_prefix("BR")[:3])
Entry = tuple[ClauseStatus, Sequence[str], Sequence[str]]  # status, checks, reasons


def _write(
    directory: Path,
    clauses: Mapping[str, Entry],
    *,
    spec: str = DRIVER,
    versions: Mapping[str, Any] | None = None,
    incomplete: Sequence[str] = (),
) -> Path:
    results = [
        ClauseResult(registry().get(clause_id), status, list(checks), list(reasons), why=_why(status, reasons))
        for clause_id, (status, checks, reasons) in clauses.items()
    ]
    subject = certificate.CertifiedSubject("browser driver", spec, {"flavour": "sync"})
    built = certificate.build([subject], results, incomplete)
    # A crafted shard may claim other software versions than this machine's (build reads them from here).
    built["versions"].update(versions or {})
    certificate.write(directory, built)
    return directory


def _why(status: ClauseStatus, reasons: Sequence[str]) -> NotCheckedWhy | None:
    """A crafted not-checked clause with a reason is an environment failure; without one, it was not run."""
    if status != "not_checked":
        return None
    return "environment" if reasons else "not_run"


def _merged(*directories: Path) -> dict[str, Any]:
    return merge([load(directory) for directory in directories])


def _statuses(data: Mapping[str, Any]) -> dict[str, str]:
    return {clause["id"]: clause["status"] for clause in data["clauses"]}


NOT_RUN: Entry = ("not_checked", [], [])


def test_each_clause_comes_from_the_shard_that_ran_it(tmp_path: Path) -> None:
    a = _write(tmp_path / "a", {FIRST: ("passed", ["t::one"], []), SECOND: NOT_RUN})
    b = _write(tmp_path / "b", {FIRST: NOT_RUN, SECOND: ("passed", ["t::two"], [])})
    merged = _merged(a, b)
    assert _statuses(merged) == {FIRST: "passed", SECOND: "passed"}
    assert merged["verdict"] == "conforms"
    assert merged["summary"]["passed"] == 2 and merged["summary"]["not_checked"] == 0
    assert [shard["name"] for shard in merged["run"]["shards"]] == ["a", "b"]


def test_a_clause_no_shard_ran_stays_not_checked(tmp_path: Path) -> None:
    a = _write(tmp_path / "a", {FIRST: ("passed", ["t::one"], []), SECOND: NOT_RUN})
    b = _write(tmp_path / "b", {FIRST: ("passed", ["t::one"], []), SECOND: NOT_RUN})
    merged = _merged(a, b)
    assert _statuses(merged)[SECOND] == "not_checked"
    assert merged["verdict"] == "not fully checked"


def test_statuses_of_different_checks_combine_as_in_one_run(tmp_path: Path) -> None:
    a = _write(tmp_path / "a", {FIRST: ("passed", ["t::one"], []), SECOND: ("unverified", ["t::three"], ["why"])})
    b = _write(tmp_path / "b", {FIRST: ("failed", ["t::two"], ["broke"]), SECOND: ("passed", ["t::four"], [])})
    merged = _merged(a, b)
    assert _statuses(merged) == {FIRST: "failed", SECOND: "passed"}
    assert merged["verdict"] == "does not conform"
    first = merged["clauses"][0]
    assert first["reasons"] == ["broke"] and first["checks"] == ["t::two"]


def test_an_environment_failure_on_one_shard_is_kept(tmp_path: Path) -> None:
    a = _write(tmp_path / "a", {FIRST: ("not_checked", ["t::one"], ["Chromium did not start"])})
    b = _write(tmp_path / "b", {FIRST: NOT_RUN})
    merged = _merged(a, b)
    assert merged["clauses"][0]["reasons"] == ["Chromium did not start"]


def test_shards_that_disagree_on_one_check_say_where_in_the_clause_and_the_verdict(tmp_path: Path) -> None:
    a = _write(tmp_path / "worker-0", {FIRST: ("passed", ["t::one"], []), SECOND: ("passed", ["t::two"], [])})
    b = _write(tmp_path / "worker-1", {FIRST: ("failed", ["t::one"], ["flaky"]), SECOND: ("passed", ["t::two"], [])})
    merged = _merged(a, b)
    clause = merged["clauses"][0]
    assert clause["status"] == "failed"
    assert clause["reasons"][0] == "shards disagree: worker-0 passed, worker-1 failed"
    assert merged["verdict"] == (
        f"shards disagree on {FIRST} (worker-0 passed, worker-1 failed); otherwise does not conform"
    )
    assert _statuses(merged)[SECOND] == "passed"
    assert "shards disagree" in certificate.render_markdown(merged).splitlines()[0]


def test_a_disagreement_is_never_read_as_conforming(tmp_path: Path) -> None:
    a = _write(tmp_path / "a", {FIRST: ("passed", ["t::one"], [])})
    b = _write(tmp_path / "b", {FIRST: ("unverified", ["t::one"], ["the page would not load"])})
    merged = _merged(a, b)
    assert _statuses(merged) == {FIRST: "passed"}
    assert merged["verdict"].startswith(f"shards disagree on {FIRST} (a passed, b unverified)")
    assert merged["verdict"] != "conforms"


def test_other_software_versions_are_shown_per_shard(tmp_path: Path) -> None:
    a = _write(tmp_path / "a", {FIRST: ("passed", ["t::one"], [])}, versions={"chromium": "156"})
    b = _write(tmp_path / "b", {FIRST: NOT_RUN}, versions={"chromium": "157"})
    merged = _merged(a, b)
    assert merged["versions"]["chromium"] == "156 (a); 157 (b)"
    assert any("different chromium versions" in note for note in merged["run"]["notes"])


def test_an_incomplete_shard_caps_the_merged_verdict(tmp_path: Path) -> None:
    a = _write(tmp_path / "a", {FIRST: ("passed", ["t::one"], [])}, incomplete=["the run was interrupted"])
    b = _write(tmp_path / "b", {FIRST: ("passed", ["t::one"], [])})
    merged = _merged(a, b)
    assert merged["verdict"] == "not fully checked"
    assert merged["run"]["incomplete"] == ["a: the run was interrupted"]


@pytest.mark.parametrize(
    ("second", "named"),
    [
        ({"spec": "other.driver:factory"}, "other.driver:factory"),
        ({"versions": {"openai": "0.0.1"}}, "openai 0.0.1"),
    ],
)
def test_certificates_of_different_subjects_are_refused(tmp_path: Path, second: dict[str, Any], named: str) -> None:
    a = _write(tmp_path / "a", {FIRST: ("passed", ["t::one"], [])})
    b = _write(tmp_path / "b", {FIRST: ("passed", ["t::one"], [])}, **second)
    with pytest.raises(MergeError, match="different subjects") as raised:
        _merged(a, b)
    assert named in str(raised.value) and str(b) in str(raised.value)


# ----- the command and its bad input ---------------------------------------------------------------------------


def test_the_command_writes_both_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _write(tmp_path / "a", {FIRST: ("passed", ["t::one"], []), SECOND: NOT_RUN})
    b = _write(tmp_path / "b", {FIRST: NOT_RUN, SECOND: ("failed", ["t::two"], ["no"])})
    assert main(["merge-certificates", str(tmp_path / "out"), str(a), str(b / "certificate.json")]) == 0
    written = dict(load_certificate(tmp_path / "out" / "certificate.json"))
    assert written["verdict"] == "does not conform"
    assert (tmp_path / "out" / "certificate.md").read_text().startswith("# Conformance certificate: does not conform")
    assert "verdict: does not conform" in capsys.readouterr().out


def _bad_json(path: Path) -> Path:
    path.mkdir()
    (path / "certificate.json").write_text('{"format": "driverkit.certificate", "clauses": [')
    return path


def _other_format(path: Path) -> Path:
    path.mkdir()
    (path / "certificate.json").write_text(json.dumps({"format": "junit", "clauses": []}))
    return path


def _unknown_status(path: Path) -> Path:
    _write(path, {FIRST: ("passed", ["t::one"], [])})
    data = dict(load_certificate(path / "certificate.json"))
    data["clauses"][0]["status"] = "great"
    (path / "certificate.json").write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda path: path, "no certificate there"),
        (_bad_json, "not JSON"),
        (_other_format, "not a driverkit certificate"),
        (_unknown_status, '$.clauses[0].status: "great" is not one of'),
    ],
)
def test_bad_input_is_one_clear_error_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: Any, message: str
) -> None:
    good = _write(tmp_path / "good", {FIRST: ("passed", ["t::one"], [])})
    bad = make(tmp_path / "bad")
    assert main(["merge-certificates", str(tmp_path / "out"), str(good), str(bad)]) == 2
    error = capsys.readouterr().err
    assert message in error and "bad" in error and error.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_the_same_certificate_twice_or_into_its_own_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _write(tmp_path / "a", {FIRST: ("passed", ["t::one"], [])})
    b = _write(tmp_path / "b", {FIRST: ("passed", ["t::one"], [])})
    assert main(["merge-certificates", str(tmp_path / "out"), str(a), str(a / "certificate.json")]) == 2
    assert "given twice" in capsys.readouterr().err
    before = (a / "certificate.json").read_text()
    assert main(["merge-certificates", str(a), str(a), str(b)]) == 2
    assert "holds an input certificate" in capsys.readouterr().err
    assert (a / "certificate.json").read_text() == before


# ----- real shards -----------------------------------------------------------------------------------------------

SLICES = ("check_tabs", "check_navigation")


def _certify(out: Path, selection: str) -> dict[str, Any]:
    command = [sys.executable, "-m", "conformance.cli", "certify", "--driver", DRIVER, "--out", str(out)]
    subprocess.run([*command, "--", "-q", "-k", selection], check=False, capture_output=True, timeout=600)
    data: dict[str, Any] = dict(load_certificate(out / "certificate.json"))
    return data


@pytest.fixture(scope="module")
def real_shards(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Path], dict[str, Any]]:
    root = tmp_path_factory.mktemp("shards")
    shards = []
    for index, selection in enumerate(SLICES):
        _certify(root / f"shard-{index}", selection)
        shards.append(root / f"shard-{index}")
    whole = _certify(root / "together", " or ".join(SLICES))
    return shards, whole


def test_real_shards_merge_into_what_one_run_of_both_certifies(
    real_shards: tuple[list[Path], dict[str, Any]], tmp_path: Path
) -> None:
    shards, whole = real_shards
    halves = [dict(load_certificate(shard / "certificate.json")) for shard in shards]
    ran = [{clause["id"] for clause in half["clauses"] if clause["status"] == "passed"} for half in halves]
    assert ran[0] and ran[1] and ran[0] != ran[1], "the slices should each certify something of their own"
    assert main(["merge-certificates", str(tmp_path / "merged"), *map(str, shards)]) == 0
    merged = dict(load_certificate(tmp_path / "merged" / "certificate.json"))
    assert _statuses(merged) == _statuses(whole)
    assert merged["verdict"] == whole["verdict"]
    assert merged["summary"] == whole["summary"]
    assert not merged["verdict"].startswith("shards disagree")
