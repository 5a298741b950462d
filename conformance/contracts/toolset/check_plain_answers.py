"""Plain answers in Node (spec/004 "BrowserDriver", "BrowserOptions"): driver methods, state(), confirm and
urlPolicy may answer with a plain value as well as a promise of one.

Every other toolset check reaches the Node SDK through Python callables, which always answer with a promise; these
use a Node object whose methods answer synchronously (the kit's ``plainObject``) so the plain form is exercised.
The Python SDK has no such pair of forms (its sync/async flavours are check_flavour.py's).
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.assertions import expect, not_implemented
from conformance.contracts.toolset._toolsets import VALID_ARGUMENTS, function_call, payload
from conformance.flavours import Flavour
from conformance.node.sdk.broker import shared_sdk

PLAIN_STATE = {"tabs": [{"id": "tab-1", "title": "Plain", "url": "https://plain.example/", "active": True}]}
PLAIN_REPLIES: dict[str, Any] = {
    "state": PLAIN_STATE,
    "get_page_text": "plain page text",
    "click": "clicked",
    "navigate": None,
}


@pytest.mark.clause("TS-FLAV-003")
@pytest.mark.parametrize("member", ["get_page_text", "click", "navigate"])
def test_node_honours_plain_answers(flavour: Flavour, member: str) -> None:
    if flavour != "node":
        not_implemented("plain answers beside promises are the Node SDK's form; Python's flavours are TS-FLAV-001/002")
    sdk = shared_sdk()
    made = sdk.invoke("plainObject", {"replies": PLAIN_REPLIES})
    options = sdk.invoke("plainObject", {"replies": {"confirm": True, "urlPolicy": True}})
    toolset = sdk.construct(
        "BrowserToolset", made["object"], {"members": ["get_page_text", "click", "navigate"], **_plain(options)}
    )
    output = toolset.call("execute", function_call(member, VALID_ARGUMENTS[member]))
    report = payload(output)
    calls = list(sdk.invoke("get", {"target": made["log"], "name": "calls"}))
    expect(report.get("ok") is True, "TS-FLAV-003", f"browser_{member} with plain answers failed: {report}")
    expect(member in calls, "TS-FLAV-003", f"browser_{member} never reached the driver: {calls}")
    expect(
        report.get("result") == PLAIN_REPLIES[member],
        "TS-FLAV-003",
        f"browser_{member}'s plain result came back as {report.get('result')!r}",
    )
    if member != "get_page_text":
        answered = list(sdk.invoke("get", {"target": options["log"], "name": "calls"}))
        expect("confirm" in answered, "TS-FLAV-003", f"browser_{member} ran without asking confirm: {answered}")


def _plain(options: Any) -> dict[str, Any]:
    # The plain callbacks live on a Node object; the toolset takes them as its confirm and urlPolicy options.
    sdk = shared_sdk()
    return {name: sdk.invoke("get", {"target": options["object"], "name": name}) for name in ("confirm", "urlPolicy")}
