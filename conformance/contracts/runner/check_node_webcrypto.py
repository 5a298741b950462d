"""The Node runner without Web Crypto: it must refuse to save an MCP declaration rather than save its raw URL.

spec/002 "Stream and resume". Only the Node SDK fingerprints through crypto.subtle.digest; a Python run reports
the clause as not implemented (the Python SDK has no such step). The run goes through its own Node host, started
with a preload that removes globalThis.crypto, so the shared host the other checks use keeps Web Crypto.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Final

import pytest

from conformance.assertions import expect, not_implemented
from conformance.contracts.runner import _node_scenario
from conformance.contracts.runner._scenario import MCP_TOOL, Mode, ScenarioRun, Setup, load, modes
from conformance.node.bridge import NodeHost
from conformance.node.sdk.broker import NodeSdk

# Evaluated before the host's own module: the process then has no Web Crypto at all.
WITHOUT_WEBCRYPTO: Final = "data:text/javascript,Object.defineProperty(globalThis,'crypto',{value:undefined})"


@pytest.fixture
def sdk_without_webcrypto() -> Iterator[NodeSdk]:
    sdk = NodeSdk(NodeHost(node_args=["--import", WITHOUT_WEBCRYPTO]).start())
    try:
        yield sdk
    finally:
        sdk.close()


@pytest.mark.clause("RN-MCP-016")
@pytest.mark.parametrize("mode", modes(ledger=True))
def test_no_raw_mcp_url_is_saved_without_webcrypto(
    mode: Mode, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    if mode.flavour != "node":
        not_implemented(
            "fingerprinting MCP URLs through Web Crypto is the Node runner's; the Python SDK has no Web Crypto"
        )
    sdk: NodeSdk = request.getfixturevalue("sdk_without_webcrypto")
    monkeypatch.setattr(_node_scenario, "shared_sdk", lambda: sdk)
    harness = ScenarioRun(load("mcp-approval"), Setup(run_options={"approve_mcp": lambda item: True}), mode)
    outcome = harness.run(params={"model": "gpt-test", "input": "hi", "tools": [dict(MCP_TOOL)]})
    saved: list[Any] = outcome.checkpoints
    leaked = [checkpoint["phase"] for checkpoint in saved if MCP_TOOL["server_url"] in json.dumps(checkpoint)]
    expect(not leaked, "RN-MCP-016", f"checkpoints saved the raw MCP URL: {leaked}")
    expect(outcome.error is not None, "RN-MCP-016", "a ledger run with MCP went on without Web Crypto")
    expect(outcome.requests == [], "RN-MCP-016", f"{len(outcome.requests)} requests sent without a first save")
