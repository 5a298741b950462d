"""The plugin as a driver author meets it: option errors, factory forms, clause blame and the certificate."""

from __future__ import annotations

import textwrap

import pytest

from conformance.certificate_format import load as load_certificate

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.child_run]

TINY_DRIVERS = """
import contextlib

CLEANED = []


class Tiny:
    def __init__(self, env):
        self.env = env

    def state(self):
        return {"tabs": [{"id": "t1", "title": "Tiny", "url": self.env.main_origin, "active": True}]}

    def get_page_text(self, args):
        return "hello"


class AsyncTiny(Tiny):
    async def state(self):
        return Tiny.state(self)

    async def get_page_text(self, args):
        return "hello"


class Mixed(Tiny):
    async def get_page_text(self, args):
        return "hello"


def plain(env):
    return Tiny(env)


@contextlib.contextmanager
def managed(env):
    yield Tiny(env)
    open(env.url("x").rsplit("/", 2)[0].replace(":", "_").replace("/", "_") + ".cleaned", "w").close()


def generator(env):
    yield Tiny(env)


@contextlib.asynccontextmanager
async def async_managed(env):
    yield AsyncTiny(env)


async def async_generator(env):
    yield AsyncTiny(env)


async def awaitable(env):
    return AsyncTiny(env)


def raising(env):
    raise RuntimeError("no browser here")


def stateless(env):
    return object()


def mixed(env):
    return Mixed(env)


def empty_generator(env):
    return
    yield


NOT_CALLABLE = 3
"""

CHECKS = """
import pytest
from conformance.assertions import expect


@pytest.mark.clause("BR-SDK-001")
def test_text(subject):
    outcome = subject.call("get_page_text", tab_id=None)
    expect(outcome.raw == "hello", "BR-SDK-001", "unexpected text")
    outcome.expect_sdk_accepted()


@pytest.mark.clause("BR-SDK-001")
def test_flavour(subject):
    assert subject.flavour == subject.driver.__class__.__name__.startswith("Async") and "async" or "sync"
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(tinydrivers=TINY_DRIVERS, test_checks=CHECKS)
    pytester.syspathinsert()
    return pytester


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nocolon", "expected module:attribute"),
        ("missing_module_xyz:make", "module 'missing_module_xyz' not found"),
        ("tinydrivers:absent", "has no attribute 'absent'"),
        ("tinydrivers:NOT_CALLABLE", "not a callable factory"),
        ("tinydrivers:raising", "the driver factory raised RuntimeError: no browser here"),
        ("tinydrivers:stateless", "has no callable state()"),
        ("tinydrivers:mixed", "mixes sync and async methods"),
        ("tinydrivers:empty_generator", "finished without yielding a driver"),
    ],
)
def test_bad_driver_is_one_usage_error(project: pytest.Pytester, spec: str, message: str) -> None:
    result = project.runpytest_subprocess(f"--driver={spec}", "test_checks.py")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()
    assert "Traceback" not in result.stderr.str() + result.stdout.str()


@pytest.mark.parametrize("factory", ["plain", "managed", "generator", "async_managed", "async_generator", "awaitable"])
def test_every_factory_form_is_accepted(project: pytest.Pytester, factory: str) -> None:
    result = project.runpytest_subprocess(f"--driver=tinydrivers:{factory}", "test_checks.py")
    result.assert_outcomes(passed=2)


def test_certificate_names_blamed_clause_and_unimplemented_members(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_more=textwrap.dedent(
            """
            import pytest
            from conformance.assertions import expect


            @pytest.mark.clause("BR-SDK-001")
            def test_click_needs_member(subject):
                subject.require("click")


            @pytest.mark.clause("BR-SDK-001")
            def test_blames_one_clause(subject):
                expect(False, "BR-SDK-001", "deliberately broken")
            """
        )
    )
    out = project.path / "cert"
    result = project.runpytest_subprocess("--driver=tinydrivers:plain", f"--certificate={out}", "test_more.py")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    certificate = dict(load_certificate(out / "certificate.json"))
    statuses = {clause["id"]: clause for clause in certificate["clauses"]}
    assert statuses["BR-SDK-001"]["status"] == "failed"
    assert statuses["BR-SDK-001"]["reasons"] == ["deliberately broken"]
    assert certificate["verdict"] == "does not conform"
    profile = certificate["subjects"][0]["profile"]
    assert {key: profile[key] for key in ("flavour", "implemented")} == {
        "flavour": "sync",
        "implemented": ["get_page_text"],
    }
    # The versions are the driver's own: its class, where it comes from, and no browser the kit cannot see.
    assert profile["software"]["driver class"] == "tinydrivers.Tiny"
    assert certificate["versions"]["driver package"] == "tinydrivers (not an installed package)"
    assert certificate["versions"]["browser"].startswith("unknown")
    assert "playwright" not in certificate["versions"]
    assert "FAILED" in (out / "certificate.md").read_text()
    result.stdout.fnmatch_lines(["*FAILED BR-SDK-001*deliberately broken*", "verdict: does not conform"])


def test_not_implemented_is_not_a_failure(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_missing="""
import pytest


