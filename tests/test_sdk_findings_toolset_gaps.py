"""The toolset checks added for the coverage gaps can fail: each test patches one misbehaviour into the installed
Python SDK's browser module and requires the check to fail on exactly its clause, after the unpatched SDK passed
the same case (the style of tests/test_sdk_findings.py; the Node SDK's patches are the
toolset_gaps family of tests/node/npm_patch_catalogues.py).

The patches are the regressions the checks exist for: a lenient argument decoder, the call-status check dropped,
an output paired with the wrong call, a read projection that keeps selected on any role, an export removed, a
member vocabulary the caller can edit, and consent code handed the driver's raw report.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import openai.lib.browser as browser_module
import openai.lib.computer as computer_module
import pytest

from conformance.assertions import ClauseViolation
from conformance.contracts.toolset import (
    check_computer_usage,
    check_confirmation,
    check_lifecycle,
    check_results,
    check_schemas,
    check_selection,
    check_validation,
)
from conformance.flavours import Flavour
from conformance.rig import parse_mode

FLAVOURS: tuple[Flavour, ...] = ("sync", "async")


def _fails_on(clause: str, check: Callable[[], None]) -> None:
    with pytest.raises(ClauseViolation) as caught:
        check()
    assert caught.value.clause_id == clause, f"failed on {caught.value.clause_id}, expected {clause}: {caught.value}"


def _lenient(monkeypatch: pytest.MonkeyPatch, member: str, field: str, repair: Callable[[Any], Any]) -> None:
    """An argument decoder that repairs ``member``'s ``field`` instead of refusing it."""
    original = browser_module._arguments

    def decode(name: str, raw: str) -> dict[str, object]:
        if name == member:
            arguments = browser_module.json.loads(raw)
            if isinstance(arguments, dict) and field in arguments:
                arguments[field] = repair(arguments[field])
                raw = browser_module.json.dumps(arguments)
        return original(name, raw)

    monkeypatch.setattr(browser_module, "_arguments", decode)


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_unknown_scroll_direction_taken_as_down_fails_ts_val_013(
    monkeypatch: pytest.MonkeyPatch, flavour: Flavour
) -> None:
    index = check_validation.BY_ID["scroll.direction"].invalid.index("forward")
    check = check_validation.test_value_past_the_limit_is_refused
    check(flavour, "scroll.direction", index)
    _lenient(monkeypatch, "scroll", "direction", lambda value: value if value in ("up", "left", "right") else "down")
    _fails_on("TS-VAL-013", lambda: check(flavour, "scroll.direction", index))


def test_single_key_string_taken_as_a_list_fails_ts_val_013(monkeypatch: pytest.MonkeyPatch) -> None:
    index = check_validation.BY_ID["key.keys"].invalid.index("a")
    check = check_validation.test_value_past_the_limit_is_refused
    check("sync", "key.keys", index)
    _lenient(monkeypatch, "key", "keys", lambda value: [value] if isinstance(value, str) else value)
    _fails_on("TS-VAL-013", lambda: check("sync", "key.keys", index))


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_ignoring_the_call_status_fails_ts_val_014(monkeypatch: pytest.MonkeyPatch, flavour: Flavour) -> None:
    check = check_validation.test_unfinished_call_is_refused_before_any_work
    check(flavour, "click", "in_progress")
    toolset = browser_module.AsyncBrowserToolset if flavour == "async" else browser_module.BrowserToolset
    original = toolset.execute

    def execute(self: Any, call: Any, *args: Any, **kwargs: Any) -> Any:
        return original(self, call.model_copy(update={"status": "completed"}), *args, **kwargs)

    monkeypatch.setattr(toolset, "execute", execute)
    _fails_on("TS-VAL-014", lambda: check(flavour, "click", "in_progress"))


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_call_ids_cut_in_the_output_fail_ts_res_018(monkeypatch: pytest.MonkeyPatch, flavour: Flavour) -> None:
    check = check_results.test_output_carries_the_call_id
    long_id = check_results.CALL_IDS[2]
    check(flavour, "get_page_text", long_id)
    original = browser_module._output

    def output(call: Any, *args: Any) -> Any:
        item, ok = original(call, *args)
        return {**item, "call_id": item["call_id"][:64]}, ok

    monkeypatch.setattr(browser_module, "_output", output)
    _fails_on("TS-RES-018", lambda: check(flavour, "get_page_text", long_id))


