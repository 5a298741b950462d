"""Certify variants in child runs and judge each one killed or survived.

Every child run works in a fresh temporary folder holding a copy of the ``reference`` package (with the variant's
edit applied, for a source variant) and starts there, so ``python -m pytest`` puts that folder first on
``sys.path`` and the copy shadows the checkout's ``reference`` (the kit itself comes from the editable install,
and the checkout is on ``PYTHONPATH`` for ``tools`` and ``tests``). The command is the one the kit's own tests use
for a child certification (tests/broken/certification.py), plus ``-x``: only kill or survive matters, so a run
stops at its first failing check, whose clauses the certificate still records as failed.

A variant is *killed* when its certificate's verdict is not "conforms" or a clause failed, when the run wrote no
certificate, or when it ran past its timeout (the whole process group is interrupted, then killed). A source
variant whose module does not import is *incompetent* and not certified.

The *control* comes first: the unmutated copy, certified with the probe wrapper (tools.mutate.wrapped) and the
line tracer (tools.mutate.tracing), so one run proves the set-up conforms and records which source lines and
behavioural variants the certification exercises. A control that does not conform stops the tool.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from conformance.certificate_format import load as load_certificate
from conformance.session import DESELECTED
from tests.broken.certification import Certification
from tools.mutate import source_ops, tracing, wrapped
from tools.mutate.model import Target, Variant

REPOSITORY: Final = Path(__file__).resolve().parents[2]
COMPUTER_FACTORY: Final = "reference.computer:sync_factory"
BROWSER_FACTORY: Final = "reference.browser:sync_factory"
# How long an interrupted run gets to close its browser or desktop before its process group is killed.
_INTERRUPT_GRACE_S: Final = 30.0
_IMPORT_TIMEOUT_S: Final = 120.0

Status = Literal["killed", "survived", "incompetent", "error"]


class ControlFailed(RuntimeError):
    """The unmutated reference did not conform in the tool's set-up: no kill could be trusted."""


@dataclass(frozen=True)
class Outcome:
    """What certifying one variant showed."""

    id: str
    status: Status
    reason: str
    failed_clauses: tuple[str, ...] = ()
    verdict: str | None = None
    seconds: float = 0.0
    log: str = field(default="", repr=False, compare=False)  # the child run's output, kept for a killed variant


@dataclass(frozen=True)
class Control:
    """The control run of one target: its verdict and what it exercised."""

    target: Target
    verdict: str | None
    seconds: float
    executed: dict[str, frozenset[int]] = field(default_factory=dict)  # file -> lines run
    exercised: frozenset[str] = frozenset()  # behavioural variant IDs that would have changed something

    def covers(self, variant: Variant) -> bool:
        """Whether the control ran the variant's changed code (source) or met a call it would change (wrapper)."""
        if variant.kind == "wrapper":
            return variant.id in self.exercised
        assert variant.edit is not None and variant.lines is not None
        lines = self.executed.get(variant.edit.path, frozenset())
        first, last = variant.lines
        return any(line in lines for line in range(first, last + 1))


@dataclass(frozen=True)
class ChildRun:
    returncode: int | None  # None: it ran past its timeout
    output: str
    seconds: float


def child_environment(extra: dict[str, str]) -> dict[str, str]:
    """The caller's environment without pytest's own variables (the child is a fresh run, as in
    tests/broken/certification.py), with the checkout on PYTHONPATH for ``tools`` and ``tests``."""
    environment = {name: value for name, value in os.environ.items() if not name.startswith("PYTEST_")}
    paths = [str(REPOSITORY), *filter(None, environment.get("PYTHONPATH", "").split(os.pathsep))]
    environment["PYTHONPATH"] = os.pathsep.join(paths)
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    for name in (wrapped.VARIABLE, wrapped.PROBE_VARIABLE, tracing.VARIABLE):
        environment.pop(name, None)
    environment.update(extra)
    return environment


def snapshot(base: Path) -> Path:
    """A copy of the checkout's reference package, taken once per run: source variants were generated from it and
    every child run copies it, so an edit of the checkout's reference during the run (others work in the same
    checkout) can neither misplace an edit nor give variants different references."""
    origin = base / "snapshot"
    prepare_copy(origin, None, REPOSITORY)
    return origin


