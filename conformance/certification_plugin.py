"""The kit's certification machinery as a pytest plugin: registered by :mod:`conformance.plugin` only when a run
asks for the kit (``--driver``, ``--computer-driver``, ``--sdk``, ``--node-sdk``, ``--execution-service``,
``--certificate``, or a path or module inside the kit's checks), so the projects the kit is installed in never load it.

Every shipped contract check is a ``check_*.py`` file in a suite folder under ``conformance/contracts/``, collected
by this plugin whatever the host project's ``python_files`` says. Each option selects its suite when no explicit
paths are given: ``--driver`` the browser suite, ``--computer-driver`` the computer suite, ``--sdk`` the toolset
and runner suites (``--node-sdk``: the same suites against the Node SDK), ``--execution-service`` the execution
suite. Hooks hand off to the modules that do the work (harness, session, reporting, evidence).
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest

from conformance import reporting
from conformance._safe_text import for_terminal
from conformance.assertions import CheckSkipped, ClauseViolation, EnvironmentProblem, PreconditionFailed, SkipKind
from conformance.deviations import DeviationFileError, apply_deviations
from conformance.evidence import PROPERTY as EVIDENCE_PROPERTY
from conformance.evidence import from_property as evidence_from_property
from conformance.evidence.capture import evidence_of
from conformance.evidence.rerun import PLUGIN_NAME as RERUN_PLUGIN_NAME
from conformance.evidence.rerun import PROPERTY as RERUN_PROPERTY
from conformance.evidence.rerun import RERUN_MODES, EvidenceRerun, evidence_mode, with_rerun
from conformance.folder_lock import FolderInUseError, FolderLock
from conformance.harness import fixtures, phases
from conformance.harness.browser import BrowserHarness, FixtureHostUnreachable
from conformance.harness.computer import ComputerHarness
from conformance.harness.computer_environment import sweep_abandoned_desktops
from conformance.harness.errors import DriverSetupError, DriverTimeout, bounded, describe_error
from conformance.harness.execution_service import endpoint_from
from conformance.harness.factory import SpecError, load_callable
from conformance.harness.fixture_host import FixtureHost, FixtureHostError
from conformance.harness.fixtures import NOTE_PROPERTY, SOFTWARE_PROPERTY
from conformance.harness.loop import HarnessLoop
from conformance.harness.process_lifetime import stop_leftovers
from conformance.node.drivers.computer_harness import NodeComputerHarness
from conformance.node.drivers.driver import NodeSpec, is_node_spec
from conformance.node.drivers.harness import NodeBrowserHarness
from conformance.node.sdk import subject as node_sdk
from conformance.options import DEFAULT_DRIVER_TIMEOUT, DEFAULT_SCREEN_SIZE
from conformance.rig.modes import use_sdk
from conformance.session import USER_PROPERTY, CertificationSession, CheckOutcome, CheckResult, check_id

CONTRACTS = Path(__file__).resolve().parent / "contracts"
# The key of a worker's session-end notes in its xdist output.
WORKER_NOTES = "driverkit_notes"
# Which suites each option selects; a suite is a folder of check_*.py files under CONTRACTS.
SUITES_BY_OPTION = {
    "--driver": ("browser",),
    "--computer-driver": ("computer",),
    "--sdk": ("toolset", "runner"),
    "--node-sdk": ("toolset", "runner"),
    "--execution-service": ("execution",),
}


# The factories the options name, loaded once per process while configuring.
_FACTORIES_KEY = pytest.StashKey[dict[str, Callable[..., Any]]]()


def _seconds(config: pytest.Config, option: str, ini: str) -> float | None:
    given = config.getoption(option, None)
    source = option
    if given is None:
        text = config.getini(ini)
        if not text:
            return None
        source = ini
        try:
            given = float(str(text))
        except ValueError:
            raise pytest.UsageError(f"{source}={text!r}: expected a number of seconds") from None
    if not given > 0:
        raise pytest.UsageError(f"{source}={given:g}: a deadline must be more than 0 seconds")
    return float(given)


def driver_timeout(config: pytest.Config) -> float:
    """The per-call driver deadline: ``--driver-timeout``, else the ini value, else the documented default."""
    return _seconds(config, "--driver-timeout", "driverkit_driver_timeout") or DEFAULT_DRIVER_TIMEOUT


def factory_timeout(config: pytest.Config) -> float:
    """The factory's deadline: ``--factory-timeout``, else the ini value, else twice the driver deadline."""
    return _seconds(config, "--factory-timeout", "driverkit_factory_timeout") or 2 * driver_timeout(config)


