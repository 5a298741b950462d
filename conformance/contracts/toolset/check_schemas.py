"""Tool declarations: one strict tool per exposed member, documented fields, fixed order (spec/000 "Driver
contract"). Snapshots record the declared field schemas so an SDK upgrade shows what changed."""

from __future__ import annotations

import typing
from typing import Any

import openai.lib.browser as sdk_browser
import pytest

# typing's own is_typeddict misses the typing_extensions typed dicts the SDK declares.
from typing_extensions import is_typeddict

from conformance import python_only_reasons as python_only
from conformance.assertions import expect, precondition
from conformance.contracts.toolset._declared_fields import FIELD_SCHEMAS, MEMBER_FIELDS
from conformance.contracts.toolset._toolsets import browser_toolset
from conformance.flavours import Flavour
from conformance.members import ALL_NAMES, BY_NAME, DEFAULT_NAMES, DRIVER_METHOD_NAMES, OPT_IN_NAMES
from conformance.probes import browser_probe


def _every_member_toolset(flavour: Flavour) -> Any:
    driver = browser_probe(flavour)
    confirm = driver.log.callback("confirm", flavour=flavour)
    policy = driver.log.callback("url_policy", flavour=flavour)
    return browser_toolset(flavour, driver, members=list(ALL_NAMES), confirm=confirm, url_policy=policy)


def _field(schema: dict[str, Any]) -> str:
    """One field schema in a compact, prose-free form (descriptions are SDK wording, not contract)."""
    kind = schema.get("type")
    text = "|".join(kind) if isinstance(kind, list) else str(kind)
    if "enum" in schema:
        text += "{" + ",".join(str(value) for value in schema["enum"]) + "}"
    if "minimum" in schema or "maximum" in schema:
        text += f"[{schema.get('minimum', '')}..{schema.get('maximum', '')}]"
    if "minItems" in schema or "maxItems" in schema:
        text += f"#{schema.get('minItems', '')}..{schema.get('maxItems', '')}"
    if "items" in schema:
        text += "<" + _field(schema["items"]) + ">"
    if "properties" in schema:
        inner = ",".join(f"{name}:{_field(value)}" for name, value in schema["properties"].items())
        text += "{" + inner + (";closed" if schema.get("additionalProperties") is False else "") + "}"
    return text


def _signatures(tools: list[Any]) -> list[str]:
    return [
        tool["name"]
        + "("
        + ", ".join(f"{name}: {_field(schema)}" for name, schema in tool["parameters"]["properties"].items())
        + ")"
        for tool in tools
    ]


@pytest.mark.clause("TS-SCHEMA-001")
def test_every_tool_is_strict_with_all_fields_required(flavour: Flavour) -> None:
    for tool in _every_member_toolset(flavour).tools:
        parameters = tool["parameters"]
        expect(
            tool["type"] == "function" and tool.get("strict") is True,
            "TS-SCHEMA-001",
            f"{tool['name']} is not a strict function tool",
        )
        expect(
            parameters.get("type") == "object" and parameters.get("additionalProperties") is False,
            "TS-SCHEMA-001",
            f"{tool['name']} parameters allow extra properties",
        )
        expect(
            sorted(parameters.get("required", [])) == sorted(parameters.get("properties", {})),
            "TS-SCHEMA-001",
            f"{tool['name']} does not require every field",
        )


@pytest.mark.clause("TS-SCHEMA-003")
def test_tool_fields_are_the_documented_arguments(flavour: Flavour) -> None:
    tools = _every_member_toolset(flavour).tools
    # One tool per member, in any order here: the order is TS-SCHEMA-002's (test_tool_order_is_fixed_...).
    expect(
        sorted(tool["name"] for tool in tools) == sorted(BY_NAME[name].tool_name for name in ALL_NAMES),
        "TS-SCHEMA-003",
        "the full selection does not declare exactly one tool per documented member",
    )
    for tool in tools:
        member = BY_NAME[tool["name"].removeprefix("browser_")]
        expect(
            sorted(tool["parameters"]["properties"]) == sorted(member.arguments),
            "TS-SCHEMA-003",
            f"{tool['name']} declares {sorted(tool['parameters']['properties'])}, "
            f"documents list {sorted(member.arguments)}",
        )


