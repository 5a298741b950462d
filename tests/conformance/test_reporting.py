"""From a run's results to certificate files (conformance.reporting), tested directly with a real pytest config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance import reporting
from conformance.session import CertificationSession, CheckResult


@pytest.fixture
def browser_config(pytester: pytest.Pytester) -> pytest.Config:
    # Any importable callable names the driver: configuring loads the factory but never calls it.
    return pytester.parseconfigure("--driver=json:loads", "-p", "no:cacheprovider")


def test_a_browser_run_reports_every_browser_clause_even_unchecked(browser_config: pytest.Config) -> None:
    run = CertificationSession()
    run.add(CheckResult("c::one", ("BR-STATE-001",), "passed"))
    results = reporting.clause_results(run, browser_config)
    assert {result.clause.part for result in results} == {"BR"}
    statuses = {result.clause.id: result.status for result in results}
    assert statuses["BR-STATE-001"] == "passed"
    assert set(statuses.values()) == {"passed", "not_checked"}


def test_the_certificate_names_the_driver_and_the_software_it_runs_on(
    browser_config: pytest.Config, tmp_path: Path
) -> None:
    run = CertificationSession()
    software = {"driver class": "somepkg.Driver", "browser": "webkit 1.0"}
    run.add(CheckResult("c::one", ("BR-STATE-001",), "passed", profile={"flavour": "sync", "software": software}))
    json_path, markdown_path, _ = reporting.write_certificate(browser_config, run, tmp_path, notes=["a note"])
    written = json.loads(json_path.read_text(encoding="utf-8"))
    assert written["subjects"][0]["spec"] == "json:loads"
    # The environment of the driver under test, nothing the kit's own reference browser would stamp.
    assert written["versions"]["browser"] == "webkit 1.0"
    assert written["versions"]["driver class"] == "somepkg.Driver"
    assert "a note" in markdown_path.read_text(encoding="utf-8")


def test_a_certificate_without_software_claims_no_browser(browser_config: pytest.Config, tmp_path: Path) -> None:
    run = CertificationSession()
    run.add(CheckResult("c::one", ("BR-STATE-001",), "passed", profile={"flavour": "sync"}))
    json_path, *_ = reporting.write_certificate(browser_config, run, tmp_path)
    assert "browser" not in json.loads(json_path.read_text(encoding="utf-8"))["versions"]


def test_an_unwritable_folder_is_named_before_any_check_runs(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    assert reporting.unwritable(tmp_path / "fine") is None
    problem = reporting.unwritable(blocker / "certificate")
    assert problem is not None and problem.startswith("cannot write a certificate there")


def test_a_note_is_listed_once_though_every_report_of_its_check_carries_it(browser_config: pytest.Config) -> None:
    from conformance.certification_plugin import _RECORDER_NAME
    from conformance.harness.fixtures import NOTE_PROPERTY

    recorder = browser_config.pluginmanager.get_plugin(_RECORDER_NAME)
    note = "c::one: the page barrier did not hold within 3 s"
    # A note a fixture adds to its item rides on that item's setup, call and teardown reports alike.
    for when in ("setup", "call", "teardown"):
        report = pytest.TestReport(
            "c::one", ("c", 1, "one"), {}, "passed", None, when, user_properties=[(NOTE_PROPERTY, note)]
        )
        recorder.pytest_runtest_logreport(report)
    assert recorder.notes == [note]