def prepare_copy(folder: Path, variant: Variant | None, origin: Path = REPOSITORY) -> None:
    """Copy ``origin``'s reference package into ``folder`` and apply a source variant's edit to the copy."""
    shutil.copytree(
        origin / "reference",
        folder / "reference",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "node_modules"),
    )
    if variant is not None and variant.edit is not None:
        path = folder / variant.edit.path
        path.write_bytes(variant.edit.apply(path.read_bytes()))


def certification_command(target: Target, driver: str, certificate: Path, options: Sequence[str] = ()) -> list[str]:
    option = "--driver" if target == "browser" else "--computer-driver"
    return [
        sys.executable,
        "-m",
        "pytest",
        f"{option}={driver}",
        f"--certificate={certificate}",
        "-p",
        "no:cacheprovider",
        "-q",
        "-n",
        "0",
        "--evidence=first-run",
        *options,
    ]


# The process groups of the child runs in progress: their own sessions do not get the terminal's Ctrl-C, so
# stop_all() ends them when the tool itself is stopped.
_LIVE: set[int] = set()
_LIVE_LOCK = threading.Lock()


def run_bounded(command: Sequence[str], cwd: Path, environment: dict[str, str], timeout: float) -> ChildRun:
    """Run ``command`` in its own process group; past ``timeout`` interrupt the group (pytest then closes its
    browser or desktop), and kill it if it has not ended after a grace period."""
    started = time.monotonic()
    process = subprocess.Popen(
        list(command),
        cwd=cwd,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    with _LIVE_LOCK:
        _LIVE.add(process.pid)
    try:
        output, _ = process.communicate(timeout=timeout)
        return ChildRun(process.returncode, output, time.monotonic() - started)
    except subprocess.TimeoutExpired:
        return ChildRun(None, _stop(process), time.monotonic() - started)
    finally:
        with _LIVE_LOCK:
            _LIVE.discard(process.pid)


def _stop(process: subprocess.Popen[str]) -> str:
    """Interrupt the child's process group (pytest then closes its browser or desktop), kill it after a grace
    period, and return what it printed."""
    _signal_group(process.pid, signal.SIGINT)
    try:
        output, _ = process.communicate(timeout=_INTERRUPT_GRACE_S)
    except subprocess.TimeoutExpired:
        _signal_group(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
    return output


def stop_all() -> None:
    """Interrupt every child run still in progress (each is a process group this tool started)."""
    with _LIVE_LOCK:
        groups = sorted(_LIVE)
    for group in groups:
        _signal_group(group, signal.SIGINT)


def _signal_group(group: int, signal_number: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal_number)


def _read_certificate(folder: Path) -> dict[str, Any] | None:
    path = folder / "certificate.json"
    return dict(load_certificate(path)) if path.exists() else None


def only_deselected_clauses_unchecked(certificate: dict[str, Any]) -> bool:
    """Whether everything that keeps ``certificate`` from "conforms" is clauses no selected check covers: a run
    restricted to some checks (``--checks``) conforms on them."""
    if (certificate.get("run") or {}).get("incomplete"):
        return False
    statuses = {str(clause["status"]) for clause in certificate["clauses"]}
    unchecked = [clause for clause in certificate["clauses"] if clause["status"] == "not_checked"]
    deselected = all(clause.get("reasons") == [DESELECTED] for clause in unchecked)
    return deselected and statuses <= {"passed", "not_implemented", "not_checked"} and "passed" in statuses


def judge(
    variant_id: str, run: ChildRun, certificate: dict[str, Any] | None, timeout: float, selected: bool = False
) -> Outcome:
    """Killed or survived, with the first failed clause (or whatever else ended the run) as the reason.

    ``selected``: the run had only some checks (``--checks``), so clauses none of them covers are no kill."""
    seconds = round(run.seconds, 1)
    log = run.output
    if run.returncode is None:
        reason = f"timeout: still running after {timeout:.0f} s"
        return Outcome(variant_id, "killed", reason, seconds=seconds, log=log)
    certification = Certification(certificate, run.output, run.returncode)
    if certificate is None:
        reason = f"no certificate (exit {run.returncode}): {_last_words(run.output)}"
        return Outcome(variant_id, "killed", reason[:300], seconds=seconds, log=log)
    verdict = str(certificate.get("verdict"))
    failed = tuple(certification.with_status("failed"))
    if failed:
        first = next(clause for clause in certificate["clauses"] if clause["id"] == failed[0])
        reason = f"{failed[0]}: {'; '.join(first.get('reasons') or [])}"
        return Outcome(variant_id, "killed", reason[:300], failed, verdict, seconds, log)
    if selected and verdict == "not fully checked" and only_deselected_clauses_unchecked(certificate):
        return Outcome(variant_id, "survived", "conforms on the selected checks", (), verdict, seconds)
    if verdict != "conforms":
        details = list((certificate.get("run") or {}).get("incomplete") or [])
        unverified = certification.with_status("unverified")
        if unverified:
            details.append(f"unverified: {', '.join(unverified)}")
        details.append(_last_words(run.output))
        return Outcome(variant_id, "killed", f"{verdict}: {'; '.join(details)}"[:300], (), verdict, seconds, log)
    return Outcome(variant_id, "survived", "conforms", (), verdict, seconds)


def _last_words(output: str) -> str:
    """What a run that failed without blaming a clause said: pytest's first FAILED/ERROR summary line, else its
    last non-empty line."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    summary = next((line for line in lines if line.startswith(("FAILED ", "ERROR "))), None)
    return (summary or (lines[-1] if lines else "no output"))[:200]


# What the child runs use from the checkout itself (not copied): a change there during a run means different
# variants may have met different checks, which the report says.
WATCHED: Final = ("conformance", "fixtures", "tests/broken", "tools/mutate")


def fingerprint(root: Path = REPOSITORY) -> dict[str, str]:
    """SHA-256 of every file under :data:`WATCHED` (caches excluded), by repository-relative path."""
    found: dict[str, str] = {}
    for entry in WATCHED:
        for path in sorted((root / entry).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                found[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(path for path in before.keys() | after.keys() if before.get(path) != after.get(path))


def _scratch(base: Path, label: str) -> Path:
    safe = "".join(character if character.isalnum() else "-" for character in label)[:80]
    return Path(tempfile.mkdtemp(prefix=f"{safe}-", dir=base))


def import_check(folder: Path, modules: Iterable[str]) -> str | None:
    """None when every module imports from the copy in ``folder``; else the error's last line."""
    statements = "; ".join(f"import {module}" for module in modules)
    probe = f"{statements}; import reference; print(reference.__file__)"
    completed = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=folder,
        env=child_environment({}),
        capture_output=True,
        text=True,
        timeout=_IMPORT_TIMEOUT_S,
        check=False,
    )
    if completed.returncode != 0:
        lines = completed.stderr.strip().splitlines() or ["(no output)"]
        return lines[-1][:300]
    if not completed.stdout.strip().startswith(str(folder.resolve())):
        # The copy must shadow the checkout, or every source variant would certify the unmutated reference.
        return f"the copy did not shadow the checkout: reference came from {completed.stdout.strip()}"
    return None


def run_control(
    target: Target, base: Path, timeout: float, origin: Path = REPOSITORY, checks: Sequence[str] = ()
) -> Control:
    """Certify the unmutated copy of ``target`` with the probe and the tracer; raise ControlFailed unless it
    conforms. ``checks`` are pytest options choosing the checks (``-k EXPR``), the same for every certification."""
    folder = _scratch(base, f"control-{target}")
    prepare_copy(folder, None, origin)
    modules = [source_ops.module_name(path) for path in source_ops.scope_files(target, origin)]
    problem = import_check(folder, modules)
    if problem is not None:
        raise ControlFailed(f"the unmutated {target} modules do not import from the copy in {folder}: {problem}")
    lines_file, probe_file = folder / "lines.json", folder / "exercised.txt"
    extra = {tracing.VARIABLE: str(lines_file)}
    if target == "browser":
        extra |= {wrapped.VARIABLE: wrapped.PROBE, wrapped.PROBE_VARIABLE: str(probe_file)}
    driver = wrapped.FACTORY if target == "browser" else COMPUTER_FACTORY
    certificate_folder = folder / "certificate"
    command = certification_command(target, driver, certificate_folder, ["-p", "tools.mutate.tracing", "-x", *checks])
    run = run_bounded(command, folder, child_environment(extra), timeout)
    certificate = _read_certificate(certificate_folder)
    outcome = judge(f"control:{target}", run, certificate, timeout, selected=bool(checks))
    if outcome.status != "survived":
        tail = "\n".join(run.output.splitlines()[-30:])
        raise ControlFailed(
            f"the unmutated reference ({target}) does not conform in the mutation set-up, so no kill could be "
            f"trusted: {outcome.reason}\n(kept in {folder})\n{tail}"
        )
    executed: dict[str, frozenset[int]] = {}
    if lines_file.exists():
        executed = {path: frozenset(lines) for path, lines in json.loads(lines_file.read_text("utf-8")).items()}
    exercised = frozenset(probe_file.read_text("utf-8").split()) if probe_file.exists() else frozenset()
    shutil.rmtree(folder, ignore_errors=True)
    return Control(target, outcome.verdict, round(run.seconds, 1), executed, exercised)


def certify_variant(
    variant: Variant,
    base: Path,
    timeout: float,
    keep: bool = False,
    origin: Path = REPOSITORY,
    checks: Sequence[str] = (),
) -> Outcome:
    """Certify one variant in its own copy; the copy is removed afterwards unless ``keep``."""
    folder = _scratch(base, variant.id)
    try:
        prepare_copy(folder, variant, origin)
        if variant.edit is not None:
            problem = import_check(folder, [source_ops.module_name(variant.edit.path)])
            if problem is not None:
                return Outcome(variant.id, "incompetent", f"does not import: {problem}")
        extra = {wrapped.VARIABLE: variant.id} if variant.kind == "wrapper" else {}
        if variant.kind == "wrapper":
            driver = wrapped.FACTORY
        else:
            driver = BROWSER_FACTORY if variant.target == "browser" else COMPUTER_FACTORY
        certificate_folder = folder / "certificate"
        command = certification_command(variant.target, driver, certificate_folder, ["-x", *checks])
        run = run_bounded(command, folder, child_environment(extra), timeout)
        try:
            certificate = _read_certificate(certificate_folder)
        except Exception as error:  # a certificate the kit's own format rejects: the tool's problem, not a kill
            return Outcome(variant.id, "error", f"unreadable certificate: {error}"[:300])
        return judge(variant.id, run, certificate, timeout, selected=bool(checks))
    except Exception as error:
        return Outcome(variant.id, "error", f"{type(error).__name__}: {error}"[:300])
    finally:
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)