def test_selected_kept_on_any_role_fails_ts_res_003(monkeypatch: pytest.MonkeyPatch) -> None:
    check = check_results.test_selected_is_dropped_on_options_of_roles_without_it
    check("sync", "combobox")
    original = browser_module._read_result

    def read_result(member: str, value: object) -> Any:
        read = original(member, value)
        if isinstance(read, dict) and isinstance(value, dict):
            # Put back what the driver said about each option, whatever the element's role.
            for kept, sent in zip(read.get("elements", []), value.get("elements", []), strict=True):
                for option, raw in zip(kept.get("options", []), sent.get("options", []), strict=True):
                    if "selected" in raw:
                        option["selected"] = raw["selected"]
        return read

    monkeypatch.setattr(browser_module, "_read_result", read_result)
    _fails_on("TS-RES-003", lambda: check("sync", "combobox"))


@pytest.mark.parametrize(
    ("name", "check"),
    [
        ("AsyncBrowserReadDriver", check_schemas.test_driver_protocols_are_exported),
        ("HoldKeysInput", check_schemas.test_named_argument_and_result_types_are_exported),
    ],
)
def test_a_missing_export_fails_ts_schema_004(
    monkeypatch: pytest.MonkeyPatch, name: str, check: Callable[[Flavour, str], None]
) -> None:
    check("sync", name)
    monkeypatch.delattr(browser_module, name)
    _fails_on("TS-SCHEMA-004", lambda: check("sync", name))


def test_a_protocol_exported_as_a_plain_class_fails_ts_schema_004(monkeypatch: pytest.MonkeyPatch) -> None:
    check = check_schemas.test_driver_protocols_are_exported
    check("sync", "BrowserClickDriver")
    monkeypatch.setattr(browser_module, "BrowserClickDriver", type("BrowserClickDriver", (), {}))
    _fails_on("TS-SCHEMA-004", lambda: check("sync", "BrowserClickDriver"))


def test_an_editable_member_list_fails_ts_sel_009(monkeypatch: pytest.MonkeyPatch) -> None:
    check = check_selection.test_exported_member_tuples_are_the_documented_vocabulary
    check("sync")
    monkeypatch.setattr(browser_module, "BROWSER_MEMBERS", list(browser_module.BROWSER_MEMBERS))
    _fails_on("TS-SEL-009", lambda: check("sync"))


@pytest.mark.parametrize(("flavour", "member"), [("sync", "click"), ("async", "navigate")])
def test_consent_given_the_raw_report_fails_ts_conf_012(
    monkeypatch: pytest.MonkeyPatch, flavour: Flavour, member: str
) -> None:
    check = check_confirmation.test_callbacks_see_the_projected_state
    check(flavour, member)
    raw: list[object] = []
    original_state = browser_module._state
    original_prepare = browser_module._BrowserBase._prepare

    def state(value: object, previous: Any = None) -> Any:
        raw.append(copy.deepcopy(value))
        return original_state(value, previous)

    def prepare(self: Any, call: Any, projected: Any) -> Any:
        # The model still gets the projection; only the callbacks see what the driver reported.
        return original_prepare(self, call, raw[-1] if raw else projected)

    monkeypatch.setattr(browser_module, "_state", state)
    monkeypatch.setattr(browser_module._BrowserBase, "_prepare", prepare)
    _fails_on("TS-CONF-012", lambda: check(flavour, member))


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_missing_confirm_taken_as_approval_fails_ts_conf_007(
    monkeypatch: pytest.MonkeyPatch, flavour: Flavour
) -> None:
    check = check_confirmation.test_protected_read_without_confirm_never_runs
    check(flavour, "get_page_text")
    toolset = browser_module.AsyncBrowserToolset if flavour == "async" else browser_module.BrowserToolset
    original = toolset.__init__

    async def approve_async(context: Any, **_: Any) -> bool:
        return True

    def approve(context: Any, **_: Any) -> bool:
        return True

    def init(self: Any, driver: Any, **options: Any) -> None:
        # Protected reads without a confirm callback get one that approves everything.
        if options.get("confirm_reads") and options.get("confirm") is None:
            options["confirm"] = approve_async if flavour == "async" else approve
        original(self, driver, **options)

    monkeypatch.setattr(toolset, "__init__", init)
    _fails_on("TS-CONF-007", lambda: check(flavour, "get_page_text"))


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_scroll_amount_declared_from_one_fails_ts_schema_005(
    monkeypatch: pytest.MonkeyPatch, flavour: Flavour
) -> None:
    check = check_schemas.test_declared_field_schemas_match_the_field_kinds
    check(flavour)
    kinds = {**browser_module._KIND_SCHEMAS, "amount": {**browser_module._KIND_SCHEMAS["amount"], "minimum": 1}}
    monkeypatch.setattr(browser_module, "_KIND_SCHEMAS", kinds)
    _fails_on("TS-SCHEMA-005", lambda: check(flavour))


