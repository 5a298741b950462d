"""Member selection rules and their errors (spec/000 "Driver contract", spec/002 "Select methods")."""

from __future__ import annotations

from typing import Any

import pytest
from openai.lib import browser as sdk_browser
from openai.lib.browser import BrowserError

from conformance.assertions import expect
from conformance.contracts.toolset._toolsets import (
    VALID_ARGUMENTS,
    browser_toolset,
    execute,
    function_call,
    payload,
)
from conformance.flavours import Flavour
from conformance.members import ALL_NAMES, DEFAULT_NAMES, DRIVER_METHOD_NAMES, OPT_IN_NAMES, READ_ONLY_NAMES
from conformance.node.sdk.broker import shared_sdk
from conformance.probes import browser_probe


def _names(toolset: Any) -> list[str]:
    return [tool["name"].removeprefix("browser_") for tool in toolset.tools]


def _approving(flavour: Flavour, driver: Any) -> dict[str, Any]:
    return {
        "confirm": driver.log.callback("confirm", flavour=flavour),
        "url_policy": driver.log.callback("url_policy", flavour=flavour),
    }


@pytest.mark.clause("TS-SEL-001", "TS-SEL-012")
def test_state_only_driver_exposes_list_tabs(flavour: Flavour) -> None:
    driver = browser_probe(flavour, [])
    toolset = browser_toolset(flavour, driver)
    expect(_names(toolset) == ["list_tabs"], "TS-SEL-001", f"state-only driver exposes {_names(toolset)}")


@pytest.mark.clause("TS-SEL-001")
def test_default_selection_is_the_implemented_defaults(flavour: Flavour) -> None:
    implemented = ["get_page_text", "screenshot", "click"]
    driver = browser_probe(flavour, implemented)
    toolset = browser_toolset(flavour, driver, **_approving(flavour, driver))
    wanted = [name for name in DEFAULT_NAMES if name in (*implemented, "list_tabs")]
    expect(_names(toolset) == wanted, "TS-SEL-001", f"expected {wanted}, got {_names(toolset)}")


@pytest.mark.clause("TS-SEL-002")
def test_opt_in_members_stay_off_by_default(flavour: Flavour) -> None:
    driver = browser_probe(flavour, DRIVER_METHOD_NAMES)
    toolset = browser_toolset(flavour, driver, **_approving(flavour, driver))
    exposed = set(_names(toolset)) & set(OPT_IN_NAMES)
    expect(not exposed, "TS-SEL-002", f"opt-in members exposed by default: {sorted(exposed)}")


@pytest.mark.clause("TS-SEL-003")
def test_members_picks_the_complete_set(flavour: Flavour) -> None:
    driver = browser_probe(flavour, DRIVER_METHOD_NAMES)
    chosen = ["screenshot", "click_at", "drag_path", "hold_keys"]
    toolset = browser_toolset(flavour, driver, members=chosen, **_approving(flavour, driver))
    expect(_names(toolset) == chosen, "TS-SEL-003", f"members={chosen} exposes {_names(toolset)}")
    empty = browser_toolset(flavour, driver, members=[])
    expect(empty.tools == [], "TS-SEL-003", "members=[] still exposes tools")


@pytest.mark.clause("TS-SEL-003", "TS-SEL-010")
def test_empty_members_disables_list_tabs_before_state(flavour: Flavour) -> None:
    driver = browser_probe(flavour, [])
    toolset = browser_toolset(flavour, driver, members=[])
    with pytest.raises(BrowserError):
        execute(toolset, function_call("list_tabs", {}))
    expect(driver.log.names() == [], "TS-SEL-010", f"disabled call reached {driver.log.names()}")


