"""The kit certifies execution services: the reference service conforms, and each service with one defect
(tests/broken/execution_services.py) fails exactly the clause of that defect, so every such check can fail. (The
network one also loses the reference's X display, as its entry says.)

Each run is ``driverkit certify --execution-service=URL`` in a child process, the token in the environment, as a
service author would run it.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance.options import EXECUTION_TOKEN_VARIABLE
from reference.execution import ExecutionService
from tests.broken.certification import Certification, certify
from tests.broken.execution_services import DEFECTS, BrokenFront, Defect, refuses_javascript

from ._unsandboxed import UnsandboxedLauncher
from .conftest import TEST_LIMITS

# What this module starts (tests/process_kinds.py): the service's sandboxes, its Xvfb and Node runtimes, and a child
# certification.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.desktop,
    pytest.mark.container,
    pytest.mark.browser,
    pytest.mark.node,
    pytest.mark.child_run,
]


@pytest.fixture
def service_token(monkeypatch: pytest.MonkeyPatch) -> str:
    token = secrets.token_urlsafe(24)
    monkeypatch.setenv(EXECUTION_TOKEN_VARIABLE, token)
    return token


CHECKS = Path(__file__).resolve().parents[2] / "conformance" / "contracts" / "execution"


def _certify(endpoint: str, folder: Path, selection: str | None = None) -> Certification:
    return certify(endpoint, folder, option="--execution-service", cli=True, timeout=600.0, selection=selection)


def checks_judging(clauses: tuple[str, ...]) -> str:
    """A -k expression selecting the check modules that name any of ``clauses``.

    The reference service and the runtime test certify the whole suite; a one-defect service is certified with the
    checks of its defect's clauses only, since each full certification costs about half a minute of the test
    command and the whole-suite blame of one defect is what the reference run and the blame tests already show.
    """
    modules = sorted(
        path.stem
        for path in CHECKS.glob("check_*.py")
        if any(f'"{clause}"' in path.read_text(encoding="utf-8") for clause in clauses)
    )
    assert modules, f"no execution check names {clauses}"
    return " or ".join(modules)


@pytest.fixture
def reference_service(x_display: str, service_token: str) -> Iterator[ExecutionService]:
    with ExecutionService(service_token, display=x_display, limits=TEST_LIMITS) as running:
        yield running


def test_the_reference_service_conforms(reference_service: ExecutionService, tmp_path: Path) -> None:
    run = _certify(reference_service.endpoint, tmp_path)
    run.expect_conforms("the reference execution service")
    assert run.profile().get("languages") == ["python", "javascript"]
    assert not run.with_status("not_implemented"), run.reasons(run.with_status("not_implemented"))


def test_a_runtime_the_service_does_not_offer_is_not_implemented(
    reference_service: ExecutionService, service_token: str, tmp_path: Path
) -> None:
    python_only = Defect("python-only", (), rewrite_request=refuses_javascript)
    with BrokenFront(reference_service.endpoint, service_token, python_only) as front:
        run = _certify(front.endpoint, tmp_path)
    assert run.certificate is not None, f"the run wrote no certificate:\n{run.tail()}"
    assert not run.with_status("failed"), run.reasons(run.with_status("failed"))
    javascript = ["EX-JS-001", "EX-JS-002", "EX-JS-003", "EX-JS-004", "EX-JS-005", "EX-SESSION-003"]
    assert run.with_status("not_implemented") == javascript
    assert run.profile().get("languages") == ["python"]


@pytest.mark.parametrize("defect", DEFECTS, ids=[defect.name for defect in DEFECTS])
def test_a_service_with_one_defect_fails_only_its_clause(
    defect: Defect, x_display: str, service_token: str, tmp_path: Path
) -> None:
    limits = dataclasses.replace(TEST_LIMITS, **defect.upstream_limits)
    launcher = UnsandboxedLauncher(limits, str(tmp_path / "scratch")) if defect.unsandboxed else None
    upstream = ExecutionService(
        service_token, display=x_display, limits=limits, isolate_network=defect.isolate_network, launcher=launcher
    )
    with upstream, BrokenFront(upstream.endpoint, service_token, defect) as front:
        run = _certify(front.endpoint, tmp_path, checks_judging(defect.clauses))
    assert run.certificate is not None, f"the run wrote no certificate:\n{run.tail()}"
    failed = run.with_status("failed")
    expected = sorted(defect.clauses)
    assert failed == expected, f"{defect.name} should fail only {expected}:\n{run.reasons(failed)}"
    assert run.certificate["verdict"] == "does not conform"