def _wrap_run(monkeypatch: pytest.MonkeyPatch, change: Callable[[Any, Any, dict[str, Any]], Any]) -> None:
    """``ComputerToolset.run`` with ``change(self, client, options)`` applied to its client and options first."""
    original = computer_module.ComputerToolset.run

    def run(self: Any, client: Any, params: Any, **options: Any) -> Any:
        return original(self, change(self, client, options), params, **options)

    monkeypatch.setattr(computer_module.ComputerToolset, "run", run)


def test_request_usage_sent_to_the_observer_fails_ts_diag_003(monkeypatch: pytest.MonkeyPatch) -> None:
    mode = parse_mode("sync-plain")
    check_computer_usage.test_computer_run_reports_no_request_usage_to_its_observer(mode)

    def reporting(self: Any, client: Any, options: dict[str, Any]) -> Any:
        observer = options.get("on_diagnostic")
        create = client.responses.create

        def create_and_report(*args: Any, **kwargs: Any) -> Any:
            response = create(*args, **kwargs)
            if observer is not None:
                usage = response.usage.model_dump() if response.usage else None
                observer({"api": "responses", "stage": "request", "reason": "completed", "usage": usage})
            return response

        monkeypatch.setattr(client.responses, "create", create_and_report)
        return client

    _wrap_run(monkeypatch, reporting)
    _fails_on(
        "TS-DIAG-003", lambda: check_computer_usage.test_computer_run_reports_no_request_usage_to_its_observer(mode)
    )


def test_usage_totalled_over_the_run_fails_ts_diag_004(monkeypatch: pytest.MonkeyPatch) -> None:
    mode = parse_mode("sync-plain")
    check = check_computer_usage.test_computer_run_returns_at_most_the_final_request_usage
    check(mode)
    original = computer_module.ComputerToolset.run

    def run(self: Any, client: Any, params: Any, **options: Any) -> Any:
        # Each request's usage is added up and the total put on the final response.
        totals = {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
        create = client.responses.create

        def create_and_count(*args: Any, **kwargs: Any) -> Any:
            response = create(*args, **kwargs)
            for name in totals:
                totals[name] += getattr(response.usage, name)
            return response

        monkeypatch.setattr(client.responses, "create", create_and_count)
        response = original(self, client, params, **options)
        return response.model_copy(update={"usage": response.usage.model_copy(update=totals)})

    monkeypatch.setattr(computer_module.ComputerToolset, "run", run)
    _fails_on("TS-DIAG-004", lambda: check(mode))


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_session_released_under_a_pending_approval_fails_ts_life_004(
    monkeypatch: pytest.MonkeyPatch, flavour: Flavour
) -> None:
    check = check_lifecycle.test_computer_close_drains_while_a_stopped_runs_approval_is_pending
    check(flavour)
    toolset = computer_module.AsyncComputerToolset if flavour == "async" else computer_module.ComputerToolset
    original = toolset.close

    def close(self: Any) -> Any:
        # Closing at once, as if nothing were pending: the session is handed back under a running callback.
        original(self)
        return {"status": "closed"}

    monkeypatch.setattr(toolset, "close", close)
    _fails_on("TS-LIFE-004", lambda: check(flavour))
