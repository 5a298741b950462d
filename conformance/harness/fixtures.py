"""The pytest fixtures contract checks use, for browser and computer drivers alike.

Browser checks take ``subject`` (and ``env``); a check picks its start page with ``@pytest.mark.page("forms.html")``
and its driver hints with ``@pytest.mark.hints(observation=False)``, both defaulting to a blank page and
:class:`DriverHints` defaults. Computer checks take ``computer_subject`` (and ``computer_environment``, the desktop
shared by the whole session). The run's harnesses and its one harness loop are made by the plugin and kept in the
config's stash under the keys below.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator

import pytest

from conformance.harness import phases
from conformance.harness.browser import BrowserHarness
from conformance.harness.computer import ComputerHarness
from conformance.harness.computer_environment import ComputerEnvironment, desktop_environment
from conformance.harness.computer_subject import ComputerSubject
from conformance.harness.environment import DriverHints, Environment
from conformance.harness.errors import DriverSetupError, bounded
from conformance.harness.execution_service import ExecutionEndpoint
from conformance.harness.loop import HarnessLoop
from conformance.harness.subject import SDK_ACCEPTS_CLAUSE, BrowserSubject

LOOP_KEY = pytest.StashKey[HarnessLoop]()
HARNESS_KEY = pytest.StashKey[BrowserHarness]()
COMPUTER_HARNESS_KEY = pytest.StashKey[ComputerHarness]()
# The execution service under certification (--execution-service), read from the options while configuring.
EXECUTION_ENDPOINT_KEY = pytest.StashKey[ExecutionEndpoint]()
# What the execution checks found the service offers (its languages), shown as the subject's profile.
EXECUTION_PROFILE_KEY = pytest.StashKey[dict[str, object]]()
# Where the computer desktop runs and its screen size, as the plugin read them from the options.
DESKTOP_KEY = pytest.StashKey[tuple[str, tuple[int, int]]]()
NOTE_PROPERTY = "driverkit-note"
# The versions a computer driver runs on (conformance.software), carried like a note.
SOFTWARE_PROPERTY = "driverkit-computer-software"


def _note(request: pytest.FixtureRequest, text: str) -> None:
    # Carried (to the xdist controller too) in the teardown report, and listed on the certificate.
    request.node.user_properties.append((NOTE_PROPERTY, f"{request.node.nodeid}: {text}"))


def _start_page(request: pytest.FixtureRequest) -> str:
    marker = request.node.get_closest_marker("page")
    return str(marker.args[0]) if marker and marker.args else "blank.html"


def _hints(request: pytest.FixtureRequest) -> DriverHints:
    marker = request.node.get_closest_marker("hints")
    return DriverHints(**marker.kwargs) if marker else DriverHints()


@pytest.fixture
def subject(request: pytest.FixtureRequest) -> Iterator[BrowserSubject]:
    """The driver under test, made by the factory for this check and showing the check's start page."""
    harness = request.config.stash.get(HARNESS_KEY, None)
    if harness is None:
        pytest.skip("browser checks need --driver=module:factory")
    # Every call goes through the SDK toolset, so the check also covers the clause that the SDK accepts it.
    request.node.add_marker(pytest.mark.covers(SDK_ACCEPTS_CLAUSE))
    # The factory's and the cleanup's own time is shown apart from the checks' in the terminal summary.
    with contextlib.ExitStack() as stack:
        opening = time.perf_counter()
        made = stack.enter_context(harness.subject(_start_page(request), _hints(request), lambda t: _note(request, t)))
        phases.record(request.node, "factory", time.perf_counter() - opening)
        try:
            yield made
        finally:
            closing = time.perf_counter()
            try:
                stack.close()
            finally:
                phases.record(request.node, "cleanup", time.perf_counter() - closing)


@pytest.fixture
def env(subject: BrowserSubject) -> Environment:
    """This check's environment: fixture page URLs, origins, the page's effect record, hints."""
    return subject.env


def _computer_harness(config: pytest.Config) -> ComputerHarness:
    harness = config.stash.get(COMPUTER_HARNESS_KEY, None)
    if harness is None:
        pytest.skip("no --computer-driver=module:factory given")
    return harness


# How a computer factory that never worked stops the run; the plugin knows such a stop by this prefix.
FACTORY_NEVER_WORKED = "--computer-driver="


def stop_the_run(request: pytest.FixtureRequest, message: str) -> None:
    """End the whole run at this check with ``message``, as one usage error.

    In the run's own process that is ``pytest.exit``. A pytest-xdist worker cannot end the run so (its controller
    would take the exit for a crash and reschedule the rest): it asks for a stop through the session's
    ``shouldstop``, which xdist carries to the controller, and the controller's certification plugin turns the
    interruption that follows into the same usage error."""
    if not hasattr(request.config, "workerinput"):
        pytest.exit(message, returncode=pytest.ExitCode.USAGE_ERROR)
    request.session.shouldstop = message
    pytest.skip(message)


def stopped_by_a_factory(message: str) -> bool:
    """Whether a run's interruption is :func:`stop_the_run`'s, carried over from a worker."""
    return message.startswith(FACTORY_NEVER_WORKED)


@pytest.fixture(scope="session")
def computer_environment(pytestconfig: pytest.Config) -> Iterator[ComputerEnvironment]:
    """The desktop showing the input recorder page, started once per session (per xdist worker)."""
    _computer_harness(pytestconfig)
    kind, size = pytestconfig.stash[DESKTOP_KEY]
    with desktop_environment(kind, size) as environment:
        yield environment


@pytest.fixture
def computer_subject(
    request: pytest.FixtureRequest, computer_environment: ComputerEnvironment
) -> Iterator[ComputerSubject]:
    """The computer driver under test, made by the factory for this check on the session's desktop."""
    harness = _computer_harness(request.config)
    first = not harness.factory_worked
    with contextlib.ExitStack() as stack:
        try:
            subject = stack.enter_context(harness.subject(computer_environment, lambda text: _note(request, text)))
        except DriverSetupError as error:
            # The factory never worked in this run: the caller's mistake, not a verdict on any clause.
            stop_the_run(request, f"{FACTORY_NEVER_WORKED}{harness.spec}: {bounded(str(error))}")
        if first:
            request.node.user_properties.append((SOFTWARE_PROPERTY, json.dumps(harness.software)))
        yield subject