@pytest.mark.clause("BR-SDK-001")
def test_click(subject):
    subject.require("click")
"""
    )
    out = project.path / "cert"
    result = project.runpytest_subprocess("--driver=tinydrivers:plain", f"--certificate={out}", "test_missing.py")
    assert result.ret == pytest.ExitCode.OK
    certificate = dict(load_certificate(out / "certificate.json"))
    clause = next(c for c in certificate["clauses"] if c["id"] == "BR-SDK-001")
    assert clause["status"] == "not_implemented"
    assert clause["reasons"] == ["click"]
    # One check file covers one clause: the rest were not looked at, so the run cannot claim conformance.
    assert certificate["verdict"] == "not fully checked"


def test_driver_alone_collects_the_bundled_checks(project: pytest.Pytester) -> None:
    # No paths given: the plugin collects its own check_*.py modules even though python_files excludes them.
    result = project.runpytest_subprocess("--driver=tinydrivers:plain", "--collect-only", "-q")
    collected = [line for line in result.stdout.lines if "::" in line]
    assert collected and all(line.split("::")[0].rsplit("/", 1)[-1].startswith("check_") for line in collected)
    assert "test_checks.py" not in result.stdout.str()


def test_without_a_kit_option_the_kit_registers_no_fixture(project: pytest.Pytester) -> None:
    # A project's own run, certification or not asked for: the kit is dormant (tests/test_dormant_plugin.py), so
    # checks written for it find no subject; their markers are known, so nothing warns about them.
    result = project.runpytest_subprocess("test_checks.py", "-rs", "-W", "error::pytest.PytestUnknownMarkWarning")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*fixture 'subject' not found*"])


def test_a_named_check_module_is_collected_once(project: pytest.Pytester) -> None:
    from conformance.certification_plugin import CONTRACTS

    module = sorted((CONTRACTS / "browser").glob("check_*.py"))[0]
    result = project.runpytest_subprocess("--driver=tinydrivers:plain", "--collect-only", "-q", str(module))
    collected = [line for line in result.stdout.lines if "::" in line]
    assert collected, result.stdout.str()
    assert len(collected) == len(set(collected)), "a check was collected twice"


def test_sdk_selects_the_toolset_and_runner_suites_and_check_files_are_collected_in_any_suite(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A stand-in for conformance/contracts: the hook collects check_*.py from every suite folder under it, so a
    # renamed toolset or runner suite is collected by the same rule as the browser one.
    import conformance.certification_plugin

    contracts = pytester.mkdir("contracts")
    for suite, body in (
        ("toolset", "def test_toolset_rule():\n    pass\n"),
        ("runner", "def test_runner_rule():\n    pass\n"),
    ):
        (contracts / suite).mkdir()
        (contracts / suite / f"check_{suite}.py").write_text(body)
        (contracts / suite / "helper.py").write_text("def test_never_collected():\n    raise AssertionError\n")
    (contracts / "browser").mkdir()
    (contracts / "browser" / "check_browser.py").write_text("def test_browser_rule():\n    raise AssertionError\n")
    monkeypatch.setattr(conformance.certification_plugin, "CONTRACTS", contracts)
    result = pytester.runpytest_inprocess("--sdk", "-p", "no:cacheprovider", "-q", "--collect-only")
    collected = sorted(line.split("::")[-1] for line in result.stdout.lines if "::" in line)
    assert collected == ["test_runner_rule", "test_toolset_rule"], result.stdout.str()