@pytest.mark.clause("TS-SCHEMA-002")
def test_tool_order_is_fixed_whatever_the_selection_order(flavour: Flavour) -> None:
    driver = browser_probe(flavour)
    confirm = driver.log.callback("confirm", flavour=flavour)
    policy = driver.log.callback("url_policy", flavour=flavour)
    selections = (
        ({"members": list(reversed(ALL_NAMES))}, "tools follow the selection order, not the fixed order"),
        ({"additional_members": list(reversed(OPT_IN_NAMES))}, "additional_members are not placed in the fixed order"),
    )
    for selection, misplaced in selections:
        toolset = browser_toolset(flavour, driver, confirm=confirm, url_policy=policy, **selection)
        expect(
            [tool["name"] for tool in toolset.tools] == [f"browser_{name}" for name in ALL_NAMES],
            "TS-SCHEMA-002",
            misplaced,
        )


def _selection_cases() -> dict[str, dict[str, Any]]:
    cases: dict[str, dict[str, Any]] = {"default": {}}
    for name in OPT_IN_NAMES:
        cases[f"add-{name}"] = {"additional_members": [name]}
    cases["members-reads"] = {"members": ["read_page", "get_page_text", "screenshot"]}
    cases["members-pointer"] = {"members": ["screenshot", "click_at", "drag_path", "hold_keys"]}
    cases["members-empty"] = {"members": []}
    cases["members-list-tabs-only"] = {"members": ["list_tabs"]}
    cases["add-scoped-and-hover"] = {"additional_members": ["read_page_scoped", "hover_at"]}
    cases["add-nothing"] = {"additional_members": []}
    return cases


SELECTIONS = _selection_cases()


@pytest.mark.python_sdk_only(python_only.SNAPSHOT)
@pytest.mark.clause("TS-SCHEMA-003")
def test_declared_field_schemas_match_snapshot(flavour: Flavour, snapshot: Any) -> None:
    """SDK regression record of every declared field schema, so an upgrade shows what changed."""
    assert _signatures(_every_member_toolset(flavour).tools) == snapshot


@pytest.mark.python_sdk_only(python_only.SELECTION_SNAPSHOT)
@pytest.mark.clause("TS-SEL-001", "TS-SEL-002", "TS-SEL-003", "TS-SEL-004", "TS-SCHEMA-002")
def test_selections_match_snapshot(flavour: Flavour, snapshot: Any) -> None:
    """SDK regression record of the tool names each selection declares on a driver implementing everything."""
    declared: dict[str, list[str]] = {}
    for selection, options in SELECTIONS.items():
        driver = browser_probe(flavour, DRIVER_METHOD_NAMES)
        confirm = driver.log.callback("confirm", flavour=flavour)
        policy = driver.log.callback("url_policy", flavour=flavour)
        toolset = browser_toolset(flavour, driver, confirm=confirm, url_policy=policy, **options)
        names = [tool["name"].removeprefix("browser_") for tool in toolset.tools]
        expect(
            names == [name for name in ALL_NAMES if name in names],
            "TS-SCHEMA-002",
            f"selection {selection} is not declared in the fixed order: {names}",
        )
        declared[selection] = names
    expect(declared["default"] == list(DEFAULT_NAMES), "TS-SEL-001", "default selection differs")
    expect(declared["members-empty"] == [], "TS-SEL-003", "an empty members list still declares tools")
    for name in OPT_IN_NAMES:
        expect(
            declared[f"add-{name}"] == [n for n in ALL_NAMES if n in (*DEFAULT_NAMES, name)],
            "TS-SEL-004",
            f"additional_members=[{name!r}] does not add exactly {name} to the defaults",
        )
    assert declared == snapshot


