"""The driverkit pytest plugin, as every pytest run of a project with the kit installed loads it: dormant.

Registered through the ``pytest11`` entry point, so ``pytest --driver=mypkg:make_driver`` works in any project.
Until a run asks for the kit, this module only declares the kit's options: it imports nothing heavy (no openai,
Playwright, hypothesis or Node host), registers no fixture, marker or hook that acts, and adds nothing to the
run's output. A run asks for the kit with ``--driver``, ``--computer-driver``, ``--sdk``, ``--node-sdk``,
``--execution-service`` or ``--certificate``, or by naming a path or module inside the kit's checks (``pytest --pyargs
conformance.contracts.toolset``); then :mod:`conformance.certification_plugin` is registered, the way pytest's own
junitxml and pytest-xdist register their machinery only when asked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import pytest

from conformance.explore import options as explore_options
from conformance.options import DEFAULT_DRIVER_TIMEOUT, DEFAULT_SCREEN_SIZE, EVIDENCE_MODES, EXECUTION_TOKEN_VARIABLE

# Options that ask for a certification (or write one) and so wake the kit.
WAKING_OPTIONS: Final = ("--driver", "--computer-driver", "--sdk", "--node-sdk", "--execution-service", "--certificate")
PACKAGE: Final = Path(__file__).resolve().parent
CERTIFICATION_PLUGIN: Final = "driverkit-certification"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("driverkit", "driver conformance (responses-driver-kit)")
    group.addoption(
        "--driver",
        metavar="MODULE:FACTORY",
        help="certify the browser driver made by FACTORY(env); runs the bundled browser contract checks. "
        "node:PATH#EXPORT certifies a JavaScript or TypeScript driver through the Node SDK",
    )
    group.addoption(
        "--computer-driver",
        metavar="MODULE:FACTORY",
        help="certify the computer driver made by FACTORY(env) on a desktop showing the kit's input recorder page. "
        "node:PATH#EXPORT certifies a JavaScript or TypeScript computer driver through the Node SDK",
    )
    group.addoption(
        "--sdk",
        action="store_true",
        help="check the installed SDK's toolsets and runners against recorded streams (the toolset and runner suites)",
    )
    # A flag of its own rather than --sdk=node: an optional value would swallow a path after --sdk.
    group.addoption(
        "--node-sdk",
        action="store_true",
        help="check the npm openai installed with the kit instead (the runner scenarios through the Node SDK; checks "
        "with no Node form are reported not checked); driverkit certify --sdk=node runs this",
    )
    group.addoption(
        "--execution-service",
        metavar="URL",
        help="certify the code-execution service whose endpoint is URL (the address requests are POSTed to) over its "
        "HTTP protocol; runs the bundled execution checks",
    )
    # The token never travels on the command line, where other users could read it in the process list.
    group.addoption(
        "--execution-token-env",
        metavar="NAME",
        default=EXECUTION_TOKEN_VARIABLE,
        help=f"the environment variable that holds the execution service's bearer token "
        f"(default {EXECUTION_TOKEN_VARIABLE})",
    )
    group.addoption(
        "--desktop",
        choices=("local", "docker"),
        default="local",
        help="where computer checks run: Xvfb on this host (default) or the kit/desktop container",
    )
    group.addoption(
        "--fixture-host",
        metavar="ADDRESS[,NAME]",
        default=None,
        help="serve the browser checks' fixture pages on ADDRESS (an IP of this machine, or 0.0.0.0 with a NAME) "
        "and load them as http://NAME:PORT/ (default NAME: ADDRESS), for a browser in a container or on another "
        "machine; default 127.0.0.1",
    )
    group.addoption(
        "--certificate",
        metavar="DIR",
        help="write certificate.json, certificate.md and certificate.html (with evidence of failures) into DIR",
    )
    group.addoption(
        "--evidence",
        choices=EVIDENCE_MODES,
        default=None,
        help="evidence of failed and unverified checks in the certificate: 'rerun' (default with --certificate) runs "
        "such a check once more with a screenshot before each step while reruns stay within 5%% of the run's time, "
        "'rerun-all' reruns every one, 'first-run' shows only what its run saw, 'off' none; without --certificate "
        "there is none",
    )
    group.addoption(
        "--driver-timeout",
        metavar="SECONDS",
        type=float,
        default=None,
        help=f"deadline of every call into the driver (factory, state, members, cleanup); default: the "
        f"driverkit_driver_timeout ini value, else {DEFAULT_DRIVER_TIMEOUT:g} s (twice the contract's longest wait)",
    )
    group.addoption(
        "--factory-timeout",
        metavar="SECONDS",
        type=float,
        default=None,
        help="deadline of the driver factory (it may start a browser); default: the driverkit_factory_timeout ini "
        "value, else twice the driver deadline",
    )
    group.addoption(
        "--screen-size",
        metavar="WIDTHxHEIGHT",
        default=None,
        help=f"the computer desktop's screen size (default {DEFAULT_SCREEN_SIZE}); the computer checks scale to it",
    )
    # --explore and --explore-seed: the browser suite's exploration check (conformance.explore) reads them.
    explore_options.add_options(group)
    parser.addini(
        "driverkit_driver_timeout",
        f"deadline in seconds of every call into a certified driver (default {DEFAULT_DRIVER_TIMEOUT:g})",
        default=None,
    )
    parser.addini(
        "driverkit_factory_timeout",
        "deadline in seconds of the driver factory (default: twice the driver deadline)",
        default=None,
    )


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    # A driver shares the process it is certified in: one that ends it (os._exit, a crash in a native library)
    # would take the run and its certificate down with it. So a serial certification runs its checks in one
    # pytest-xdist worker, whose death the run survives and reports ("not fully checked"); -n 0 keeps them in this
    # process (for a debugger, say), as do --pdb and runs without pytest-xdist. A computer driver is first made
    # inside a check: a factory that never works stops its worker, and the run with it, through xdist's shouldstop
    # (conformance.harness.fixtures.stop_the_run), so the run still ends as one usage error.
    if not (config.getoption("--driver", None) or config.getoption("--computer-driver", None)):
        return
    if getattr(config.option, "numprocesses", "no xdist") is not None or _is_xdist_worker(config):
        return
    if config.getoption("usepdb", False) or config.getoption("collectonly", False):
        return
    config.option.numprocesses = 1
    config.option.dist = "load"
    config.option.tx = ["popen"]


def requested(config: pytest.Config) -> bool:
    """Whether this run asks for the kit: a waking option, or an argument inside the kit's package."""
    if any(config.getoption(option, None) for option in WAKING_OPTIONS):
        return True
    pyargs = bool(config.getoption("pyargs", False))
    for argument in config.args:
        target = str(argument).split("::", 1)[0]
        if pyargs and (target == "conformance" or target.startswith("conformance.")):
            return True
        try:
            Path(config.invocation_params.dir, target).resolve().relative_to(PACKAGE)
        except (ValueError, OSError):
            continue
        return True
    return False


