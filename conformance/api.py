"""The kit's public API: the names driver authors and application developers may rely on across releases.

Everything listed in ``__all__`` keeps its name and meaning within a major version (semantic versioning; see
CHANGELOG.md). A name that moves keeps working from its old import for at least one minor release, with a
``DeprecationWarning`` that names the new import. Everything else in the ``conformance`` package is the kit's own
machinery and may change in any release.

The same names are importable from the package itself (``from conformance import Environment``); the package loads
this module only when one of them is first used, so installing the kit costs a project nothing until then.

What is here, by reader:

- a browser driver's factory receives an :class:`Environment` (its hints are :class:`DriverHints`); a computer
  driver's receives a :class:`ComputerEnvironment`; :data:`BrowserDriverFactory` and
  :data:`ComputerDriverFactory` type the factories themselves;
- custom checks use :class:`BrowserSubject` and the typed outcomes (:func:`expect`, :func:`violation`,
  :func:`precondition`, :func:`unverified`, :func:`not_implemented`, :func:`not_provoked`, :func:`not_checked`),
  and let :class:`DriverTimeout` through;
- reading a certificate: :func:`load_certificate` (checked against the shipped schema,
  :data:`CERTIFICATE_SCHEMA_FILE`) gives a typed :class:`Certificate`; :func:`render_certificate` makes its page;
- recording a live run: :func:`record_client`, :func:`record_async_client`, :func:`recorded_run_options`;
- replaying it: :func:`replay_cassette` (and :class:`ReplayReport`), with cassettes read by :func:`load_cassette`;
- writing a cassette by hand: :class:`CassetteBuilder` and its item helpers;
- faking the API in an application's own tests: :class:`CassetteTransport` and :class:`ProbeBrowser`.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from typing import Any, TypeAlias

from conformance.assertions import (
    ClauseViolation,
    expect,
    not_checked,
    not_implemented,
    not_provoked,
    precondition,
    unverified,
    violation,
)
from conformance.cassette_builder import (
    CassetteBuilder,
    computer_call,
    function_call,
    mcp_approval_request,
    mcp_call,
    message,
    reasoning,
    web_search_call,
)
from conformance.cassettes import Cassette, CassetteError
from conformance.cassettes import load as load_cassette
from conformance.cassettes import save as save_cassette
from conformance.certificate_format import SCHEMA_FILE as CERTIFICATE_SCHEMA_FILE
from conformance.certificate_format import Certificate, CertificateFormatError
from conformance.certificate_format import load as load_certificate
from conformance.fake_responses import CassetteTransport
from conformance.harness.computer_environment import ComputerEnvironment
from conformance.harness.environment import DriverHints, Effect, EffectTimeout, Environment, FileGrant, ServedRequest
from conformance.harness.errors import DriverTimeout
from conformance.harness.subject import BrowserSubject, CallOutcome
from conformance.html_report import render_certificate
from conformance.probes import ProbeBrowser
from conformance.recording import record_async_client, record_client, recorded_run_options
from conformance.replay import ReplayError, ReplayReport
from conformance.replay import replay as replay_cassette

# What ``--driver=module:NAME`` names: called with the check's environment, it returns the driver, or a context
# manager, async context manager, generator or async generator yielding it, or an awaitable of any of these. The
# return type is ``Any`` because those forms share no common type a checker could name.
BrowserDriverFactory: TypeAlias = Callable[[Environment], Any]
# What ``--computer-driver=module:NAME`` names, in the same forms, called with the desktop's environment.
ComputerDriverFactory: TypeAlias = Callable[[ComputerEnvironment], Any]


def kit_version() -> str:
    """The installed kit's version (``0.0.0+unknown`` when run from a checkout that was never installed)."""
    try:
        return version("responses-driver-kit")
    except PackageNotFoundError:
        return "0.0.0+unknown"


__all__ = [
    "CERTIFICATE_SCHEMA_FILE",
    "BrowserDriverFactory",
    "BrowserSubject",
    "CallOutcome",
    "Cassette",
    "CassetteBuilder",
    "CassetteError",
    "CassetteTransport",
    "Certificate",
    "CertificateFormatError",
    "ClauseViolation",
    "ComputerDriverFactory",
    "ComputerEnvironment",
    "DriverHints",
    "DriverTimeout",
    "Effect",
    "EffectTimeout",
    "Environment",
    "FileGrant",
    "ProbeBrowser",
    "ReplayError",
    "ReplayReport",
    "ServedRequest",
    "computer_call",
    "expect",
    "function_call",
    "kit_version",
    "load_cassette",
    "load_certificate",
    "mcp_approval_request",
    "mcp_call",
    "message",
    "not_checked",
    "not_implemented",
    "not_provoked",
    "precondition",
    "reasoning",
    "record_async_client",
    "record_client",
    "recorded_run_options",
    "render_certificate",
    "replay_cassette",
    "save_cassette",
    "unverified",
    "violation",
    "web_search_call",
]