def certify_all(
    variants: Sequence[Variant],
    base: Path,
    *,
    jobs: int,
    timeout: float,
    keep: bool = False,
    origin: Path = REPOSITORY,
    checks: Sequence[str] = (),
    progress: Callable[[int, int, Variant, Outcome], None] | None = None,
) -> list[Outcome]:
    """Certify ``variants`` with ``jobs`` child runs at a time; outcomes come back in the variants' order."""
    outcomes: list[Outcome | None] = [None] * len(variants)
    finished: list[int] = []
    lock = threading.Lock()

    def one(index: int) -> None:
        outcome = certify_variant(variants[index], base, timeout, keep, origin, checks)
        with lock:
            outcomes[index] = outcome
            finished.append(index)
            if progress is not None:
                progress(len(finished), len(variants), variants[index], outcome)

    run_parallel([functools.partial(one, index) for index in range(len(variants))], jobs)
    return [outcome for outcome in outcomes if outcome is not None]


def run_parallel(tasks: Sequence[Callable[[], Any]], jobs: int) -> list[Any]:
    """Run ``tasks`` ``jobs`` at a time and return their results in order. When the tool is stopped (Ctrl-C) or a
    task fails, the tasks not started are dropped and the child runs in progress interrupted, rather than
    waited for."""
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    futures = [pool.submit(task) for task in tasks]
    try:
        return [future.result() for future in futures]
    except BaseException:
        for future in futures:
            future.cancel()
        stop_all()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
