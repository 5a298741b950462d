"""Turning a run's check results into the certificate files and the terminal summary.

The summary's reasons, notes and paths are a driver's text or carry it: each goes through
conformance._safe_text.for_terminal, so the terminal shows an escape sequence instead of obeying it.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

import pytest

from conformance import certificate
from conformance._safe_text import for_terminal
from conformance.clauses import registry
from conformance.harness.fixture_host import LOOPBACK, FixtureHost
from conformance.session import CertificationSession, ClauseResult, fix_first

WRITTEN_KEY = pytest.StashKey[tuple[Path, Path, Path]]()
_PART_NAMES = {
    "BR": "browser driver",
    "CO": "computer driver",
    "TS": "SDK toolsets",
    "RN": "SDK runners",
    "EX": "execution service",
}


def clause_results(
    run: CertificationSession, config: pytest.Config | None = None, *, complete: bool = True
) -> list[ClauseResult]:
    """Every clause of the parts this run checked (or set out to check), with its status; ``complete`` is False
    when the run ended before every selected check ran."""
    prefixes = run.prefixes()
    if config is not None and config.getoption("--driver", None):
        prefixes.add("BR")
    if config is not None and _has_option(config, "--computer-driver") and config.getoption("--computer-driver"):
        prefixes.add("CO")
    if config is not None and _has_option(config, "--execution-service") and config.getoption("--execution-service"):
        prefixes.add("EX")
    return run.clause_results(registry().with_prefix(*sorted(prefixes)), complete=complete)


def subjects(
    config: pytest.Config, run: CertificationSession, computer_software: Mapping[str, str] | None = None
) -> list[certificate.CertifiedSubject]:
    found = []
    driver = config.getoption("--driver", None)
    if driver:
        # Where the browser loaded the fixture pages from is part of what was certified (see --fixture-host).
        host = config.getoption("--fixture-host", None) if _has_option(config, "--fixture-host") else None
        served = FixtureHost.parse(host).describe() if host else LOOPBACK
        found.append(
            certificate.CertifiedSubject("browser driver", driver, {**(run.profile or {}), "fixture host": served})
        )
    computer = config.getoption("--computer-driver", None) if _has_option(config, "--computer-driver") else None
    if computer:
        screen = config.getoption("--screen-size", None) or "1280x800"
        profile: dict[str, object] = {"screen size": str(screen)}
        if computer_software:
            profile["software"] = dict(computer_software)
        found.append(certificate.CertifiedSubject("computer driver", computer, profile))
    service = config.getoption("--execution-service", None) if _has_option(config, "--execution-service") else None
    if service:
        # Which runtimes the service offered is part of what was certified: a missing one is "not implemented".
        found.append(certificate.CertifiedSubject("execution service", service, run.profile))
    if run.prefixes() & {"TS", "RN"}:
        if _has_option(config, "--node-sdk") and config.getoption("--node-sdk"):
            from conformance.node.sdk.subject import node_profile

            found.append(certificate.CertifiedSubject("Node SDK toolsets and runners", "npm openai", node_profile()))
        else:
            found.append(certificate.CertifiedSubject("SDK toolsets and runners", None, None))
    return found


def _has_option(config: pytest.Config, name: str) -> bool:
    try:
        config.getoption(name)
    except ValueError:
        return False
    return True


def unwritable(directory: Path) -> str | None:
    """Why no certificate could be written into ``directory``, or None when it can (checked before any check runs)."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".driverkit-probe-"):
            pass
    except OSError as error:
        return f"cannot write a certificate there ({error.strerror or error})"
    return None


def write_certificate(
    config: pytest.Config,
    run: CertificationSession,
    directory: Path,
    incomplete: Sequence[str] = (),
    notes: Sequence[str] = (),
    computer_software: Mapping[str, str] | None = None,
) -> tuple[Path, Path, Path]:
    found = subjects(config, run, computer_software)
    results = clause_results(run, config, complete=not incomplete)
    built = certificate.build(found, results, incomplete, notes, run.evidence)
    return certificate.write(directory, built)


def run_verdict(config: pytest.Config, run: CertificationSession, incomplete: Sequence[str] = ()) -> str:
    """The verdict the certificate of this run says."""
    return certificate.verdict_of_results(clause_results(run, config, complete=not incomplete), incomplete)


# Statuses that say the run itself went wrong: they stand whatever the certificate says.
_RUN_PROBLEMS: Final = frozenset(
    {pytest.ExitCode.INTERRUPTED, pytest.ExitCode.INTERNAL_ERROR, pytest.ExitCode.USAGE_ERROR}
)


def exit_status(verdict: str, current: int) -> int:
    """The exit status of a run that wrote a certificate: the verdict's, so a CI step on ``driverkit certify`` is
    green exactly when the subject conforms (known deviations and unverified members included, as the verdict
    says). Another plugin's opinion (a snapshot left unused by a subset of checks, say) does not turn a conforming
    certificate red, and a run that was interrupted or misused keeps saying so."""
    if current in _RUN_PROBLEMS:
        return current
    if verdict.startswith("conforms"):
        return pytest.ExitCode.OK
    if verdict == "does not conform":
        return pytest.ExitCode.TESTS_FAILED
    return current


def summarize(
    reporter: pytest.TerminalReporter,
    config: pytest.Config,
    run: CertificationSession,
    incomplete: Sequence[str] = (),
    notes: Sequence[str] = (),
) -> None:
    results = clause_results(run, config, complete=not incomplete)
    reporter.section("driverkit conformance")
    by_part: dict[str, Counter[str]] = {}
    for result in results:
        by_part.setdefault(result.clause.part, Counter())[result.status] += 1
    for part, counts in sorted(by_part.items()):
        figures = ", ".join(f"{count} {certificate.STATUS_LABELS[status]}" for status, count in counts.items())
        reporter.write_line(f"{_PART_NAMES.get(part, part)} clauses: {figures}")
    # The same to-do list as the certificate's "What to fix first", in the same order.
    for number, cause in enumerate(fix_first(results), 1):
        reporter.write_line(f"  {number}. FAILED {certificate.describe_cause(cause)}")
    for result in results:
        if result.status == "unverified":
            reason = result.reasons[0] if result.reasons else ""
            reporter.write_line(
                f"  UNVERIFIED {result.clause.id}: {result.clause.summary} -- {for_terminal(reason, 160)}"
            )
    unchecked: dict[str, list[str]] = {}
    for result in results:
        if result.status == "not_checked" and result.why in ("not_provoked", "environment"):
            unchecked.setdefault(result.reasons[0] if result.reasons else "", []).append(result.clause.id)
    for reason, ids in unchecked.items():
        reporter.write_line(f"  NOT CHECKED {', '.join(ids)} -- {for_terminal(reason, 160)}")
    for line in incomplete:
        reporter.write_line(f"  INCOMPLETE: {for_terminal(line, 1_000)}")
    for line in notes:
        reporter.write_line(f"  NOTE: {for_terminal(line)}")
    reporter.write_line(f"verdict: {certificate.verdict_of_results(results, incomplete)}")
    written = config.stash.get(WRITTEN_KEY, None)
    if written:
        paths = [for_terminal(path, 1_000) for path in written]
        reporter.write_line(f"certificate: {paths[0]}, {paths[1]} and {paths[2]}")