# The names the documents tell Python driver authors to import: the driver protocols (a partial driver types
# itself with the narrower ones) and the typed dicts of each member's argument and of the structured results.
_PROTOCOLS = ("BrowserDriver", "BrowserReadDriver", "BrowserNavigationDriver", "BrowserClickDriver")
DRIVER_PROTOCOLS = tuple(prefix + name for name in (*_PROTOCOLS, "BrowserScreenshotDriver") for prefix in ("", "Async"))
TYPED_DICTS = (
    *("NavigateInput", "ReadPageInput", "TabInput", "FindInput", "ClickInput", "TypeInput", "KeyInput"),
    *("ScrollInput", "WaitForInput", "SelectOptionInput", "ZoomInput", "NewTabInput"),
    *("ReadPageScopedInput", "ClickAtInput", "DragPathInput", "HoldKeysInput", "HoverAtInput", "SetCheckedInput"),
    *("ReadDiagnosticsInput", "RunScriptInput", "BrowserFileInput", "BrowserFileOutcome"),
    *("BrowserReadV1", "BrowserScopedReadV1"),
)


def _exported(name: str) -> Any:
    """What ``openai.lib.browser`` exports as ``name``, after failing TS-SCHEMA-004 if it exports nothing so named."""
    exported = getattr(sdk_browser, name, None)
    expect(exported is not None, "TS-SCHEMA-004", f"openai.lib.browser does not export {name}")
    return exported


@pytest.mark.python_sdk_only(python_only.PYTHON_TYPES)
@pytest.mark.clause("TS-SCHEMA-004")
@pytest.mark.parametrize("name", DRIVER_PROTOCOLS)
def test_driver_protocols_are_exported(flavour: Flavour, name: str) -> None:
    # The flavour parameter keeps the check in both suite forms; the exports do not depend on it.
    exported = _exported(name)
    expect(
        isinstance(exported, type) and getattr(exported, "_is_protocol", False),
        "TS-SCHEMA-004",
        f"openai.lib.browser.{name} is not a typing protocol: {exported!r}",
    )


@pytest.mark.python_sdk_only(python_only.PYTHON_TYPES)
@pytest.mark.clause("TS-SCHEMA-004")
@pytest.mark.parametrize("name", TYPED_DICTS)
def test_named_argument_and_result_types_are_exported(flavour: Flavour, name: str) -> None:
    exported = _exported(name)
    # A union of typed dicts (a file outcome is one of several shapes) is as good as one typed dict.
    members = typing.get_args(exported) or (exported,)
    expect(
        all(is_typeddict(member) for member in members),
        "TS-SCHEMA-004",
        f"openai.lib.browser.{name} is not a typed dict: {exported!r}",
    )


def _without_descriptions(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {key: _without_descriptions(value) for key, value in schema.items() if key != "description"}
    if isinstance(schema, list):
        return [_without_descriptions(value) for value in schema]
    return schema


@pytest.mark.clause("TS-SCHEMA-005")
def test_declared_field_schemas_match_the_field_kinds(flavour: Flavour) -> None:
    tools = {tool["name"][len("browser_") :]: tool for tool in _every_member_toolset(flavour).tools}
    precondition(tools, "TS-SEL-003", "a toolset selecting every member declared no tools")
    for member, fields in MEMBER_FIELDS.items():
        if member not in tools:
            continue  # a missing tool is TS-SEL's matter, not this clause's
        declared = tools[member].get("parameters", {}).get("properties", {})
        for name, kind in fields.items():
            schema = _without_descriptions(declared.get(name))
            expect(
                schema == FIELD_SCHEMAS[kind],
                "TS-SCHEMA-005",
                f"browser_{member}.{name} is declared as {schema}, not the {kind} schema {FIELD_SCHEMAS[kind]}",
            )
