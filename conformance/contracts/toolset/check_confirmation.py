"""Confirmation and URL policy (spec/000 "Confirmation, navigation, and recovery", spec/002 "Approve actions and
own the session", "Restrict URLs")."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance import python_only_reasons as python_only
from conformance.assertions import expect, not_implemented, precondition, violation
from conformance.contracts._answers import NOT_TRUE
from conformance.contracts.toolset._toolsets import (
    VALID_ARGUMENTS,
    browser_toolset,
    callback,
    execute,
    function_call,
    gated,
    payload,
)
from conformance.flavours import Flavour
from conformance.members import ALL_NAMES, BY_NAME, READ_ONLY_NAMES
from conformance.probes import Act, browser_probe

# Members whose calls change state (or read diagnostics) and therefore need confirm.
GATED_NAMES = tuple(name for name in ALL_NAMES if BY_NAME[name].changes_state)
PLAIN_READS = tuple(name for name in READ_ONLY_NAMES)


def _context_url(context: object) -> object:
    """The ``url`` argument a recorded confirm context carries (None when the context has another shape)."""
    arguments = context.get("arguments") if isinstance(context, dict) else None
    return arguments.get("url") if isinstance(arguments, dict) else None


def _refused_with_only(flavour: Flavour, member: str, given: str) -> None:
    """A toolset selecting ``member`` with only the ``given`` callback (confirm or url_policy) is refused when built."""
    driver = browser_probe(flavour, [member])
    with pytest.raises(ValueError):
        browser_toolset(flavour, driver, members=[member], **{given: callback(driver.log, given, flavour)})


@pytest.mark.clause("TS-CONF-001")
@pytest.mark.parametrize("member", GATED_NAMES)
def test_selected_state_changing_member_requires_confirm(flavour: Flavour, member: str) -> None:
    _refused_with_only(flavour, member, "url_policy")


@pytest.mark.clause("TS-CONF-001")
def test_confirm_not_required_for_unselected_members(flavour: Flavour) -> None:
    driver = browser_probe(flavour)
    toolset = browser_toolset(flavour, driver, members=list(PLAIN_READS))
    expect(len(toolset.tools) == len(PLAIN_READS), "TS-CONF-001", "read-only selection was not constructed")


@pytest.mark.clause("TS-CONF-002")
@pytest.mark.parametrize("member", ["navigate", "new_tab"])
def test_navigation_requires_url_policy(flavour: Flavour, member: str) -> None:
    _refused_with_only(flavour, member, "confirm")


@pytest.mark.clause("TS-CONF-003")
@pytest.mark.parametrize("member", ["navigate", "new_tab"])
def test_url_policy_then_confirm_then_driver(flavour: Flavour, member: str) -> None:
    toolset, driver = gated(flavour, [member])
    report = payload(execute(toolset, function_call(member, VALID_ARGUMENTS[member])))
    steps = [name for name in driver.log.names() if name != "state"]
    expect(report.get("ok") is True, "TS-CONF-003", f"approved {member} failed: {report.get('error')}")
    expect(steps == ["url_policy", "confirm", member], "TS-CONF-003", f"order was {steps}")
    _, url = driver.log.of("url_policy")[0].args
    expect(url == VALID_ARGUMENTS[member]["url"], "TS-CONF-003", "url_policy did not receive the requested URL")


@pytest.mark.clause("TS-CONF-003")
@pytest.mark.parametrize("member", ["navigate", "new_tab"])
def test_url_refusal_stops_before_confirm(flavour: Flavour, member: str) -> None:
    toolset, driver = gated(flavour, [member], policy_reply=False)
    report = payload(execute(toolset, function_call(member, VALID_ARGUMENTS[member])))
    steps = [name for name in driver.log.names() if name != "state"]
    expect(report.get("ok") is False and steps == ["url_policy"], "TS-CONF-003", f"URL refusal went on to {steps}")


@pytest.mark.clause("TS-CONF-003")
@pytest.mark.parametrize("member", GATED_NAMES)
def test_confirm_refusal_stops_before_driver(flavour: Flavour, member: str) -> None:
    toolset, driver = gated(flavour, [member], confirm_reply=False)
    report = payload(execute(toolset, function_call(member, VALID_ARGUMENTS[member])))
    expect(report.get("ok") is False, "TS-CONF-003", f"refused {member} reported ok")
    expect(driver.log.count(member) == 0, "TS-CONF-003", f"refused {member} reached the driver")
    expect(driver.log.count("confirm") == 1, "TS-CONF-003", f"{member} asked confirm {driver.log.count('confirm')}x")


@pytest.mark.clause("TS-CONF-004")
@pytest.mark.parametrize("reply", sorted(NOT_TRUE))
@pytest.mark.parametrize("which", ["confirm", "url_policy"])
def test_only_exactly_true_approves(flavour: Flavour, reply: str, which: str) -> None:
    answer = NOT_TRUE[reply]
    if which == "confirm":
        toolset, driver = gated(flavour, ["navigate"], confirm_reply=answer)
    else:
        toolset, driver = gated(flavour, ["navigate"], policy_reply=answer)
    report = payload(execute(toolset, function_call("navigate", VALID_ARGUMENTS["navigate"])))
    expect(
        report.get("ok") is False and driver.log.count("navigate") == 0,
        "TS-CONF-004",
        f"{which} returning {answer!r} let navigate run",
    )


@pytest.mark.clause("TS-CONF-004", "TS-CONF-007")
@pytest.mark.parametrize("reply", ["one", "yes", "none", "raises"])
def test_only_exactly_true_approves_protected_reads(flavour: Flavour, reply: str) -> None:
    toolset, driver = gated(
        flavour,
        ["get_page_text"],
        confirm_reply=NOT_TRUE[reply],
        confirm_reads=["get_page_text"],
    )
    report = payload(execute(toolset, function_call("get_page_text", {"tab_id": None})))
    expect(
        report.get("ok") is False and driver.log.names() == ["confirm"],
        "TS-CONF-004",
        f"confirm returning {NOT_TRUE[reply]!r} led to {driver.log.names()}",
    )


@pytest.mark.clause("TS-CONF-005")
def test_callbacks_get_detached_copies(flavour: Flavour) -> None:
    def tamper(context: Any, *rest: Any) -> bool:
        context["arguments"]["url"] = "https://attacker.example/"
        context["member"] = "close_tab"
        context["state"]["tabs"].clear()
        return True

    async def tamper_async(context: Any, *rest: Any) -> bool:
        return tamper(context)

    driver = browser_probe(flavour, ["navigate"])
    log = driver.log
    hook = tamper_async if flavour == "async" else tamper
    policy = log.callback("url_policy", Act(lambda context: hook(context)), flavour=flavour)
    confirm = log.callback("confirm", Act(lambda context: hook(context)), flavour=flavour)
    toolset = browser_toolset(flavour, driver, members=["navigate"], confirm=confirm, url_policy=policy)
    report = payload(execute(toolset, function_call("navigate", VALID_ARGUMENTS["navigate"], call_id="call-77")))
    sent = driver.log.of("navigate")
    expect(report.get("ok") is True and len(sent) == 1, "TS-CONF-005", "navigate did not run after approval")
    expect(
        sent[0].argument == VALID_ARGUMENTS["navigate"],
        "TS-CONF-005",
        f"edits made by a callback reached the driver: {sent[0].argument}",
    )
    seen = log.of("confirm")[0].argument
    expect(
        isinstance(seen, dict)
        and seen.get("call_id") == "call-77"
        and seen.get("member") == "navigate"
        and seen.get("arguments") == VALID_ARGUMENTS["navigate"]
        and isinstance(seen.get("state"), dict),
        "TS-CONF-005",
        f"confirm context lacks call_id/member/arguments/state: {seen}",
    )
    expect(
        _context_url(log.of("confirm")[0].argument) == VALID_ARGUMENTS["navigate"]["url"],
        "TS-CONF-005",
        "url_policy's edit showed up in the context handed to confirm",
    )


@pytest.mark.clause("TS-CONF-006")
@pytest.mark.parametrize("member", [name for name in PLAIN_READS if name != "list_tabs"] + ["list_tabs"])
def test_reads_do_not_ask_confirm_by_default(flavour: Flavour, member: str) -> None:
    toolset, driver = gated(flavour, [member])
    report = payload(execute(toolset, function_call(member, VALID_ARGUMENTS[member])))
    expect(
        report.get("ok") is True and driver.log.count("confirm") == 0,
        "TS-CONF-006",
        f"read {member} asked confirm without confirm_reads",
    )


@pytest.mark.clause("TS-CONF-007")
@pytest.mark.parametrize("member", PLAIN_READS)
def test_confirm_reads_asks_before_any_state_read(flavour: Flavour, member: str) -> None:
    toolset, driver = gated(flavour, [member], confirm_reads=[member])
    report = payload(execute(toolset, function_call(member, VALID_ARGUMENTS[member], call_id="call-9")))
    names = driver.log.names()
    expect(
        report.get("ok") is True and names and names[0] == "confirm",
        "TS-CONF-007",
        f"protected {member} did not ask confirm first: {names}",
    )
    context = driver.log.of("confirm")[0].argument
    expect(
        isinstance(context, dict)
        and context.get("phase") == "before_read"
        and context.get("state") is None
        and context.get("member") == member
        and context.get("call_id") == "call-9"
        and context.get("arguments") == VALID_ARGUMENTS[member],
        "TS-CONF-007",
        f"read confirm context is not before_read with no state: {context}",
    )


@pytest.mark.clause("TS-CONF-007")
@pytest.mark.parametrize("member", PLAIN_READS)
def test_refused_protected_read_returns_no_state(flavour: Flavour, member: str) -> None:
    toolset, driver = gated(flavour, [member], confirm_reply=False, confirm_reads=[member])
    report = payload(execute(toolset, function_call(member, VALID_ARGUMENTS[member])))
    expect(
        report.get("ok") is False and "state" not in report and "result" not in report,
        "TS-CONF-007",
        f"refused protected {member} returned {sorted(report)}",
    )
    expect(driver.log.names() == ["confirm"], "TS-CONF-007", f"refused protected read reached {driver.log.names()}")


@pytest.mark.clause("TS-CONF-007")
def test_protected_read_refusals_share_one_fixed_text(flavour: Flavour) -> None:
    """Refusal, a raising callback and an invalid call all return the same fixed text: nothing call-specific."""
    texts: set[str] = set()
    for reply, arguments in (
        (False, {"tab_id": None}),
        (RuntimeError("denied"), {"tab_id": "tab-1"}),
        (True, {"tab_id": 7}),
    ):
        toolset, _ = gated(flavour, ["get_page_text"], confirm_reply=reply, confirm_reads=["get_page_text"])
        output = execute(toolset, function_call("get_page_text", arguments, call_id=f"call-{len(texts)}"))
        texts.add(json.dumps(output["output"]))
    expect(len(texts) == 1, "TS-CONF-007", f"protected-read refusals differ: {sorted(texts)}")


CONFIRM_READS_ERRORS: dict[str, Any] = {
    "mutator": ["click"],
    "unselected-read": ["find"],
    "diagnostics": ["read_diagnostics"],
    "duplicate": ["get_page_text", "get_page_text"],
    "unknown": ["read_cookies"],
}


@pytest.mark.clause("TS-CONF-008")
@pytest.mark.parametrize("case", sorted(CONFIRM_READS_ERRORS))
def test_confirm_reads_lists_only_registered_reads(flavour: Flavour, case: str) -> None:
    members = ["get_page_text", "click", "find", "read_diagnostics"]
    driver = browser_probe(flavour, members)
    confirm = callback(driver.log, "confirm", flavour)
    selected = [name for name in members if name != "find"]
    reads = CONFIRM_READS_ERRORS[case]
    if flavour == "node" and case == "diagnostics":
        # The Node declarations type every member that changes nothing as a read member, read_diagnostics
        # included, so there it is a registered read that confirmReads may name (TS-CONF-013 checks its approval).
        try:
            browser_toolset(flavour, driver, members=selected, confirm=confirm, confirm_reads=reads)
        except ValueError as error:
            violation("TS-CONF-008", f"confirmReads naming the registered read read_diagnostics was refused: {error}")
        return
    with pytest.raises(ValueError):
        browser_toolset(flavour, driver, members=selected, confirm=confirm, confirm_reads=reads)


# A sync toolset that never awaits an async callback's coroutine makes Python warn; that is the expected path.
@pytest.mark.python_sdk_only(python_only.FLAVOUR_RULES)
@pytest.mark.filterwarnings("ignore:coroutine .* was never awaited:RuntimeWarning")
@pytest.mark.clause("TS-CONF-009")
@pytest.mark.parametrize("which", ["confirm", "url_policy"])
def test_callbacks_must_match_the_toolset_flavour(flavour: Flavour, which: str) -> None:
    """A callback of the other flavour must never approve: construction refuses it or the call is refused."""
    other: Flavour = "async" if flavour == "sync" else "sync"
    driver = browser_probe(flavour, ["navigate"])
    callbacks = {
        "confirm": callback(driver.log, "confirm", other if which == "confirm" else flavour),
        "url_policy": callback(driver.log, "url_policy", other if which == "url_policy" else flavour),
    }
    try:
        toolset = browser_toolset(flavour, driver, members=["navigate"], **callbacks)
    except (TypeError, ValueError):
        return
    report = payload(execute(toolset, function_call("navigate", VALID_ARGUMENTS["navigate"])))
    expect(
        report.get("ok") is False and driver.log.count("navigate") == 0,
        "TS-CONF-009",
        f"a {other} {which} on a {flavour} toolset approved navigate",
    )


@pytest.mark.clause("TS-CONF-010")
@pytest.mark.parametrize("declares", [True, False], ids=["declares", "plain"])
def test_cancelled_passed_only_when_declared(flavour: Flavour, declares: bool) -> None:
    member = "navigate"
    driver = browser_probe(flavour, [member], declares_cancelled=declares)
    confirm = driver.log.callback("confirm", flavour=flavour, declares_cancelled=declares)
    policy = driver.log.callback("url_policy", flavour=flavour, declares_cancelled=declares)
    toolset = browser_toolset(flavour, driver, members=[member], confirm=confirm, url_policy=policy)
    predicate_calls: list[int] = []

    def cancelled() -> bool:
        predicate_calls.append(1)
        return False

    report = payload(execute(toolset, function_call(member, VALID_ARGUMENTS[member]), cancelled=cancelled))
    expect(report.get("ok") is True, "TS-CONF-010", f"call failed with cancelled supplied: {report.get('error')}")
    names = driver.log.names()
    expect(names == ["state", "url_policy", "confirm", member, "state"], "TS-CONF-010", f"unexpected calls {names}")
    passed = {call.name: call.cancelled_passed for call in driver.log.calls}
    expect(
        all(flag is declares for flag in passed.values()),
        "TS-CONF-010",
        f"cancelled passed={passed} but callables {'do' if declares else 'do not'} declare it",
    )
    if declares:
        predicate = driver.log.of(member)[0].cancelled
        expect(callable(predicate) and predicate() is False, "TS-CONF-010", "the passed cancelled is not a predicate")


@pytest.mark.clause("TS-CONF-010")
def test_protected_read_confirm_gets_cancelled_only_when_declared(flavour: Flavour) -> None:
    for declares in (True, False):
        driver = browser_probe(flavour, ["get_page_text"])
        confirm = driver.log.callback("confirm", flavour=flavour, declares_cancelled=declares)
        toolset = browser_toolset(
            flavour, driver, members=["get_page_text"], confirm=confirm, confirm_reads=["get_page_text"]
        )
        execute(toolset, function_call("get_page_text", {"tab_id": None}), cancelled=lambda: False)
        expect(
            driver.log.of("confirm")[0].cancelled_passed is declares,
            "TS-CONF-010",
            f"read confirm (declares={declares}) got cancelled={not declares}",
        )


@pytest.mark.clause("TS-CONF-011")
def test_blank_new_tab_asks_confirm_without_url_policy(flavour: Flavour) -> None:
    toolset, driver = gated(flavour, ["new_tab"])
    report = payload(execute(toolset, function_call("new_tab", {"url": None})))
    steps = [name for name in driver.log.names() if name != "state"]
    expect(
        report.get("ok") is True and steps == ["confirm", "new_tab"],
        "TS-CONF-011",
        f"blank new_tab went through {steps}",
    )


RAW_URL = "https://agent:hunter2@probe.example:8443/account/secret?token=abc123#pin"
PROJECTED_ORIGIN = "https://probe.example:8443"


@pytest.mark.clause("TS-CONF-012")
@pytest.mark.parametrize("member", ["click", "navigate"])
def test_callbacks_see_the_projected_state(flavour: Flavour, member: str) -> None:
    # A driver that reports the raw URL (credentials, path, query) must not leak it to consent code either: the
    # callbacks get the state the model would be shown, reduced to the origin.
    state = {"tabs": [{"id": "tab-1", "title": "Account", "url": RAW_URL, "active": True}]}
    toolset, driver = gated(flavour, [member], replies={"state": state})
    report = payload(execute(toolset, function_call(member, VALID_ARGUMENTS[member])))
    precondition(report.get("ok") is True, "TS-CONF-003", f"an approved {member} did not run: {report.get('error')}")
    for name in ("confirm", "url_policy") if member == "navigate" else ("confirm",):
        calls = driver.log.of(name)
        precondition(len(calls) == 1, "TS-CONF-001", f"{name} was called {len(calls)} times for one {member}")
        seen = calls[0].argument
        tabs = seen.get("state", {}).get("tabs", []) if isinstance(seen, dict) else []
        urls = [tab.get("url") for tab in tabs if isinstance(tab, dict)]
        expect(urls == [PROJECTED_ORIGIN], "TS-CONF-012", f"{name} saw tab URLs {urls}, not the projected origin")
        leaked = [secret for secret in ("hunter2", "agent", "secret", "abc123") if secret in json.dumps(seen)]
        expect(leaked == [], "TS-CONF-012", f"{name}'s context carries {leaked} from the driver's raw URL")


@pytest.mark.clause("TS-CONF-007")
@pytest.mark.parametrize("member", ["get_page_text", "screenshot"])
def test_protected_read_without_confirm_never_runs(flavour: Flavour, member: str) -> None:
    # Nothing can approve a protected read when there is no confirm: the toolset is refused at construction or
    # the read is refused each time, before any state read or driver call.
    driver = browser_probe(flavour, [member])
    try:
        toolset = browser_toolset(flavour, driver, members=[member], confirm_reads=[member])
    except ValueError:
        return
    report = payload(execute(toolset, function_call(member, VALID_ARGUMENTS[member])))
    expect(report.get("ok") is False, "TS-CONF-007", f"protected {member} ran without any confirm callback")
    expect(driver.log.names() == [], "TS-CONF-007", f"protected {member} without confirm reached {driver.log.names()}")


@pytest.mark.clause("TS-CONF-013")
def test_read_diagnostics_is_a_protectable_read_on_node(flavour: Flavour) -> None:
    if flavour != "node":
        not_implemented(
            "the Python guide admits only the protectable reads in confirm_reads (TS-CONF-008); read_diagnostics "
            "as a read member is the Node declarations' rule"
        )
    try:
        toolset, driver = gated(flavour, ["read_diagnostics"], confirm_reads=["read_diagnostics"])
    except ValueError as error:
        violation("TS-CONF-013", f"confirmReads naming read_diagnostics was refused: {error}")
    arguments = VALID_ARGUMENTS["read_diagnostics"]
    payload(execute(toolset, function_call("read_diagnostics", arguments, call_id="call-diag")))
    names = driver.log.names()
    expect(names[:1] == ["confirm"], "TS-CONF-013", f"protected read_diagnostics did not ask confirm first: {names}")
    context = driver.log.of("confirm")[0].argument
    expect(
        isinstance(context, dict) and context.get("phase") == "before_read" and context.get("state") is None,
        "TS-CONF-013",
        f"read_diagnostics' confirm context is not before_read with no state: {context}",
    )