# The markers a check uses, declared in every run (a line of text each, nothing loaded), so a project's own checks
# never draw "unknown mark" warnings however they are run.
MARKERS: Final = (
    "clause(*ids): the contract clauses a check verifies",
    "covers(*ids): clauses a check also covers, blamed only by name",
    "page(name): the fixture page a browser check starts on",
    "hints(**fields): DriverHints the check asks the driver factory for",
    "requires(*ids): clauses a check relies on; when one fails elsewhere, its failure is blocked by it",
    "known_deviation(clause, id): set by the known-deviation file, not by hand",
    "node_sdk: a check without a mode parameter that also runs on --node-sdk",
    "python_sdk_only(why): a check of what only the Python SDK has; not implemented on --node-sdk, with why",
    "driverkit_outcome(kind, detail): the check ends so at setup (set by the kit)",
)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    # tryfirst: the kit's hypothesis profiles must exist before hypothesis's own plugin resolves
    # --hypothesis-profile in its pytest_configure.
    for marker in MARKERS:
        config.addinivalue_line("markers", marker)
    refuse_evidence_without_certificate(config)
    if not requested(config) or config.pluginmanager.has_plugin(CERTIFICATION_PLUGIN):
        return
    from conformance import certification_plugin
    from conformance.hypothesis_profiles import register_profiles

    register_profiles()
    # pytest_configure is a historic hook: the plugin's own pytest_configure runs as it is registered.
    config.pluginmanager.register(certification_plugin, CERTIFICATION_PLUGIN)


def refuse_evidence_without_certificate(config: pytest.Config) -> None:
    """Evidence asked of a run that writes no certificate would go nowhere: refuse it before anything is collected
    (the kit may be dormant then, and the project's own tests would otherwise run as if nothing was asked)."""
    given = config.getoption("--evidence", None)
    if given is not None and given != "off" and not config.getoption("--certificate", None):
        raise pytest.UsageError(f"--evidence={given}: evidence is written only into a certificate; give --certificate")


def _is_xdist_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")