@pytest.mark.clause("TS-SEL-004")
def test_additional_members_keep_implemented_defaults(flavour: Flavour) -> None:
    driver = browser_probe(flavour, ["read_page", "read_page_scoped", "hover_at", "click"])
    toolset = browser_toolset(
        flavour, driver, additional_members=["read_page_scoped", "hover_at"], **_approving(flavour, driver)
    )
    wanted = ["read_page", "click", "list_tabs", "hover_at", "read_page_scoped"]
    expect(_names(toolset) == wanted, "TS-SEL-004", f"expected {wanted}, got {_names(toolset)}")


BAD_NAMES: dict[str, object] = {
    "unknown": ["read_page", "open_devtools"],
    "duplicate": ["read_page", "read_page"],
    "tool-name": ["browser_read_page"],
}


@pytest.mark.clause("TS-SEL-005")
@pytest.mark.parametrize("option", ["members", "additional_members"])
@pytest.mark.parametrize("case", sorted(BAD_NAMES))
def test_unknown_or_duplicate_names_are_rejected(flavour: Flavour, option: str, case: str) -> None:
    driver = browser_probe(flavour, DRIVER_METHOD_NAMES)
    with pytest.raises(ValueError):
        browser_toolset(flavour, driver, **{option: BAD_NAMES[case]}, **_approving(flavour, driver))
    expect(driver.log.names() == [], "TS-SEL-005", "construction called the driver")


@pytest.mark.clause("TS-SEL-006")
@pytest.mark.parametrize("option", ["members", "additional_members"])
@pytest.mark.parametrize("missing", ["get_page_text", "read_page_scoped", "run_script"])
def test_unimplemented_selection_is_rejected(flavour: Flavour, option: str, missing: str) -> None:
    driver = browser_probe(flavour, ["read_page"])
    with pytest.raises(ValueError):
        browser_toolset(flavour, driver, **{option: [missing]}, **_approving(flavour, driver))


@pytest.mark.clause("TS-SEL-006")
def test_list_tabs_needs_only_state(flavour: Flavour) -> None:
    driver = browser_probe(flavour, [])
    toolset = browser_toolset(flavour, driver, members=["list_tabs"])
    expect(_names(toolset) == ["list_tabs"], "TS-SEL-006", "list_tabs was not exposed for a state-only driver")


@pytest.mark.clause("TS-SEL-007")
@pytest.mark.parametrize("lists", [([], []), (["read_page"], ["read_page_scoped"])], ids=["empty", "nonempty"])
def test_members_and_additional_members_together_are_rejected(
    flavour: Flavour, lists: tuple[list[str], list[str]]
) -> None:
    driver = browser_probe(flavour, ["read_page", "read_page_scoped"])
    with pytest.raises(ValueError):
        browser_toolset(flavour, driver, members=lists[0], additional_members=lists[1])


@pytest.mark.clause("TS-SEL-008")
@pytest.mark.parametrize("option", ["members", "additional_members"])
def test_selection_is_copied_at_construction(flavour: Flavour, option: str) -> None:
    driver = browser_probe(flavour, ["read_page", "read_page_scoped", "find"])
    chosen = ["read_page_scoped"]
    toolset = browser_toolset(flavour, driver, **{option: chosen})
    before = _names(toolset)
    chosen.append("find")
    chosen.append("read_page")
    expect(_names(toolset) == before, "TS-SEL-008", "changing the caller's list changed the exposed tools")


def _vocabulary(flavour: Flavour, name: str) -> tuple[tuple[Any, ...], bool]:
    """The SDK's exported member list ``name`` and whether the caller cannot change it: a tuple in Python, a
    frozen array in Node (the npm package's own export, read in Node, not the Python module's)."""
    if flavour == "node":
        found = shared_sdk().invoke("exported", {"name": name})
        value = found["value"]
        return tuple(value) if isinstance(value, list) else (value,), bool(found["array"] and found["frozen"])
    value = getattr(sdk_browser, name)
    return tuple(value), type(value) is tuple


