"""The driverkit pytest plugin: options and hooks only; the work lives in the modules it calls.

Registered through the ``pytest11`` entry point, so ``pytest --driver=mypkg:make_driver`` works in any project.
Given ``--driver`` and no explicit paths, pytest collects the kit's bundled browser contract checks
(``conformance/contracts/browser/check_*.py``) whatever the host project's ``python_files`` says.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Generator
from pathlib import Path

import pytest

from conformance import reporting
from conformance.assertions import ClauseViolation, EnvironmentProblem, parse_skip_reason
from conformance.deviations import DeviationFileError, apply_deviations
from conformance.driver import DriverSetupError
from conformance.fixtures import HARNESS_KEY
from conformance.harness import BrowserHarness
from conformance.hypothesis_profiles import register_profiles
from conformance.loading import SpecError, load_callable
from conformance.session import USER_PROPERTY, CertificationSession, CheckOutcome, CheckResult

# Before pytest configures itself: the hypothesis plugin resolves --hypothesis-profile during configuration.
register_profiles()

CONTRACTS = Path(__file__).resolve().parent / "contracts"
SDK_ACCEPTS_CLAUSE = "BR-SDK-001"
BROWSER_CHECKS = CONTRACTS / "browser"
COMPUTER_CHECKS = CONTRACTS / "computer"
CHECK_DIRECTORIES = (BROWSER_CHECKS, COMPUTER_CHECKS)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("driverkit", "driver conformance (responses-driver-kit)")
    group.addoption(
        "--driver",
        metavar="MODULE:FACTORY",
        help="certify the browser driver made by FACTORY(env); runs the bundled browser contract checks",
    )
    group.addoption(
        "--computer-driver",
        metavar="MODULE:FACTORY",
        help="certify the computer driver made by FACTORY(env) on a desktop showing the kit's input recorder page",
    )
    group.addoption(
        "--desktop",
        choices=("local", "docker"),
        default="local",
        help="where computer checks run: Xvfb on this host (default) or the kit/desktop container",
    )
    group.addoption(
        "--certificate",
        metavar="DIR",
        help="write certificate.json and certificate.md for this run into DIR",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "clause(*ids): the contract clauses a check verifies")
    config.addinivalue_line("markers", "page(name): the fixture page a browser check starts on")
    config.addinivalue_line("markers", "hints(**fields): DriverHints the check asks the driver factory for")
    config.addinivalue_line("markers", "known_deviation(clause, id): set by the known-deviation file, not by hand")
    # Like junitxml, the run's results live in an object registered for this config only, so a pytest run
    # inside another (pytester) never mixes its results with the outer run's.
    config.pluginmanager.register(_Recorder(config), _RECORDER_NAME)
    suites = []
    for option, directory in (("--driver", BROWSER_CHECKS), ("--computer-driver", COMPUTER_CHECKS)):
        spec = config.getoption(option)
        if spec:
            try:
                load_callable(spec, option, search=[config.rootpath])
            except SpecError as error:
                raise pytest.UsageError(str(error)) from None
            suites.append(str(directory))
    if suites and config.args_source != pytest.Config.ArgsSource.ARGS:
        config.args = suites
    if config.getoption("--computer-driver"):
        from conformance import computer_harness

        if not config.pluginmanager.is_registered(computer_harness):
            config.pluginmanager.register(computer_harness, "driverkit-computer")
    from conformance import fixtures, replay

    for name, module in (("driverkit-fixtures", fixtures), ("driverkit-replay", replay)):
        if not config.pluginmanager.is_registered(module):
            config.pluginmanager.register(module, name)


def pytest_sessionstart(session: pytest.Session) -> None:
    config = session.config
    spec = config.getoption("--driver")
    if not spec:
        return
    harness = BrowserHarness(spec, load_callable(spec, "--driver"))
    try:
        harness.probe()
    except DriverSetupError as error:
        harness.close()
        raise pytest.UsageError(f"--driver={spec}: {error}") from None
    if _is_xdist_controller(config):
        # The controller only probes, so a bad factory is one usage error; its workers run the checks.
        harness.close()
    else:
        config.stash[HARNESS_KEY] = harness


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Module | None:
    # Contract checks are named check_*.py so a host project's own test discovery never picks them up by
    # accident; collect them here unless the host's python_files already does.
    if file_path.suffix != ".py" or not file_path.name.startswith("check_"):
        return None
    if not any(file_path.is_relative_to(directory) for directory in CHECK_DIRECTORIES):
        return None
    # pytest collects a path named on the command line itself, and any file its python_files matches.
    if parent.session.isinitpath(file_path):
        return None
    patterns = parent.config.getini("python_files")
    if any(fnmatch.fnmatch(file_path.name, pattern) for pattern in patterns):
        return None
    module: pytest.Module = pytest.Module.from_parent(parent, path=file_path)
    return module


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Checks the installed SDK is known to fail run as strict expected failures, so a fixed SDK fails the run.
    try:
        apply_deviations(items)
    except DeviationFileError as error:
        raise pytest.UsageError(f"known deviations: {error}") from None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    marker_ids = tuple(str(clause_id) for marker in item.iter_markers("clause") for clause_id in marker.args)
    if not marker_ids:
        return report
    decisive = report.when == "call" or (report.when == "setup" and not report.passed)
    if not decisive:
        return report
    outcome, blamed, reason, member = _classify(report, call, marker_ids)
    harness = item.config.stash.get(HARNESS_KEY, None)
    profile = harness.profile.to_json() if harness and harness.profile else None
    # Every browser check calls the driver through the SDK toolset, so each one also covers the clause that the
    # SDK accepts what the driver returns; it is blamed only by name (Outcome.expect_sdk_accepted).
    covered = (*marker_ids, SDK_ACCEPTS_CLAUSE) if "subject" in getattr(item, "fixturenames", ()) else marker_ids
    deviates = tuple(str(mark.args[0]) for mark in item.iter_markers("known_deviation") if mark.args)
    result = CheckResult(item.nodeid, tuple(dict.fromkeys(covered)), outcome, blamed, reason, profile, deviates, member)
    report.user_properties = [*report.user_properties, (USER_PROPERTY, result.to_property())]
    return report


def _classify(
    report: pytest.TestReport, call: pytest.CallInfo[None], clause_ids: tuple[str, ...]
) -> tuple[CheckOutcome, tuple[str, ...], str, str | None]:
    """The check's outcome, the clauses it blames, its reason, and the member an unverified check names."""
    if hasattr(report, "wasxfail"):
        if report.skipped:
            return "deviation", (), str(report.wasxfail), None
        return "failed", clause_ids, "a recorded known deviation no longer happens", None
    if report.passed:
        return "passed", (), "", None
    if report.skipped:
        text = str(report.longrepr[2]) if isinstance(report.longrepr, tuple) else str(report.longrepr)
        parsed = parse_skip_reason(text)
        if parsed is None:
            return "skipped", (), text, None
        if parsed.kind == "not_implemented":
            return "not_implemented", (), parsed.detail, None
        return parsed.kind, (), parsed.detail, parsed.member
    error = call.excinfo.value if call.excinfo else None
    if isinstance(error, ClauseViolation):
        return "failed", (error.clause_id,), error.detail, None
    if isinstance(error, EnvironmentProblem):
        return "not_checked", (), f"environment: {error}", None
    summary = f"{type(error).__name__}: {error}" if error else "failed"
    return "failed", clause_ids, summary.splitlines()[0][:300] if summary else "failed", None


_RECORDER_NAME = "driverkit-recorder"


class _Recorder:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.run = CertificationSession()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for name, value in report.user_properties:
            if name == USER_PROPERTY:
                self.run.add(CheckResult.from_property(str(value)))

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        harness = self.config.stash.get(HARNESS_KEY, None)
        if harness is not None:
            harness.close()
            del self.config.stash[HARNESS_KEY]
        directory = self.config.getoption("--certificate")
        if directory and self.run.results and not _is_xdist_worker(self.config):
            written = reporting.write_certificate(self.config, self.run, Path(directory))
            self.config.stash[reporting.WRITTEN_KEY] = written

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.run.results and not _is_xdist_worker(self.config):
            reporting.summarize(terminalreporter, self.config, self.run)


def pytest_unconfigure(config: pytest.Config) -> None:
    recorder = config.pluginmanager.get_plugin(_RECORDER_NAME)
    if recorder is not None:
        config.pluginmanager.unregister(recorder)


def _is_xdist_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _is_xdist_controller(config: pytest.Config) -> bool:
    numprocesses = getattr(config.option, "numprocesses", None)
    return not _is_xdist_worker(config) and bool(numprocesses) and config.getoption("dist", "no") != "no"