def screen_size(config: pytest.Config) -> tuple[int, int]:
    """The computer desktop's ``--screen-size`` (default 1280x800)."""
    text = config.getoption("--screen-size", None) or DEFAULT_SCREEN_SIZE
    from conformance.harness.desktops.settings import parse_screen_size

    try:
        return parse_screen_size(str(text))
    except ValueError as error:
        raise pytest.UsageError(f"--screen-size={text}: {error}") from None


def fixture_host(config: pytest.Config) -> FixtureHost:
    """The ``--fixture-host`` the browser fixture server uses (loopback when not given)."""
    text = config.getoption("--fixture-host", None)
    if text is None:
        return FixtureHost()
    if not config.getoption("--driver", None):
        raise pytest.UsageError(f"--fixture-host={text}: it places the browser checks' pages; give --driver too")
    try:
        return FixtureHost.parse(str(text))
    except FixtureHostError as error:
        raise pytest.UsageError(f"--fixture-host={text}: {error}") from None


def pytest_configure(config: pytest.Config) -> None:
    factory_timeout(config)
    fixture_host(config)
    endpoint = endpoint_from(config)
    if endpoint is not None:
        config.stash[fixtures.EXECUTION_ENDPOINT_KEY] = endpoint
    if config.getoption("--screen-size", None):
        screen_size(config)
    directory = config.getoption("--certificate")
    if directory and not _is_xdist_worker(config):
        problem = reporting.unwritable(Path(directory))
        if problem:
            raise pytest.UsageError(f"--certificate={directory}: {problem}")
        lock = FolderLock(Path(directory))
        try:
            lock.acquire()
        except FolderInUseError as error:
            raise pytest.UsageError(f"--certificate={directory}: {error}") from None
        config.stash[_FOLDER_LOCK_KEY] = lock
    mode = evidence_mode(config)
    if mode in RERUN_MODES:
        config.pluginmanager.register(EvidenceRerun.for_mode(mode), RERUN_PLUGIN_NAME)
    # Like junitxml, the run's results live in an object registered for this config only, so a pytest run
    # inside another (pytester) never mixes its results with the outer run's.
    config.pluginmanager.register(_Recorder(config), _RECORDER_NAME)
    config.pluginmanager.register(phases.PhaseClock(), _PHASES_NAME)
    factories = {}
    for option in ("--driver", "--computer-driver"):
        spec = config.getoption(option)
        if spec:
            try:
                if is_node_spec(spec):
                    # Checked here, loaded in each process's own Node host (pytest_sessionstart).
                    NodeSpec.parse(spec, option, [config.rootpath])
                    continue
                factories[option] = load_callable(spec, option, search=[config.rootpath])
            except SpecError as error:
                raise pytest.UsageError(str(error)) from None
    config.stash[_FACTORIES_KEY] = factories
    use_sdk("node" if config.getoption("--node-sdk") else "python")
    suites = [
        str(CONTRACTS / suite)
        for option, names in SUITES_BY_OPTION.items()
        if config.getoption(option)
        for suite in names
    ]
    if suites and config.args_source != pytest.Config.ArgsSource.ARGS:
        config.args = suites
    from conformance import replay_fixture

    for name, module in (("driverkit-fixtures", fixtures), ("driverkit-replay", replay_fixture)):
        if not config.pluginmanager.is_registered(module):
            config.pluginmanager.register(module, name)