@pytest.mark.clause("TS-SEL-009")
def test_exported_member_tuples_are_the_documented_vocabulary(flavour: Flavour) -> None:
    # The vocabulary is the same for both Python flavours; the flavour parameter keeps this check in every
    # suite form, and on the Node SDK reads its exports.
    every, every_fixed = _vocabulary(flavour, "BROWSER_MEMBERS")
    defaults, defaults_fixed = _vocabulary(flavour, "DEFAULT_BROWSER_MEMBERS")
    expect(every_fixed and defaults_fixed, "TS-SEL-009", "member vocabularies can be changed by the caller")
    if flavour == "node":
        # The declarations give the Node lists no order (BrowserMember is a key union), only their names, once each.
        every, defaults = tuple(sorted(every)), tuple(sorted(defaults))
        wanted, wanted_defaults = tuple(sorted(ALL_NAMES)), tuple(sorted(DEFAULT_NAMES))
    else:
        wanted, wanted_defaults = ALL_NAMES, DEFAULT_NAMES
    expect(every == wanted, "TS-SEL-009", f"BROWSER_MEMBERS differs from the documents: {every}")
    expect(defaults == wanted_defaults, "TS-SEL-009", f"DEFAULT_BROWSER_MEMBERS differs from the documents: {defaults}")


@pytest.mark.clause("TS-SEL-010")
@pytest.mark.parametrize("member", ["click", "screenshot", "list_tabs"])
def test_explicitly_disabled_call_raises_before_state_or_consent(flavour: Flavour, member: str) -> None:
    driver = browser_probe(flavour, ["get_page_text", "click", "screenshot"])
    toolset = browser_toolset(flavour, driver, members=["get_page_text"], **_approving(flavour, driver))
    with pytest.raises(BrowserError):
        execute(toolset, function_call(member, VALID_ARGUMENTS[member]))
    expect(driver.log.names() == [], "TS-SEL-010", f"disabled {member} reached {driver.log.names()}")


@pytest.mark.clause("TS-SEL-010", "TS-SEL-002")
@pytest.mark.parametrize("member", ["run_script", "hover_at"])
def test_unselected_opt_in_call_raises_before_state_or_consent(flavour: Flavour, member: str) -> None:
    driver = browser_probe(flavour, ["get_page_text", member])
    toolset = browser_toolset(flavour, driver, **_approving(flavour, driver))
    with pytest.raises(BrowserError):
        execute(toolset, function_call(member, VALID_ARGUMENTS[member]))
    expect(driver.log.names() == [], "TS-SEL-010", f"disabled {member} reached {driver.log.names()}")


@pytest.mark.clause("TS-SEL-011")
@pytest.mark.parametrize("member", sorted(set(READ_ONLY_NAMES) - {"list_tabs"}))
def test_disabling_list_tabs_keeps_state_in_results(flavour: Flavour, member: str) -> None:
    driver = browser_probe(flavour, [member])
    toolset = browser_toolset(flavour, driver, members=[member])
    report = payload(execute(toolset, function_call(member, VALID_ARGUMENTS[member])))
    expect(
        report.get("ok") is True and "state" in report,
        "TS-SEL-011",
        f"{member} without list_tabs returned no state: {report}",
    )


@pytest.mark.clause("TS-SEL-012")
def test_driver_list_tabs_is_never_called(flavour: Flavour) -> None:
    driver = browser_probe(flavour, ["list_tabs"], replies={"list_tabs": "from the driver"})
    toolset = browser_toolset(flavour, driver)
    report = payload(execute(toolset, function_call("list_tabs", {})))
    expect(driver.log.count("list_tabs") == 0, "TS-SEL-012", "the driver's own list_tabs was called")
    expect(
        report.get("ok") is True and driver.log.count("state") >= 1,
        "TS-SEL-012",
        "list_tabs was not answered from state()",
    )


@pytest.mark.clause("TS-SEL-005")
def test_string_selection_is_rejected(flavour: Flavour) -> None:
    # A bare string is not a list of names even though it is a sequence of one-letter "names".
    driver = browser_probe(flavour, [])
    with pytest.raises((ValueError, TypeError)):
        browser_toolset(flavour, driver, members="list_tabs")
