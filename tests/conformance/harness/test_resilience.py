"""Nothing hangs and nothing is lost: the kit certifies misbehaving drivers in a child pytest and always ends.

Every case runs ``python -m pytest --driver=tests.broken.harness_drivers:<factory>`` in a fresh directory (its own
empty ini, so the cache provider works for ``--lf``) with small deadlines, and asserts on the certificate the
run left: that it exists, its verdict, its statuses and its notes. The child's own deadline options bound each
run; the outer ``subprocess`` timeout only guards against a regression that would hang the suite.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conformance.harness.errors import bounded, describe_error
from tests.broken.harness_drivers import HUGE
from tests.host_processes import pids_matching

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser, pytest.mark.desktop, pytest.mark.container, pytest.mark.child_run]

REPOSITORY = Path(__file__).resolve().parents[3]
DRIVERS = "tests.broken.harness_drivers"
# Guards the outer suite only; every run is bounded by the deadlines it passes the kit.
GUARD_SECONDS = float(os.environ.get("DRIVERKIT_TEST_GUARD", "300"))


@dataclass
class Run:
    returncode: int
    output: str
    directory: Path

    @property
    def certificate(self) -> dict[str, Any]:
        path = self.directory / "certificate.json"
        assert path.exists(), f"no certificate was written; the run said:\n{self.tail()}"
        loaded: dict[str, Any] = json.loads(path.read_text("utf-8"))
        return loaded

    def clause(self, clause_id: str) -> dict[str, Any]:
        found: dict[str, Any] = next(c for c in self.certificate["clauses"] if c["id"] == clause_id)
        return found

    def statuses(self, status: str) -> list[str]:
        return [clause["id"] for clause in self.certificate["clauses"] if clause["status"] == status]

    def checked_by(self, check: str, status: str) -> list[str]:
        """Clauses with ``status`` that the check named ``check`` covered."""
        return [
            clause["id"]
            for clause in self.certificate["clauses"]
            if clause["status"] == status and any(check in nodeid for nodeid in clause["checks"])
        ]

    def tail(self, lines: int = 30) -> str:
        return "\n".join(self.output.splitlines()[-lines:])


def _command(factory: str, directory: Path, *options: str, option: str = "--driver") -> list[str]:
    """The child's command line: certify ``factory`` with ``option`` (``--driver`` or ``--computer-driver``)."""
    name = factory if ":" in factory else f"{DRIVERS}:{factory}"
    certificate = f"--certificate={directory / 'certificate'}"
    return [sys.executable, "-m", "pytest", f"{option}={name}", certificate, "-q", *options]


def _environment(**extra: str) -> dict[str, str]:
    environment = {name: value for name, value in os.environ.items() if not name.startswith("PYTEST_")}
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPOSITORY), environment.get("PYTHONPATH")]))
    return {**environment, **extra}