def pytest_sessionstart(session: pytest.Session) -> None:
    config = session.config
    factories = config.stash.get(_FACTORIES_KEY, {})
    node = is_node_spec(config.getoption("--driver") or "")
    node_computer = is_node_spec(config.getoption("--computer-driver") or "")
    if not factories and not node and not node_computer:
        return
    # The run's one harness loop: every browser and computer driver call of this process runs on it.
    loop = config.stash[fixtures.LOOP_KEY] = HarnessLoop(driver_timeout(config))
    if "--computer-driver" in factories or node_computer:
        spec = config.getoption("--computer-driver")
        try:
            harness = (
                NodeComputerHarness(spec, loop, factory_timeout(config), search=(config.rootpath,))
                if node_computer
                else ComputerHarness(spec, factories["--computer-driver"], loop, factory_timeout(config))
            )
        except DriverSetupError as error:
            raise pytest.UsageError(f"--computer-driver={spec}: {bounded(str(error))}") from None
        config.stash[fixtures.COMPUTER_HARNESS_KEY] = harness
        config.stash[fixtures.DESKTOP_KEY] = (str(config.getoption("--desktop")), screen_size(config))
    if "--driver" not in factories and not node:
        return
    spec = config.getoption("--driver")
    host = fixture_host(config)
    try:
        browser = (
            NodeBrowserHarness(spec, loop, factory_timeout(config), search=(config.rootpath,), fixture_host=host)
            if node
            else BrowserHarness(spec, factories["--driver"], loop, factory_timeout(config), host)
        )
    except OSError as error:
        raise pytest.UsageError(f"--fixture-host={config.getoption('--fixture-host')}: {error}") from None
    except DriverSetupError as error:
        raise pytest.UsageError(f"--driver={spec}: {bounded(str(error))}") from None
    try:
        browser.probe()
    except DriverSetupError as error:
        browser.close()
        if isinstance(error, FixtureHostUnreachable):
            # Unlike a broken factory, this is a finding about where the run was set up: the certificate says
            # that nothing was checked, and why (the message names the host, the ports and what was tried).
            _record_before_any_check(config, str(error))
            raise pytest.UsageError(bounded(str(error), 800)) from None
        raise pytest.UsageError(f"--driver={spec}: {bounded(str(error))}") from None
    if _is_xdist_controller(config):
        # The controller only probes, so a bad factory is one usage error; its workers run the checks.
        browser.close()
    else:
        config.stash[fixtures.HARNESS_KEY] = browser


def _record_before_any_check(config: pytest.Config, reason: str) -> None:
    recorder = config.pluginmanager.get_plugin(_RECORDER_NAME)
    if isinstance(recorder, _Recorder):
        recorder.incomplete.append(f"no check ran: {bounded(reason, 800)}")
        recorder._write_certificate()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Module | None:
    # Contract checks are named check_*.py so a host project's own test discovery never picks them up by
    # accident; collect them here unless the host's python_files already does.
    if file_path.suffix != ".py" or not file_path.name.startswith("check_"):
        return None
    if not file_path.is_relative_to(CONTRACTS):
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
        if config.getoption("--node-sdk", None):
            node_sdk.collect(items)
        else:
            apply_deviations(items)
    except DeviationFileError as error:
        raise pytest.UsageError(f"known deviations: {error}") from None


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    # A check the kit decided at collection cannot run here (a Python-only check on the Node SDK): it ends with
    # that outcome as data, like any check that decides so itself.
    marker = item.get_closest_marker("driverkit_outcome")
    if marker is not None:
        kind: SkipKind = marker.args[0]
        raise CheckSkipped(kind, str(marker.args[1]))


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
    harness = item.config.stash.get(fixtures.HARNESS_KEY, None)
    profile = (
        harness.profile.to_json()
        if harness and harness.profile
        else item.config.stash.get(fixtures.EXECUTION_PROFILE_KEY, None)
    )
    # Clauses a check covers without blaming them (the subject fixture marks every browser check with the one
    # that the SDK accepts what the driver returns; that clause is blamed only by name).
    covered = (*marker_ids, *(str(clause_id) for marker in item.iter_markers("covers") for clause_id in marker.args))
    deviates = tuple(str(mark.args[0]) for mark in item.iter_markers("known_deviation") if mark.args)
    requires = tuple(str(clause_id) for marker in item.iter_markers("requires") for clause_id in marker.args)
    error = call.excinfo.value if call.excinfo else None
    result = CheckResult(
        check_id(item.nodeid),
        tuple(dict.fromkeys(covered)),
        outcome,
        blamed,
        bounded(reason),
        profile,
        deviates,
        member,
        precondition=isinstance(error, PreconditionFailed) and outcome == "failed",
        requires=tuple(dict.fromkeys(requires)),
    )
    report.user_properties = [*report.user_properties, (USER_PROPERTY, result.to_property())]
    # What a failed or unverified check saw, taken now while its driver is still alive (only a certificate shows it).
    if evidence_mode(item.config) != "off":
        evidence = evidence_of(item, outcome, call.excinfo.value if call.excinfo else None)
        if evidence is not None:
            report.user_properties.append((EVIDENCE_PROPERTY, evidence))
    _bound_log(report)
    return report


# A driver's output (a 10 MB title, say) must not flood the log: a longer failure report keeps its beginning (where
# the check failed) and its end (the error line), and says how much was cut between them.
LOG_LIMIT = 20_000


