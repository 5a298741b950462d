"""responses-driver-kit: conformance checks for drivers of the OpenAI SDK browser and computer helpers.

The public names (see :mod:`conformance.api`) are importable from here. They are loaded on first use, not when the
package is imported: pytest imports this package for the kit's plugin in every run of a project that has the kit
installed, and that run must not pay for openai, Playwright or hypothesis unless it certifies something.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from conformance.api import *  # noqa: F403


# conformance.api.__all__, known without importing it: ``from conformance import reporting`` asks the package for
# the attribute before importing the submodule, and answering that by loading the API would import the harness in
# the middle of importing the harness. A test holds the two lists equal.
PUBLIC_NAMES: Final = frozenset(
    {
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
    }
)


def __getattr__(name: str) -> Any:
    if name in PUBLIC_NAMES:
        return getattr(importlib.import_module("conformance.api"), name)
    raise AttributeError(f"module 'conformance' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *PUBLIC_NAMES})