def certify(tmp_path: Path, factory: str, *options: str, computer: bool = False, **environment: str) -> Run:
    """Run the kit on ``factory`` in a child pytest in ``tmp_path`` and return what it left."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    command = _command(factory, tmp_path, *options, option="--computer-driver" if computer else "--driver")
    completed = subprocess.run(
        command,
        cwd=tmp_path,
        env=_environment(**environment),
        capture_output=True,
        text=True,
        timeout=GUARD_SECONDS,
        check=False,
    )
    return Run(completed.returncode, completed.stdout + completed.stderr, tmp_path / "certificate")


STATE_CHECK = "test_state_reports_the_page_shown"
CLICK_CHECK = "test_click_activates_exactly_the_referenced_control"


def test_a_factory_that_always_hangs_is_one_usage_error(tmp_path: Path) -> None:
    run = certify(tmp_path, "hanging_factory", "--factory-timeout=2", "-k", STATE_CHECK)
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.tail()
    assert "`the driver factory` did not return within 2 s" in run.output
    assert "INTERNALERROR" not in run.output


def test_a_factory_that_hangs_after_the_probe_leaves_its_checks_not_checked(tmp_path: Path) -> None:
    run = certify(tmp_path, "hanging_factory_after_probe", "--factory-timeout=2", "-k", STATE_CHECK)
    assert run.certificate["verdict"] == "not fully checked", run.tail()
    unchecked = run.checked_by(STATE_CHECK, "not_checked")
    assert unchecked, run.tail()
    assert not run.statuses("failed")
    assert "did not return within 2 s" in run.clause(unchecked[0])["reasons"][0]


def test_what_an_abandoned_factory_started_does_not_outlive_the_run(tmp_path: Path) -> None:
    # A shared machine kept 15 browsers of abandoned factories running for hours after their run had ended.
    marker = str(tmp_path / "abandoned-factory-process")
    run = certify(
        tmp_path,
        "hanging_factory_with_a_browser",
        "--factory-timeout=2",
        "-k",
        STATE_CHECK,
        DRIVERKIT_TEST_MARKER=marker,
    )
    assert run.checked_by(STATE_CHECK, "not_checked"), run.tail()
    assert not pids_matching(marker), f"still running after the run ended: {pids_matching(marker)}"
    notes = run.certificate["run"]["notes"]
    assert any("stopped processes still running under the kit when the run ended (python" in note for note in notes), (
        notes
    )


@pytest.mark.parametrize("factory", ["hanging_click", "async_hanging_click"])
def test_a_hanging_member_fails_its_check_and_the_run_goes_on(tmp_path: Path, factory: str) -> None:
    run = certify(tmp_path, factory, "--driver-timeout=5", "-p", "no:randomly", "-k", f"{CLICK_CHECK} or {STATE_CHECK}")
    assert run.certificate["verdict"] == "does not conform", run.tail()
    assert run.clause("BR-ACT-002")["status"] == "failed"
    assert run.clause("BR-ACT-002")["reasons"] == ["`click` did not return within 5 s; the driver was torn down"]
    # The check after the hang got a fresh driver and passed.
    assert run.checked_by(STATE_CHECK, "passed"), run.tail()


def test_a_hanging_cleanup_is_a_note_and_the_checks_stand(tmp_path: Path) -> None:
    run = certify(tmp_path, "hanging_cleanup_after_probe", "--driver-timeout=5", "-k", STATE_CHECK)
    assert run.checked_by(STATE_CHECK, "passed"), run.tail()
    notes = run.certificate["run"]["notes"]
    assert any("`the driver's cleanup` did not return within 5 s" in note for note in notes)
    # Each note once: a check's note rides on its setup, call and teardown reports alike.
    assert len(notes) == len(set(notes)), notes


def test_tasks_left_on_the_loop_are_named_after_the_certificate_is_written(tmp_path: Path) -> None:
    run = certify(tmp_path, "leftover_task", "-k", STATE_CHECK)
    assert run.checked_by(STATE_CHECK, "passed"), run.tail()
    assert any("stubborn-heartbeat" in note for note in run.certificate["run"]["notes"]), run.certificate["run"]


@pytest.mark.parametrize("factory", ["raising_generator", "raising_context_manager"])
def test_a_factory_that_raises_in_any_form_is_one_usage_error(tmp_path: Path, factory: str) -> None:
    run = certify(tmp_path, factory, "-k", STATE_CHECK)
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.tail()
    assert f"--driver={DRIVERS}:{factory}: the driver factory raised RuntimeError: no browser today" in run.output
    assert "INTERNALERROR" not in run.output
    assert "Traceback" not in run.output


def test_an_unwritable_certificate_folder_is_a_usage_error_before_any_check(tmp_path: Path) -> None:
    # The certificate folder's path is taken by a file: nothing can be written there.
    (tmp_path / "certificate").write_text("not a folder", encoding="utf-8")
    run = certify(tmp_path, "state_only", "-k", STATE_CHECK)
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.tail()
    assert f"--certificate={tmp_path / 'certificate'}: cannot write a certificate there" in run.output
    assert "passed" not in run.output and "failed" not in run.output


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_mid_check_still_leaves_a_certificate(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    marker = tmp_path / "click-started"
    child = subprocess.Popen(
        _command("hanging_click", tmp_path, "--driver-timeout=300", "-p", "no:randomly", "-k", f"{CLICK_CHECK}"),
        cwd=tmp_path,
        env=_environment(DRIVERKIT_TEST_MARKER=str(marker)),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        # A pytest-xdist worker (the test command runs this test in one) ignores SIGINT, and a child inherits
        # that: Python would then never raise KeyboardInterrupt and the run would sit in the hanging click.
        preexec_fn=_default_sigint,
    )
    try:
        # Wait until the driver is inside the hanging click, then interrupt as a user pressing Ctrl-C would: a
        # terminal sends SIGINT to its whole foreground process group, the run's pytest-xdist worker included.
        while not marker.exists() and child.poll() is None:
            time.sleep(0.1)
        os.killpg(child.pid, signal.SIGINT)
        output, _ = child.communicate(timeout=GUARD_SECONDS)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
    run = Run(child.returncode, output, tmp_path / "certificate")
    assert marker.exists(), run.tail()
    assert run.certificate["verdict"] == "not fully checked", run.tail()
    assert any("KeyboardInterrupt" in line for line in run.certificate["run"]["incomplete"])
    assert not run.statuses("failed")


# Serial too: a serial certification runs its checks in one worker, so the driver's death cannot take it down.
@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "two-workers"])
def test_a_crashed_worker_leaves_a_certificate_that_says_so(tmp_path: Path, workers: tuple[str, ...]) -> None:
    run = certify(
        tmp_path, "crashing_scroll", *workers, "-k", "test_scroll_moves_the_page_in_each_direction or " + STATE_CHECK
    )
    assert run.certificate["verdict"] == "not fully checked", run.tail()
    incomplete = run.certificate["run"]["incomplete"]
    assert any("crashed while running" in line and "test_scroll_moves" in line for line in incomplete), incomplete
    assert "INTERNALERROR" not in run.output


def test_huge_driver_output_is_shown_by_its_prefix_and_size(tmp_path: Path) -> None:
    run = certify(tmp_path, "huge_output", "--driver-timeout=30", "-k", f"{CLICK_CHECK} or {STATE_CHECK}")
    assert run.certificate["verdict"] == "does not conform", run.tail()
    for name in ("certificate.json", "certificate.md"):
        assert (run.directory / name).stat().st_size < 200_000, name
    assert len(run.output) < 1_000_000
    reasons = [reason for clause in run.certificate["clauses"] for reason in clause["reasons"]]
    assert any("RuntimeError: EEEE" in reason for reason in reasons), "the exception's class and message are kept"
    assert all(len(reason) < 1000 for reason in reasons)


def test_bounded_text_keeps_a_prefix_and_says_the_size() -> None:
    assert bounded("short") == "short"
    assert bounded("E" * HUGE, 10) == f"EEEEEEEEEE... [{HUGE:,} characters in all]"
    assert describe_error(RuntimeError("E" * HUGE), 20) == f"RuntimeError: EEEEEE... [{HUGE + 14:,} characters in all]"
    assert describe_error(RuntimeError()) == "RuntimeError"


SELECTION = f"{CLICK_CHECK} or {STATE_CHECK}"


@pytest.mark.parametrize(
    "options",
    [
        pytest.param(("-x",), id="x"),
        pytest.param(("--maxfail=1",), id="maxfail"),
        pytest.param(("-x", "-n", "2"), id="x-n2"),
        pytest.param(("-p", "no:randomly"), id="no-randomly"),
    ],
)
def test_run_options_give_a_certificate_with_a_correct_verdict(tmp_path: Path, options: tuple[str, ...]) -> None:
    run = certify(tmp_path, "broken_click", *options, "-k", SELECTION)
    assert "INTERNALERROR" not in run.output, run.tail()
    assert run.certificate["verdict"] == "does not conform", run.tail()
    assert run.clause("BR-ACT-002")["status"] == "failed"
    assert "RuntimeError: click is broken on purpose" in " ".join(run.clause("BR-ACT-002")["reasons"])
    if "-x" in options or "--maxfail=1" in options:
        assert any("stopped early" in line for line in run.certificate["run"]["incomplete"])


def test_last_failed_reruns_give_a_certificate_with_a_correct_verdict(tmp_path: Path) -> None:
    first = certify(tmp_path, "broken_click", "-k", SELECTION)
    assert first.clause("BR-ACT-002")["status"] == "failed", first.tail()
    again = certify(tmp_path, "broken_click", "--lf", "-k", SELECTION)
    assert "INTERNALERROR" not in again.output, again.tail()
    assert again.certificate["verdict"] == "does not conform"
    assert again.clause("BR-ACT-002")["status"] == "failed"
    # Only the failed check ran again: what the state check covers is not checked this time.
    assert again.checked_by(STATE_CHECK, "passed") == []


def test_a_desktop_that_cannot_start_leaves_every_computer_clause_not_checked(tmp_path: Path) -> None:
    # No Docker engine answers here, so the desktop container cannot start: the machine's failure.
    engine = f"unix://{tmp_path / 'no-engine.sock'}"
    run = certify(tmp_path, "reference.computer:sync_factory", "--desktop=docker", computer=True, DOCKER_HOST=engine)
    assert run.certificate["verdict"] == "not fully checked", run.tail()
    assert run.certificate["summary"]["failed"] == 0
    assert run.statuses("not_checked") == [clause["id"] for clause in run.certificate["clauses"]]
    assert "desktop did not start" in run.certificate["clauses"][0]["reasons"][0]


def test_a_driver_that_kills_its_browser_leaves_the_rest_not_checked(tmp_path: Path) -> None:
    run = certify(
        tmp_path,
        "browser_killer",
        "-p",
        "no:randomly",
        "-k",
        f"test_scroll_moves_the_page_in_each_direction or {STATE_CHECK}",
    )
    assert run.certificate["verdict"] == "does not conform", run.tail()
    unchecked = run.checked_by(STATE_CHECK, "not_checked")
    assert unchecked, run.tail()
    reason = run.clause(unchecked[0])["reasons"][0]
    assert "the driver factory raised" in reason and "it worked when the run started" in reason, reason


COMPUTER_CHECKS = "test_click_lands_once_at_the_point or test_wait_pauses_without_input"


# A serial computer certification runs its checks in a worker too: a driver that ends its process mid-check leaves
# the same certificate as under -n 2, not exit code 7 and nothing.
@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "two-workers"])
def test_a_computer_driver_that_ends_its_process_leaves_a_certificate(tmp_path: Path, workers: tuple[str, ...]) -> None:
    run = certify(tmp_path, "crashing_computer_click", *workers, "-k", COMPUTER_CHECKS, computer=True)
    assert run.certificate["verdict"] == "not fully checked", run.tail()
    incomplete = run.certificate["run"]["incomplete"]
    assert any("crashed while running" in line and "test_click_lands" in line for line in incomplete), incomplete
    assert run.checked_by("test_wait_pauses_without_input", "passed"), run.tail()
    assert "INTERNALERROR" not in run.output


# Serial, the checks run in a worker, which stops the run through xdist; -n 0 keeps them in this process.
@pytest.mark.parametrize("workers", [(), ("-n", "0")], ids=["serial", "in-process"])
def test_a_computer_factory_that_never_works_is_one_usage_error(tmp_path: Path, workers: tuple[str, ...]) -> None:
    run = certify(tmp_path, "raising_computer_factory", *workers, "-k", COMPUTER_CHECKS, computer=True)
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.tail()
    assert "the driver factory raised RuntimeError: no desktop driver today" in run.output
    assert "INTERNALERROR" not in run.output
    assert run.certificate["verdict"] == "not fully checked"
    assert any("the run was stopped" in line for line in run.certificate["run"]["incomplete"])
    assert run.certificate["summary"]["failed"] == 0


def test_a_guard_that_holds_requests_between_calls_is_named_and_waited_for_once(tmp_path: Path) -> None:
    # A sync Playwright route handler runs only inside a Playwright call: the start page loads, and its reports
    # arrive only when the driver is called again. Fair to fail, but for what the kit saw, and with one long wait.
    run = certify(tmp_path, "stalling_guard", "-n", "0", "-k", "check_state")
    assert run.certificate["verdict"] == "does not conform", run.tail()
    assert run.statuses("failed") == ["BR-STATE-005"], run.tail()
    reason = run.clause("BR-STATE-005")["reasons"][0]
    assert "reached the kit only while the driver was inside a later call" in reason, reason
    assert run.certificate["fix_first"][0]["clause"] == "BR-STATE-005"