def _bound_log(report: pytest.TestReport) -> None:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple):
        # A skip's (path, line, message): pytest needs the tuple; its message can be a driver's text.
        path, line, message = longrepr
        report.longrepr = (path, line, for_terminal(message, LOG_LIMIT, lines=True))
        return
    original = str(longrepr) if longrepr is not None else ""
    text = original
    if len(text) > LOG_LIMIT:
        half = LOG_LIMIT // 2
        cut = len(text) - 2 * half
        text = f"{text[:half]}\n[... {cut:,} characters of driver output cut ...]\n{text[-half:]}"
    # pytest prints a failure as it is: a driver's escape sequences in it are shown as text, not sent to the terminal.
    # The report is replaced only when that changes it, so an ordinary failure keeps pytest's own rendering.
    shown = for_terminal(text, len(text), lines=True)
    if shown != original:
        report.longrepr = shown
    # What the driver printed, which pytest shows beside the report.
    report.sections = [(name, for_terminal(content, len(content), lines=True)) for name, content in report.sections]


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
    error = call.excinfo.value if call.excinfo else None
    if report.skipped:
        if not isinstance(error, CheckSkipped):
            text = str(report.longrepr[2]) if isinstance(report.longrepr, tuple) else str(report.longrepr)
            return "skipped", (), text, None
        return error.kind, (), error.detail, error.member if error.kind == "unverified" else None
    if isinstance(error, DriverTimeout):
        # A hang is a defect of the driver: it fails the clauses the check covers.
        return "failed", clause_ids, f"{error}; the driver was torn down", None
    if isinstance(error, ClauseViolation):
        return "failed", (error.clause_id,), error.detail, None
    if isinstance(error, EnvironmentProblem):
        return "not_checked", (), f"environment: {error}", None
    return "failed", clause_ids, describe_error(error) if error else "failed", None


_RECORDER_NAME = "driverkit-recorder"
_FOLDER_LOCK_KEY = pytest.StashKey[FolderLock]()
_PHASES_NAME = "driverkit-phases"


class _Recorder:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.run = CertificationSession()
        # What kept the run from checking everything it set out to (Ctrl-C, a crashed worker, -x).
        self.incomplete: list[str] = []
        # A worker's computer factory never worked and stopped the run (fixtures.stop_the_run): a usage error.
        self.stopped_by_factory = False
        # Harness findings that are no clause's business (a cleanup that hung, tasks left on the loop).
        self.notes: list[str] = []
        # What the computer driver runs on, reported by the process that made it.
        self.computer_software: dict[str, str] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        recorded = False
        for name, value in report.user_properties:
            if name == USER_PROPERTY:
                self.run.add(CheckResult.from_property(str(value)))
                recorded = True
            elif name == EVIDENCE_PROPERTY:
                self.run.evidence[check_id(report.nodeid)] = evidence_from_property(str(value))
            elif name == RERUN_PROPERTY and check_id(report.nodeid) in self.run.evidence:
                # What the check's evidence rerun added, carried by its (later) teardown report.
                key = check_id(report.nodeid)
                self.run.evidence[key] = with_rerun(self.run.evidence[key], str(value))
            elif name == NOTE_PROPERTY:
                # An item's own properties ride on each of its reports (setup, call, teardown): one note, once.
                note = bounded(str(value))
                if note not in self.notes:
                    self.notes.append(note)
            elif name == SOFTWARE_PROPERTY and not self.computer_software:
                self.computer_software = json.loads(str(value))
        if report.failed and not recorded and str(report.when) == "???":
            # pytest-xdist's report for a worker that died mid-check: nothing was learned from that check.
            self.incomplete.append(f"{bounded(str(report.longrepr))} (its clauses were not checked)")

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        # Ctrl-C, pytest.exit() (a computer factory that never worked) or xdist stopping its workers.
        if isinstance(excinfo.value, pytest.exit.Exception):
            self.incomplete.append(f"the run was stopped before every check ran: {bounded(excinfo.value.msg)}")
            return
        message = str(excinfo.value)
        if fixtures.stopped_by_a_factory(message):
            # The same stop, asked for by the worker that ran the checks (fixtures.stop_the_run).
            self.stopped_by_factory = True
            self.incomplete.append(f"the run was stopped before every check ran: {bounded(message)}")
            return
        cause = f"{excinfo.typename}: {bounded(message)}" if message else excinfo.typename
        self.incomplete.append(f"the run was interrupted ({cause}) before every check ran")

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.stopped_by_factory:
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
        elif session.shouldfail or session.shouldstop:
            reason = session.shouldfail or session.shouldstop
            self.incomplete.append(f"the run stopped early ({reason}) before every check ran")
        if _is_xdist_controller(self.config) and self.config.stash.get(fixtures.DESKTOP_KEY, ("",))[0] == "docker":
            # Workers remove their own desktop containers; one that crashed could not.
            for name in sweep_abandoned_desktops():
                self.notes.append(f"removed desktop container {name}, left by a worker that ended abnormally")
        # The certificate first: whatever the driver left behind must not cost the results.
        self._write_certificate()
        if self.config.stash.get(reporting.WRITTEN_KEY, None) is not None:
            verdict = reporting.run_verdict(self.config, self.run, self.incomplete)
            session.exitstatus = reporting.exit_status(verdict, int(session.exitstatus))
        problems = _close_harnesses(self.config)
        if problems:
            self.notes.extend(bounded(problem) for problem in problems)
            self._write_certificate()
            if _is_xdist_worker(self.config):
                # No report is left to carry them: the worker's output reaches the controller when it goes down.
                self.config.workeroutput[WORKER_NOTES] = [bounded(problem) for problem in problems]  # type: ignore[attr-defined]

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """A worker's findings from its own session end (xdist hands the controller the worker's output)."""
        output = getattr(node, "workeroutput", None) or {}
        self.notes.extend(note for note in output.get(WORKER_NOTES, ()) if note not in self.notes)

    def _write_certificate(self) -> None:
        directory = self.config.getoption("--certificate")
        if not directory or _is_xdist_worker(self.config):
            return
        if not (self.run.results or _certifies_a_named_subject(self.config)):
            return
        written = reporting.write_certificate(
            self.config, self.run, Path(directory), self.incomplete, self.notes, self.computer_software
        )
        self.config.stash[reporting.WRITTEN_KEY] = written

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if _is_xdist_worker(self.config):
            return
        certifying = _certifies_a_named_subject(self.config)
        if self.run.results or (self.incomplete and certifying):
            reporting.summarize(terminalreporter, self.config, self.run, self.incomplete, self.notes)


