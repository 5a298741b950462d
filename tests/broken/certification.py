"""Run the browser contract suite on a driver factory in a child pytest and read back its certificate.

The kit's own tests certify drivers the way a driver author would: ``python -m pytest --driver=... --certificate=...``
in a separate process, so the harness, the plugin and the certificate are all exercised for real and the outer
test session never shares a fixture server, event loop or browser with the run it inspects.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.certificate_format import load as load_certificate

REPOSITORY = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Certification:
    """What one child run produced: its certificate (None when it wrote none) and its console output."""

    certificate: dict[str, Any] | None
    output: str
    returncode: int

    def statuses(self) -> dict[str, str]:
        return {clause["id"]: clause["status"] for clause in (self.certificate or {}).get("clauses", [])}

    def with_status(self, status: str) -> list[str]:
        return sorted(clause_id for clause_id, found in self.statuses().items() if found == status)

    def reasons(self, clause_ids: Sequence[str]) -> str:
        """The certificate's reasons for ``clause_ids``, one line each, to make a failing assertion readable."""
        by_id = {clause["id"]: clause for clause in (self.certificate or {}).get("clauses", [])}
        return "\n".join(
            f"  {clause_id} ({by_id[clause_id]['status']}): {'; '.join(by_id[clause_id]['reasons'])[:300]}"
            for clause_id in clause_ids
            if clause_id in by_id
        )

    def profile(self) -> dict[str, Any]:
        subjects = (self.certificate or {}).get("subjects", [])
        return dict(subjects[0].get("profile") or {}) if subjects else {}

    def tail(self, lines: int = 40) -> str:
        return "\n".join(self.output.splitlines()[-lines:])

    def expect_conforms(self, subject: str) -> None:
        """Assert a clean "conforms": no clause failed, every clause a check covers was reached, the run passed.

        A clause no check reached although checks cover it means a check stopped early: not proof of conformance.
        (A clause no check declares, such as the harness's BR-SDK-001, can only ever be failed or not checked.)
        """
        assert self.certificate is not None, f"the run wrote no certificate:\n{self.tail()}"
        failed = self.with_status("failed")
        assert not failed, f"{subject} fails clauses:\n{self.reasons(failed)}"
        unreached = [
            clause["id"]
            for clause in self.certificate["clauses"]
            if clause["status"] == "not_checked" and clause["checks"]
        ]
        assert not unreached, f"checks covering these clauses stopped before reaching them:\n{self.reasons(unreached)}"
        assert self.certificate["verdict"] == "conforms", self.certificate["verdict"]
        assert self.returncode == 0, f"the certification run itself did not pass:\n{self.tail()}"


@dataclass(frozen=True)
class SequenceCase:
    """A driver with a defect only a sequence shows, and the one clause exploration must fail on it."""

    factory: str
    clause: str


@dataclass(frozen=True)
class ExplorationFinding:
    """What a certificate says exploration found: the clause, its reason, the numbered steps, the seed, and the
    members (or actions) the evidence's replay called."""

    clause: str
    reason: str
    steps: list[str]
    seed: int
    called: list[str]


def exploration_finding(run: Certification, exploration_check: str) -> ExplorationFinding:
    """The one failed clause of ``run``, read as an exploration finding of the check named ``exploration_check``:
    a reason with the shrunk, numbered steps and the seed that replays them."""
    assert run.certificate is not None, f"the run wrote no certificate:\n{run.tail()}"
    failed = run.with_status("failed")
    assert len(failed) == 1, f"exploration should fail one clause, failed: {failed}\n{run.reasons(failed)}"
    reason = next(found for found in run.certificate["clauses"] if found["id"] == failed[0])["reasons"][0]
    shrunk = re.match(r"a sequence of (\d+) steps? \(shrunk\): (.*?) -- ", reason)
    seed = re.search(r"replay with --explore-seed=(\d+)$", reason)
    assert shrunk and seed, f"the reason lacks the numbered steps or the seed: {reason}"
    steps = re.split(r" (?=\d+\. )", shrunk.group(2))
    assert len(steps) == int(shrunk.group(1)), reason
    assert all(step.startswith(f"{number}. ") for number, step in enumerate(steps, 1)), reason
    evidence = next(found for check, found in run.certificate["evidence"].items() if check.endswith(exploration_check))
    return ExplorationFinding(
        failed[0], reason, steps, int(seed.group(1)), [call["member"] for call in evidence["calls"]]
    )


def certify(
    driver: str,
    directory: Path,
    *,
    selection: str | None = None,
    timeout: float = 600.0,
    options: Sequence[str] = (),
    cli: bool = False,
    evidence: str | None = "first-run",
    option: str = "--driver",
) -> Certification:
    """Certify ``driver`` (``module:factory``) with the bundled browser checks, optionally only those ``-k`` picks.

    ``options`` are more pytest options for the child run (``--driver-timeout=3``, say). ``cli`` runs
    ``driverkit certify`` (the README's main job) instead of ``python -m pytest --driver=...``. ``evidence`` is the
    ``--evidence`` mode, ``first-run`` unless a test is about the evidence rerun (None: the kit's default): these
    tests judge verdicts, and the rerun of each failing check would add about a check's time to every child run.
    ``option`` is ``--computer-driver`` for a computer driver."""
    if cli:
        # The console script the install put beside this interpreter, as a reader runs it.
        script = Path(sys.executable).with_name("driverkit")
        if not script.is_file():
            raise FileNotFoundError(f"no driverkit script beside {sys.executable}: install the kit (scripts/setup.sh)")
        command = [str(script), "certify", option, driver, "--out", str(directory), "--", "-q"]
    else:
        command = [
            sys.executable,
            "-m",
            "pytest",
            f"{option}={driver}",
            f"--certificate={directory}",
            "-p",
            "no:cacheprovider",
            "-q",
        ]
    if selection:
        command += ["-k", selection]
    if evidence is not None:
        command.append(f"--evidence={evidence}")
    if not cli and "-n" not in options:
        # The checks in this process, as -n 0 runs them: a serial certification otherwise runs them in one worker
        # of its own (a driver's death cannot end the run), which costs each of the suite's hundred child runs a
        # second process and a second probe of the driver. Tests of that isolation pass their own -n, and the
        # README's main job (cli=True) runs as a reader runs it.
        command += ["-n", "0"]
    command += list(options)  # after --evidence, so a test's own --evidence wins
    completed = run_child(command, cwd=REPOSITORY, timeout=timeout)
    certificate_path = directory / "certificate.json"
    # Every certificate the kit's own tests produce is checked against the shipped format on the way.
    certificate = dict(load_certificate(certificate_path)) if certificate_path.exists() else None
    return Certification(certificate, completed.stdout + completed.stderr, completed.returncode)


def run_child(command: Sequence[str], *, cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    """Run ``command`` (a child pytest or ``driverkit``) in ``cwd`` and capture its output as text.

    The outer run's pytest variables (xdist worker IDs, PYTEST_ADDOPTS, the current test) must not leak into the
    child: it is a fresh, ordinary run.
    """
    environment = {name: value for name, value in os.environ.items() if not name.startswith("PYTEST_")}
    return subprocess.run(
        list(command), cwd=cwd, env=environment, capture_output=True, text=True, timeout=timeout, check=False
    )
