"""The kit's mapping of the Node SDK's checkpoint ledger and the browser toolset's execute options.

The ledger checks (RN-LEDGER-002..006, and the MCP resume check) and the execute-option checks (TS-CONF-010's
``cancelled``, TS-DIAG-001/002's ``on_diagnostic``) run against the npm ``openai`` through this mapping
(:mod:`conformance.node.sdk.ledger`, :mod:`conformance.node.sdk.execute`), tested directly here; the patched
copies of the package that those checks must catch are the ledger family of tests/node/npm_patch_catalogues.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.contracts.toolset._toolsets import function_call, payload
from conformance.node.sdk.ledger import NodeLedger
from conformance.node.sdk.toolsets import NodeBrowserToolset
from conformance.probes import browser_probe
from conformance.rig import checkpoint_ledger

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.node]


def test_a_node_ledger_is_the_node_option_and_refuses_bad_input() -> None:
    saved: list[object] = []
    ledger = checkpoint_ledger("node", "run-7", saved.append)
    assert isinstance(ledger, NodeLedger)
    assert ledger.option() == {"runId": "run-7", "save": saved.append}
    resumed = checkpoint_ledger("node", "run-7", saved.append, {"phase": "boundary"})
    assert isinstance(resumed, NodeLedger) and resumed.option()["resumeFrom"] == {"phase": "boundary"}
    with pytest.raises(ValueError, match="nonempty run ID"):
        NodeLedger("", saved.append)
    with pytest.raises(ValueError, match="save must be callable"):
        NodeLedger("run-7", "not a function")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="resumes from a checkpoint"):
        NodeLedger("run-7", saved.append, ["boundary"])  # type: ignore[arg-type]


def _navigate(declares: bool = False) -> tuple[NodeBrowserToolset, Any]:
    driver = browser_probe("node", ["navigate"], declares_cancelled=declares)
    confirm = driver.log.callback("confirm", flavour="node")
    policy = driver.log.callback("url_policy", flavour="node")
    return NodeBrowserToolset(driver, members=["navigate"], confirm=confirm, url_policy=policy), driver


NAVIGATE = function_call("navigate", {"url": "https://probe.example/next", "tab_id": None})


def test_a_predicate_true_before_the_call_aborts_it_before_any_driver_work() -> None:
    toolset, driver = _navigate()
    with pytest.raises(Exception, match="aborted") as raised:
        toolset.execute(NAVIGATE, cancelled=lambda: True)
    assert getattr(raised.value, "js_class", None) == "AbortError"
    assert driver.log.names() == []


def test_a_predicate_turning_true_in_a_callback_aborts_before_the_next_step() -> None:
    # The predicate reports true once confirm has answered: Node must not run the action.
    toolset, driver = _navigate(declares=True)
    with pytest.raises(Exception, match="aborted"):
        toolset.execute(NAVIGATE, cancelled=lambda: "confirm" in driver.log.names())
    assert driver.log.names() == ["state", "url_policy", "confirm"]


def test_the_call_observer_gets_events_only_during_its_call_and_the_toolset_observer_otherwise() -> None:
    standing: list[dict[str, Any]] = []
    driver = browser_probe("node", ["get_page_text"])
    toolset = NodeBrowserToolset(driver, members=["get_page_text"], on_diagnostic=standing.append)
    read = function_call("get_page_text", {"tab_id": None}, call_id="call-r")
    this_call: list[dict[str, Any]] = []
    assert payload(toolset.execute(read, on_diagnostic=this_call.append))["ok"] is True
    assert [event["call_id"] for event in this_call] == ["call-r"] and standing == []
    toolset.execute(read)
    assert [event["call_id"] for event in standing] == ["call-r"] and len(this_call) == 1
    assert json.dumps(standing[0], default=str).count("get_page_text") == 1  # the member, nothing else of the call


def test_unknown_execute_options_are_refused_like_the_python_toolset_does() -> None:
    toolset, _driver = _navigate()
    with pytest.raises(TypeError, match=r"unknown options \['timeout'\]"):
        toolset.execute(NAVIGATE, timeout=3)
    with pytest.raises(ValueError, match="cancelled must be a predicate"):
        toolset.execute(NAVIGATE, cancelled=True)
    with pytest.raises(ValueError, match="on_diagnostic must be a callable"):
        toolset.execute(NAVIGATE, on_diagnostic=[])


def test_a_raising_predicate_leaves_no_cancellation_behind() -> None:
    toolset, driver = _navigate()

    def broken() -> bool:
        raise RuntimeError("predicate failed")

    with pytest.raises(RuntimeError, match="predicate failed"):
        toolset.execute(NAVIGATE, cancelled=broken)
    assert payload(toolset.execute(NAVIGATE))["ok"] is True
    assert driver.log.names() == ["state", "url_policy", "confirm", "navigate", "state"]