def _certifies_a_named_subject(config: pytest.Config) -> bool:
    """Whether the run names a subject of its own, whose certificate says why nothing was checked if nothing was."""
    return any(config.getoption(option) for option in ("--driver", "--computer-driver", "--execution-service"))


def _close_harnesses(config: pytest.Config) -> list[str]:
    """Close the browser and computer harnesses, then the run's loop (bounded); what went wrong, one line each."""
    problems: list[str] = []
    browser = config.stash.get(fixtures.HARNESS_KEY, None)
    if browser is not None:
        del config.stash[fixtures.HARNESS_KEY]
        problems += browser.close()
    computer = config.stash.get(fixtures.COMPUTER_HARNESS_KEY, None)
    if computer is not None:
        del config.stash[fixtures.COMPUTER_HARNESS_KEY]
        problems += computer.close()
    if config.getoption("--node-sdk", None):
        problems += node_sdk.close()
    loop = config.stash.get(fixtures.LOOP_KEY, None)
    if loop is not None:
        del config.stash[fixtures.LOOP_KEY]
        problems += [f"still running when the run ended: {task}" for task in loop.close()]
    if browser is not None or computer is not None:
        # Every driver the kit could close is closed: what still runs under this process was started by driver
        # code the kit gave up on (or by a cleanup that forgot it), and would outlive the run on a shared machine.
        stopped = stop_leftovers()
        if stopped:
            problems.append(
                f"stopped processes still running under the kit when the run ended ({', '.join(stopped)}): started "
                "by a driver the kit abandoned (a factory or call past its deadline) or left by a driver's cleanup"
            )
    return problems


def pytest_unconfigure(config: pytest.Config) -> None:
    use_sdk("python")
    lock = config.stash.get(_FOLDER_LOCK_KEY, None)
    if lock is not None:
        lock.release()
    for name in (_RECORDER_NAME, _PHASES_NAME, RERUN_PLUGIN_NAME):
        plugin = config.pluginmanager.get_plugin(name)
        if plugin is not None:
            config.pluginmanager.unregister(plugin)


def _is_xdist_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _is_xdist_controller(config: pytest.Config) -> bool:
    numprocesses = getattr(config.option, "numprocesses", None)
    return not _is_xdist_worker(config) and bool(numprocesses) and config.getoption("dist", "no") != "no"
