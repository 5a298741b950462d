"""Installed in someone else's project, the kit stays out of the way until a run asks for it.

The ``pytest11`` entry point loads conformance.plugin in every pytest run of a project that has the kit
installed. Until a kit option (or a path inside the kit's checks) asks for it, that run must import none of the
kit's heavy dependencies, show none of its fixtures and print nothing of it; tests/benchmarks/bench_dormant_start.py
measures what the plugin costs such a run.
"""

from __future__ import annotations

import json

import pytest

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.desktop, pytest.mark.child_run]

HEAVY = ("openai", "hypothesis", "playwright", "httpx2", "PIL", "conformance.certification_plugin", "conformance.api")
KIT_FIXTURES = ("subject", "env", "computer_subject", "computer_environment", "replayer", "shows_start_page")

REPORT_IMPORTS = f"""
import json, sys

def pytest_sessionfinish(session):
    loaded = sorted(name for name in {HEAVY!r} if name in sys.modules)
    print("LOADED " + json.dumps(loaded))
"""


@pytest.fixture
def host(pytester: pytest.Pytester) -> pytest.Pytester:
    """A stranger's project: one trivial test and a conftest that reports what the run imported."""
    pytester.makeconftest(REPORT_IMPORTS)
    pytester.makepyfile(test_host="def test_one():\n    assert 1 + 1 == 2\n")
    return pytester


def _loaded(result: pytest.RunResult) -> list[str]:
    line = next(line for line in result.stdout.lines if line.startswith("LOADED ") or ".LOADED " in line)
    return list(json.loads(line.split("LOADED ", 1)[1]))


def test_a_host_projects_run_imports_nothing_heavy_and_shows_nothing_of_the_kit(host: pytest.Pytester) -> None:
    # pytest-asyncio (the kit's dev venv has it, a wheel install does not) warns in any project that leaves its
    # loop scope unset: not the kit's warning, so it is left out here.
    result = host.runpytest_subprocess("-s", "-p", "no:cacheprovider", "-p", "no:asyncio", "-W", "error")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str() + result.stderr.str()
    assert _loaded(result) == []
    output = result.stdout.str() + result.stderr.str()
    assert "driverkit" not in output.lower().replace("responses-driver-kit", "")
    assert "warning" not in output.lower()


def test_a_host_project_sees_no_kit_fixture(host: pytest.Pytester) -> None:
    result = host.runpytest_subprocess("--fixtures", "-p", "no:cacheprovider")
    listed = {line.split()[0] for line in result.stdout.lines if line and not line.startswith((" ", "-", "="))}
    assert not listed & set(KIT_FIXTURES), listed & set(KIT_FIXTURES)


def test_a_kit_option_wakes_the_kit(host: pytest.Pytester) -> None:
    result = host.runpytest_subprocess("-s", "-p", "no:cacheprovider", "--sdk", "--collect-only", "-q")
    assert "conformance.certification_plugin" in _loaded(result)
    assert any(line.startswith("check_turns.py::") for line in result.stdout.lines), result.stdout.str()[-2000:]
