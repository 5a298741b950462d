"""Fixtures of the execution checks: the service, the runtimes it offers, and what the kit puts on its own host
for scripts to try to reach (a listener, a planted file, a marked process).

A runtime the service does not offer makes the checks that need it "not implemented": the guide describes both
runtimes, but a service may run only one language.
"""

from __future__ import annotations

import secrets
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance.assertions import not_checked, not_implemented
from conformance.harness.execution_service import (
    LANGUAGES,
    ExecutionEndpoint,
    ServiceUnreachable,
    new_session_id,
)
from conformance.harness.fixtures import EXECUTION_ENDPOINT_KEY, EXECUTION_PROFILE_KEY

from ._host import HostListener, PlantedFile, marked_process
from ._runtimes import Runtime, runtime_for

# The deadline checks' runaway scripts may outlive their reply on a service that breaks the deadline clauses: they
# run last, so such a script cannot disturb the checks of other clauses (it moves the shared pointer).
_RUN_LAST = "check_deadlines.py"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.path.name == _RUN_LAST)


@pytest.fixture(scope="session")
def service(request: pytest.FixtureRequest) -> ExecutionEndpoint:
    endpoint = request.config.stash.get(EXECUTION_ENDPOINT_KEY, None)
    if endpoint is None:
        pytest.skip("execution checks need --execution-service=URL")
    return endpoint


@pytest.fixture(scope="session")
def offered(service: ExecutionEndpoint, request: pytest.FixtureRequest) -> tuple[str, ...]:
    """The languages the service runs: each is tried once with a one-line script that writes text."""
    found = []
    answers = []
    for language in LANGUAGES:
        runtime = runtime_for(language, service)
        try:
            reply = service.execute(new_session_id("probe"), runtime.log_code("driverkit probe"), language)
        except ServiceUnreachable as error:
            not_checked(str(error))
        answers.append(f"{language}: {reply.describe(120)}")
        if reply.status == 200:
            found.append(language)
    if not found:
        not_checked("the service ran neither a python nor a javascript script: " + "; ".join(answers))
    profile: dict[str, object] = {"languages": found}
    request.config.stash[EXECUTION_PROFILE_KEY] = profile
    return tuple(found)


def _runtime(language: str, service: ExecutionEndpoint, offered: tuple[str, ...]) -> Runtime:
    if language not in offered:
        not_implemented(f"a {language} runtime (the service refused language {language!r})")
    return runtime_for(language, service)


@pytest.fixture
def python(service: ExecutionEndpoint, offered: tuple[str, ...]) -> Runtime:
    """The Python runtime; checks of what it offers are not implemented on a service without one."""
    return _runtime("python", service, offered)


@pytest.fixture
def javascript(service: ExecutionEndpoint, offered: tuple[str, ...]) -> Runtime:
    """The JavaScript runtime; checks of what it offers are not implemented on a service without one."""
    return _runtime("javascript", service, offered)


@pytest.fixture
def runtime(service: ExecutionEndpoint, offered: tuple[str, ...]) -> Runtime:
    """A runtime for checks about the service as a whole: Python when offered, else JavaScript."""
    return runtime_for(offered[0], service)


@pytest.fixture(scope="session")
def host_listener() -> Iterator[HostListener]:
    with HostListener() as listener:
        yield listener


@pytest.fixture
def planted_file(service: ExecutionEndpoint) -> Iterator[PlantedFile]:
    """A file only the service's host has (so only when the service runs on this machine)."""
    if not service.is_local():
        not_checked(f"the service at {service.host} runs on another machine: the kit can plant nothing on its host")
    folder = Path(tempfile.mkdtemp(prefix="driverkit-planted-"))
    folder.chmod(0o755)
    planted = PlantedFile(folder / "host-secret.txt", secrets.token_hex(16))
    planted.path.write_text(planted.content, encoding="utf-8")
    planted.path.chmod(0o644)
    try:
        yield planted
    finally:
        planted.path.unlink(missing_ok=True)
        folder.rmdir()


@pytest.fixture
def host_process(service: ExecutionEndpoint) -> Iterator[str]:
    """A process the kit runs on the service's host, with a marker on its command line; the marker."""
    if not service.is_local():
        not_checked(f"the service at {service.host} runs on another machine: the kit can start nothing on its host")
    marker = f"driverkit-host-process-{secrets.token_hex(8)}"
    with marked_process(sys.executable, marker) as process:
        assert isinstance(process, subprocess.Popen)
        yield marker
