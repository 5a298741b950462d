"""Driver results and state reports (spec/000 "Driver contract", "Return a structured page read", "Opt in to
scoped reads and pointer input", "Opt in to diagnostics, scripts, and file transfers", "Confirmation,
navigation, and recovery").

"Stops the run" is observed at the toolset as ``execute`` raising instead of returning an output.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from openai.lib.browser import BrowserError

from conformance import python_only_reasons as python_only
from conformance.assertions import expect, not_implemented, precondition, violation
from conformance.contracts.toolset._toolsets import VALID_ARGUMENTS, execute, function_call, gated, payload
from conformance.flavours import Flavour
from conformance.members import FILE_CLEANUP_VALUES, FILE_OUTCOME_PAIRS, OMISSION_CODES
from conformance.node.sdk.broker import shared_sdk
from conformance.probes import PIXEL_DATA_URL, Act, Script, Shared

TAB = {"id": "tab-1", "title": "Probe page", "url": "https://probe.example/", "active": True}


def _run(flavour: Flavour, member: str, reply: object, **options: Any) -> tuple[Any, Any]:
    replies = {member: reply} if member != "state" else {"state": reply}
    target = member if member != "state" else "get_page_text"
    toolset, driver = gated(flavour, [target], replies=replies, **options)
    return toolset, driver


def _stops(flavour: Flavour, member: str, reply: object, clause: str, what: str) -> Any:
    toolset, driver = _run(flavour, member, reply)
    target = member if member != "state" else "get_page_text"
    try:
        output = execute(toolset, function_call(target, VALID_ARGUMENTS[target]))
    except BrowserError as error:
        raise AssertionError(f"[{clause}] {what}: raised BrowserError, which the model would see") from error
    except Exception:
        return driver
    raise AssertionError(f"[{clause}] {what} did not stop the run; output was {output}")


def _succeeds(flavour: Flavour, member: str, reply: object, clause: str, what: str) -> tuple[dict[str, Any], Any]:
    toolset, _ = _run(flavour, member, reply)
    output = execute(toolset, function_call(member, VALID_ARGUMENTS[member]))
    report = payload(output)
    expect(report.get("ok") is True, clause, f"{what} was refused: {report.get('error')}")
    return report, output


# --- state reports -------------------------------------------------------------------------------------------

BAD_STATES: dict[str, object] = {
    "not-a-dict": ["tab-1"],
    "no-tabs": {},
    "tabs-not-list": {"tabs": TAB},
    "active-not-bool": {"tabs": [{**TAB, "active": 1}]},
    "id-not-string": {"tabs": [{**TAB, "id": 1}]},
    "title-missing": {"tabs": [{k: v for k, v in TAB.items() if k != "title"}]},
    "two-active": {"tabs": [TAB, {**TAB, "id": "tab-2"}]},
    "none-active": {"tabs": [{**TAB, "active": False}]},
    "duplicate-ids": {"tabs": [TAB, {**TAB, "active": False}]},
    "raises": RuntimeError("state backend down"),
}


@pytest.mark.clause("TS-RES-001")
@pytest.mark.parametrize("case", sorted(BAD_STATES))
def test_invalid_state_stops_the_run(flavour: Flavour, case: str) -> None:
    _stops(flavour, "state", BAD_STATES[case], "TS-RES-001", f"state {case}")


@pytest.mark.clause("TS-RES-001")
def test_invalid_final_state_stops_the_run(flavour: Flavour) -> None:
    _stops(
        flavour,
        "state",
        Script({"tabs": [TAB]}, {"tabs": [{**TAB, "active": "yes"}]}),
        "TS-RES-001",
        "an invalid state after the action",
    )


@pytest.mark.clause("TS-RES-001", "TS-RES-011")
def test_empty_tab_list_is_valid_state(flavour: Flavour) -> None:
    toolset, _ = _run(flavour, "state", {"tabs": []})
    report = payload(execute(toolset, function_call("get_page_text", {"tab_id": None})))
    expect(
        report.get("ok") is True and report.get("state", {}).get("tabs") == [],
        "TS-RES-001",
        f"an empty tab list was not reported: {report}",
    )


# --- structured reads ----------------------------------------------------------------------------------------


def _read(**changes: Any) -> dict[str, Any]:
    read: dict[str, Any] = {
        "version": 1,
        "text": "Dispatch queue",
        "elements": [{"ref": "e1", "role": "button", "label": "Dispatch"}],
        "omitted": [],
    }
    read.update(changes)
    return read


def _element(**changes: Any) -> dict[str, Any]:
    return {"ref": "e1", "role": "textbox", "label": "Name", **changes}


BAD_READS: dict[str, object] = {
    "version-2": _read(version=2),
    "version-true": _read(version=True),
    "no-omitted": {k: v for k, v in _read().items() if k != "omitted"},
    "no-elements": {k: v for k, v in _read().items() if k != "elements"},
    "text-not-string": _read(text=5),
    "text-lone-surrogate": _read(text="a\ud800"),
    "role-link": _read(elements=[_element(role="link")]),
    "empty-label": _read(elements=[_element(label="")]),
    "empty-ref": _read(elements=[_element(ref="")]),
    "duplicate-ref": _read(elements=[_element(), _element(label="Other")]),
    "ref-257-bytes": _read(elements=[_element(ref="r" * 257)]),
    "label-257-bytes": _read(elements=[_element(label="é" * 128 + "x")]),
    "value-513-bytes": _read(elements=[_element(value="v" * 513)]),
    "option-empty-label": _read(elements=[_element(role="listbox", options=[{"label": "", "value": "a"}])]),
    "option-value-513-bytes": _read(elements=[_element(role="listbox", options=[{"label": "A", "value": "v" * 513}])]),
    "option-selected-string": _read(
        elements=[_element(role="listbox", options=[{"label": "A", "value": "a", "selected": "yes"}])]
    ),
    "label-lone-surrogate": _read(elements=[_element(label="a\ud800")]),
    "checkbox-checked-string": _read(elements=[_element(role="checkbox", checked="yes")]),
    "omitted-unknown": _read(omitted=["bogus"]),
    "omitted-duplicate": _read(omitted=["value", "value"]),
    "list-not-dict": [1, 2],
    "number": 5,
}


@pytest.mark.clause("TS-RES-002")
@pytest.mark.parametrize("member", ["read_page", "find"])
@pytest.mark.parametrize("case", sorted(BAD_READS))
def test_invalid_read_report_stops_the_run(flavour: Flavour, member: str, case: str) -> None:
    _stops(flavour, member, BAD_READS[case], "TS-RES-002", f"{member} report {case}")


@pytest.mark.clause("TS-RES-002")
def test_page_text_read_must_have_no_elements(flavour: Flavour) -> None:
    _stops(flavour, "get_page_text", _read(), "TS-RES-002", "get_page_text report with elements")


GOOD_READS: dict[str, object] = {
    "ref-256-bytes": _read(elements=[_element(ref="r" * 256)]),
    "label-256-bytes": _read(elements=[_element(label="é" * 128)]),
    "value-512-bytes": _read(elements=[_element(value="v" * 512)]),
    "value-empty": _read(elements=[_element(value="")]),
    "every-role": _read(
        elements=[
            _element(ref=f"r{i}", role=role)
            for i, role in enumerate(["button", "textbox", "combobox", "checkbox", "radio", "slider", "listbox"])
        ]
    ),
    "every-omission": _read(omitted=list(OMISSION_CODES)),
    "radio-checked": _read(elements=[_element(role="radio", checked=False)]),
    "many-elements": _read(text="t" * 100_000, elements=[_element(ref=f"r{i}") for i in range(2000)]),
}


@pytest.mark.clause("TS-RES-002")
@pytest.mark.parametrize("case", sorted(GOOD_READS))
def test_valid_read_report_is_kept(flavour: Flavour, case: str) -> None:
    report, _ = _succeeds(flavour, "read_page", GOOD_READS[case], "TS-RES-002", f"read_page report {case}")
    expect(report.get("result") == GOOD_READS[case], "TS-RES-002", f"valid report {case} was altered")


@pytest.mark.clause("TS-RES-002")
@pytest.mark.parametrize("member", ["read_page", "get_page_text", "find"])
@pytest.mark.parametrize("text", ["", "plain", json.dumps(_read())], ids=["empty", "plain", "json-looking"])
def test_string_results_pass_through_unparsed(flavour: Flavour, member: str, text: str) -> None:
    report, _ = _succeeds(flavour, member, text, "TS-RES-002", f"{member} string result")
    expect(report.get("result") == text, "TS-RES-002", f"{member} string result came back as {report.get('result')!r}")


@pytest.mark.clause("TS-RES-002", "TS-RES-011")
@pytest.mark.parametrize("member", ["read_page", "get_page_text", "find"])
def test_none_read_supplies_only_state(flavour: Flavour, member: str) -> None:
    report, _ = _succeeds(flavour, member, None, "TS-RES-002", f"{member} None result")
    expect(report.get("result") is None and "state" in report, "TS-RES-002", f"{member} None result gave {report}")


@pytest.mark.clause("TS-RES-003")
def test_unknown_read_fields_are_dropped(flavour: Flavour) -> None:
    element = _element(
        role="listbox", options=[{"label": "A", "value": "a", "selected": True, "secret": 1}], tooltip="internal"
    )
    report, _ = _succeeds(
        flavour,
        "read_page",
        {**_read(elements=[element]), "debug": {"cookie": "x"}},
        "TS-RES-003",
        "read with unknown fields",
    )
    result = report.get("result", {})
    expect("debug" not in result, "TS-RES-003", "an unknown report field reached the model")
    kept = result.get("elements", [{}])[0]
    expect("tooltip" not in kept, "TS-RES-003", "an unknown element field reached the model")
    expect(
        kept.get("options") == [{"label": "A", "value": "a", "selected": True}],
        "TS-RES-003",
        f"options were not reduced to known fields: {kept.get('options')}",
    )


@pytest.mark.clause("TS-RES-003")
def test_checked_is_dropped_on_roles_without_it(flavour: Flavour) -> None:
    report, _ = _succeeds(
        flavour,
        "read_page",
        _read(elements=[_element(role="button", checked=True)]),
        "TS-RES-003",
        "button with checked",
    )
    expect("checked" not in report["result"]["elements"][0], "TS-RES-003", "checked kept on a button")


@pytest.mark.clause("TS-RES-003")
@pytest.mark.parametrize("role", ["combobox", "button"])
def test_selected_is_dropped_on_options_of_roles_without_it(flavour: Flavour, role: str) -> None:
    # Only listbox options may say which are selected; a combobox is the role a driver most plausibly mixes up.
    options = [{"label": "A", "value": "a", "selected": True}, {"label": "B", "value": "b", "selected": False}]
    report, _ = _succeeds(
        flavour,
        "read_page",
        _read(elements=[_element(role=role, options=options)]),
        "TS-RES-003",
        f"{role} with selected options",
    )
    kept = report["result"]["elements"][0].get("options", [])
    expect(
        all("selected" not in option for option in kept),
        "TS-RES-003",
        f"selected kept on the options of a {role}: {kept}",
    )


# --- images --------------------------------------------------------------------------------------------------

IMAGE = {"type": "input_image", "image_url": PIXEL_DATA_URL}
GOOD_IMAGES: dict[str, dict[str, Any]] = {
    "url": IMAGE,
    "file": {"type": "input_image", "file_id": "file-1"},
    "both": {**IMAGE, "file_id": "file-1"},
    "detail-none": {**IMAGE, "detail": None},
    **{f"detail-{level}": {**IMAGE, "detail": level} for level in ("auto", "low", "high", "original")},
    "breakpoint": {**IMAGE, "prompt_cache_breakpoint": {"mode": "explicit"}},
    "breakpoint-none": {**IMAGE, "prompt_cache_breakpoint": None},
    "file-none-beside-url": {**IMAGE, "file_id": None},
}
BAD_IMAGES: dict[str, object] = {
    "string": PIXEL_DATA_URL,
    "none": None,
    "no-source": {"type": "input_image"},
    "wrong-type": {"type": "computer_screenshot", "image_url": PIXEL_DATA_URL},
    "extra-field": {**IMAGE, "alt": "screen"},
    "blank-url": {"type": "input_image", "image_url": "   "},
    "empty-file-beside-url": {**IMAGE, "file_id": ""},
    "detail-medium": {**IMAGE, "detail": "medium"},
    "breakpoint-auto": {**IMAGE, "prompt_cache_breakpoint": {"mode": "auto"}},
}


@pytest.mark.clause("TS-RES-004")
@pytest.mark.parametrize("member", ["screenshot", "zoom"])
@pytest.mark.parametrize("case", sorted(GOOD_IMAGES))
def test_valid_image_is_sent_as_input_image(flavour: Flavour, member: str, case: str) -> None:
    _, output = _succeeds(flavour, member, GOOD_IMAGES[case], "TS-RES-004", f"{member} image {case}")
    parts = output["output"]
    expect(
        len(parts) == 2 and parts[0]["type"] == "input_text" and parts[1]["type"] == "input_image",
        "TS-RES-004",
        f"{member} output parts are {[part.get('type') for part in parts]}",
    )
    image = {key: value for key, value in parts[1].items() if value is not None}
    wanted = {key: value for key, value in GOOD_IMAGES[case].items() if value is not None}
    expect(image == wanted, "TS-RES-004", f"{member} image was altered: {image}")


@pytest.mark.clause("TS-RES-004")
@pytest.mark.parametrize("member", ["screenshot", "zoom"])
@pytest.mark.parametrize("case", sorted(BAD_IMAGES))
def test_invalid_image_stops_before_final_state(flavour: Flavour, member: str, case: str) -> None:
    driver = _stops(flavour, member, BAD_IMAGES[case], "TS-RES-004", f"{member} image {case}")
    expect(
        driver.log.count("state") == 1, "TS-RES-004", f"the final state was read before {member}'s image was validated"
    )


# --- scoped reads, diagnostics, scripts ----------------------------------------------------------------------


def _scoped(**changes: Any) -> dict[str, Any]:
    return {**_read(), "scopes": [{"ref": "s1", "label": "Main"}, {"ref": "s2", "label": "Main"}], **changes}


BAD_SCOPED: dict[str, object] = {
    "none": None,
    "string": "scoped text",
    "no-scopes": _read(),
    "scope-equals-element": _scoped(scopes=[{"ref": "e1", "label": "Main"}]),
    "duplicate-scope": _scoped(scopes=[{"ref": "s1", "label": "A"}, {"ref": "s1", "label": "B"}]),
    "empty-scope-label": _scoped(scopes=[{"ref": "s1", "label": ""}]),
    "scope-ref-257-bytes": _scoped(scopes=[{"ref": "s" * 257, "label": "A"}]),
    "scope-label-surrogate": _scoped(scopes=[{"ref": "s1", "label": "a\ud800"}]),
}


@pytest.mark.clause("TS-RES-005")
@pytest.mark.parametrize("case", sorted(BAD_SCOPED))
def test_invalid_scoped_read_stops_the_run(flavour: Flavour, case: str) -> None:
    _stops(flavour, "read_page_scoped", BAD_SCOPED[case], "TS-RES-005", f"scoped read {case}")


@pytest.mark.clause("TS-RES-005")
def test_valid_scoped_read_is_kept(flavour: Flavour) -> None:
    many = [{"ref": f"s{index}", "label": "Section"} for index in range(2, 1500)]
    scoped = _scoped(scopes=[{"ref": "s" * 256, "label": "Main"}, *many])
    report, _ = _succeeds(flavour, "read_page_scoped", scoped, "TS-RES-005", "scoped read with repeated labels")
    expect(report.get("result") == scoped, "TS-RES-005", "a valid scoped read was altered")


@pytest.mark.clause("TS-RES-006")
@pytest.mark.parametrize("case", ["none", "string", "with-element", "bad-version"])
def test_invalid_diagnostics_read_stops_the_run(flavour: Flavour, case: str) -> None:
    reply = {
        "none": None,
        "string": "console: ok",
        "with-element": _read(),
        "bad-version": _read(elements=[], version=0),
    }[case]
    _stops(flavour, "read_diagnostics", reply, "TS-RES-006", f"diagnostics read {case}")


@pytest.mark.clause("TS-RES-006")
def test_valid_diagnostics_read_is_kept(flavour: Flavour) -> None:
    read = _read(elements=[], text="2 console messages", omitted=["report_limit"])
    report, _ = _succeeds(flavour, "read_diagnostics", read, "TS-RES-006", "diagnostics read")
    expect(report.get("result") == read, "TS-RES-006", "a valid diagnostics read was altered")


@pytest.mark.clause("TS-RES-007")
@pytest.mark.parametrize("case", ["none", "number", "surrogate", "dict"])
def test_invalid_script_result_stops_the_run(flavour: Flavour, case: str) -> None:
    reply = {"none": None, "number": 5, "surrogate": "a\ud800", "dict": {"value": 1}}[case]
    _stops(flavour, "run_script", reply, "TS-RES-007", f"script result {case}")


@pytest.mark.clause("TS-RES-007")
@pytest.mark.parametrize("text", ["", "x" * 300_000, "é ✓"], ids=["empty", "large", "unicode"])
def test_script_text_is_preserved(flavour: Flavour, text: str) -> None:
    report, _ = _succeeds(flavour, "run_script", text, "TS-RES-007", "script result")
    expect(report.get("result") == text, "TS-RES-007", "the script result was not preserved whole")


# --- file outcomes -------------------------------------------------------------------------------------------

FILE_CASES = [
    pytest.param(member, status, effect, cleanup, id=f"{member}-{status}-{effect}-{cleanup}")
    for member in ("upload_file", "download_file")
    for status, effect in sorted(FILE_OUTCOME_PAIRS)
    for cleanup in FILE_CLEANUP_VALUES
    if member == "upload_file" or cleanup == "completed"
]


@pytest.mark.clause("TS-RES-008")
@pytest.mark.parametrize(("member", "status", "effect", "cleanup"), FILE_CASES)
def test_file_outcome_sets_ok_only_when_completed(
    flavour: Flavour, member: str, status: str, effect: str, cleanup: str
) -> None:
    outcome = {"version": 1, "status": status, "effect": effect, "cleanup": cleanup}
    toolset, _ = _run(flavour, member, outcome)
    report = payload(execute(toolset, function_call(member, VALID_ARGUMENTS[member])))
    expect(report.get("ok") is (status == "completed"), "TS-RES-008", f"{status}/{effect} gave ok={report.get('ok')}")
    expect(
        report.get("result") == outcome and "state" in report,
        "TS-RES-008",
        f"the file outcome was not kept with state: {report}",
    )


BAD_FILES: dict[str, object] = {
    "extra-field": {"version": 1, "status": "completed", "effect": "completed", "cleanup": "completed", "path": "/x"},
    "no-cleanup": {"version": 1, "status": "completed", "effect": "completed"},
    "completed-none": {"version": 1, "status": "completed", "effect": "none", "cleanup": "completed"},
    "refused-unknown": {"version": 1, "status": "refused", "effect": "unknown", "cleanup": "completed"},
    "cleanup-done": {"version": 1, "status": "completed", "effect": "completed", "cleanup": "done"},
    "version-2": {"version": 2, "status": "completed", "effect": "completed", "cleanup": "completed"},
    "version-true": {"version": True, "status": "completed", "effect": "completed", "cleanup": "completed"},
    "string": "uploaded",
    "none": None,
}


@pytest.mark.clause("TS-RES-008")
@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_invalid_file_outcome_stops_before_final_state(flavour: Flavour, case: str) -> None:
    driver = _stops(flavour, "upload_file", BAD_FILES[case], "TS-RES-008", f"file outcome {case}")
    expect(driver.log.count("state") == 1, "TS-RES-008", "the final state was read before the file outcome was checked")


# --- errors and other results --------------------------------------------------------------------------------


@pytest.mark.clause("TS-RES-009", "TS-RES-011")
@pytest.mark.parametrize("member", ["click", "get_page_text", "screenshot"])
def test_browser_error_text_reaches_the_model_with_state(flavour: Flavour, member: str) -> None:
    toolset, driver = _run(flavour, member, BrowserError("Element no longer exists."))
    report = payload(execute(toolset, function_call(member, VALID_ARGUMENTS[member])))
    expect(
        report.get("ok") is False and report.get("error") == "Element no longer exists.",
        "TS-RES-009",
        f"BrowserError text did not pass through: {report}",
    )
    expect(
        "state" in report and driver.log.count("state") == 2,
        "TS-RES-011",
        "a failed operation did not report current state",
    )


@pytest.mark.clause("TS-RES-009", "TS-RES-011")
@pytest.mark.parametrize(
    "error",
    [ValueError("secret page text"), KeyError("token=abc123"), RuntimeError("https://probe.example/private")],
    ids=["value", "key", "runtime"],
)
def test_other_exceptions_become_a_generic_message(flavour: Flavour, error: Exception) -> None:
    toolset, _ = _run(flavour, "click", error)
    output = execute(toolset, function_call("click", VALID_ARGUMENTS["click"]))
    report = payload(output)
    leaked = str(error).strip("'")
    expect(
        report.get("ok") is False and isinstance(report.get("error"), str),
        "TS-RES-009",
        "a driver exception did not produce a failure report",
    )
    expect(
        leaked not in json.dumps(output) and type(error).__name__ not in report["error"],
        "TS-RES-009",
        f"exception text leaked to the model: {report['error']}",
    )
    expect("state" in report, "TS-RES-011", "a failed operation did not report current state")


@pytest.mark.clause("TS-RES-010")
@pytest.mark.parametrize(
    "reply",
    [
        pytest.param(5, id="int"),
        pytest.param({"done": True}, id="dict"),
        pytest.param(["a"], id="list"),
        pytest.param(b"bytes", id="bytes", marks=pytest.mark.python_sdk_only(python_only.BYTES)),
    ],
)
def test_action_results_must_be_string_or_none(flavour: Flavour, reply: object) -> None:
    toolset, _ = _run(flavour, "click", reply)
    try:
        report = payload(execute(toolset, function_call("click", VALID_ARGUMENTS["click"])))
    except BrowserError as error:
        raise AssertionError("[TS-RES-010] an invalid action result raised BrowserError") from error
    except Exception:
        return
    expect(
        report.get("ok") is False and report.get("result") != reply,
        "TS-RES-010",
        f"an action result of {reply!r} was accepted",
    )


@pytest.mark.clause("TS-RES-010", "TS-RES-011")
@pytest.mark.parametrize("reply", ["Clicked.", None], ids=["string", "none"])
def test_action_string_or_none_is_reported_with_state(flavour: Flavour, reply: object) -> None:
    report, _ = _succeeds(flavour, "click", reply, "TS-RES-010", "click result")
    expect(report.get("result") == reply and "state" in report, "TS-RES-010", f"click result was {report}")


@pytest.mark.clause("TS-RES-011")
def test_refused_action_still_reports_state(flavour: Flavour) -> None:
    toolset, driver = gated(flavour, ["click"], confirm_reply=False)
    report = payload(execute(toolset, function_call("click", VALID_ARGUMENTS["click"])))
    expect(report.get("ok") is False and "state" in report, "TS-RES-011", f"refused click gave {report}")
    expect(driver.log.count("state") == 2, "TS-RES-011", "a refused action did not read current state again")


# --- state projection ----------------------------------------------------------------------------------------

OBSERVATION = {"version": 1, "sequence": 0, "dropped_changes": 0, "title_truncated": False, "changes": []}
LEGACY_URLS: dict[str, str] = {
    "https://user:secret@Example.COM:443/account?token=1#top": "https://example.com",
    "http://probe.example:80/path": "http://probe.example",
    "https://probe.example:8443/a/b": "https://probe.example:8443",
    "about:blank": "about:blank",
    "data:text/html,<p>private</p>": "data:",
    "file:///home/user/notes.txt": "file:",
    "https://probe.example/" + "p" * 5000: "https://probe.example",
}


def _state_of(flavour: Flavour, tabs: list[dict[str, Any]], observation: dict[str, Any] | None) -> dict[str, Any]:
    state: dict[str, Any] = {"tabs": tabs}
    if observation is not None:
        state["observation"] = observation
    toolset, _ = _run(flavour, "state", state)
    report = payload(execute(toolset, function_call("get_page_text", {"tab_id": None})))
    state_reported: dict[str, Any] = report["state"]
    return state_reported


@pytest.mark.clause("TS-RES-012")
@pytest.mark.parametrize("url", sorted(LEGACY_URLS), ids=lambda url: url[:40])
def test_legacy_state_reports_origins_or_schemes(flavour: Flavour, url: str) -> None:
    reported = _state_of(flavour, [{**TAB, "url": url}], None)["tabs"][0]["url"]
    expect(reported == LEGACY_URLS[url], "TS-RES-012", f"{url[:60]} was reported as {reported[:80]}")


@pytest.mark.clause("TS-RES-012")
def test_legacy_limit_applies_to_the_reported_value(flavour: Flavour) -> None:
    _stops(
        flavour,
        "state",
        {"tabs": [{**TAB, "url": "https://" + "h" * 2100 + ".example/"}]},
        "TS-RES-012",
        "a reported origin over 2048 bytes",
    )


@pytest.mark.clause("TS-RES-013")
@pytest.mark.parametrize("url", ["data:text/html,x", "file:///tmp/x", "ftp://probe.example/", "chrome://settings"])
def test_observed_state_rejects_other_schemes(flavour: Flavour, url: str) -> None:
    _stops(
        flavour,
        "state",
        {"tabs": [{**TAB, "url": url}], "observation": OBSERVATION},
        "TS-RES-013",
        f"observed state with {url}",
    )


@pytest.mark.clause("TS-RES-013")
@pytest.mark.parametrize("url", ["https://user:pw@Probe.Example/x?q=1#f", "about:blank"])
def test_observed_state_shows_origins(flavour: Flavour, url: str) -> None:
    reported = _state_of(flavour, [{**TAB, "url": url}], OBSERVATION)["tabs"][0]["url"]
    wanted = "about:blank" if url == "about:blank" else "https://probe.example"
    expect(reported == wanted, "TS-RES-013", f"{url} was reported as {reported}")


TITLES = {
    "ascii-1024": ("x" * 1024, False),
    "ascii-1025": ("x" * 1025, True),
    "two-byte-600": ("é" * 600, True),
    "three-byte-342": ("€" * 342, True),
    "two-byte-512": ("é" * 512, False),
}


@pytest.mark.clause("TS-RES-013")
@pytest.mark.parametrize("case", sorted(TITLES))
def test_observed_titles_are_cut_at_a_character_boundary(flavour: Flavour, case: str) -> None:
    title, cut = TITLES[case]
    state = _state_of(flavour, [{**TAB, "title": title}], OBSERVATION)
    reported = state["tabs"][0]["title"]
    size = len(reported.encode("utf-8"))
    expect(title.startswith(reported) and size <= 1024, "TS-RES-013", f"title of {size} bytes is not a prefix cut")
    expect(
        state["observation"]["title_truncated"] is cut,
        "TS-RES-013",
        f"title_truncated is {state['observation']['title_truncated']} for {case}",
    )
    if cut:
        width = len(title[0].encode("utf-8"))
        expect(size > 1024 - width, "TS-RES-013", f"title was cut to {size} bytes, short of the 1024-byte limit")


@pytest.mark.clause("TS-RES-014")
@pytest.mark.parametrize("observed", [False, True], ids=["legacy", "observed"])
def test_no_tab_count_limit(flavour: Flavour, observed: bool) -> None:
    tabs = [{**TAB, "id": f"tab-{index}", "active": index == 0} for index in range(600)]
    state = _state_of(flavour, tabs, OBSERVATION if observed else None)
    expect(len(state["tabs"]) == 600, "TS-RES-014", f"600 tabs were reported as {len(state['tabs'])}")


# --- copies before the final state read ----------------------------------------------------------------------


def _spoil_read(result: dict[str, Any]) -> None:
    result["text"] = "changed during the final state read"
    result["elements"].clear()


def _spoil_image(result: dict[str, Any]) -> None:
    result["image_url"] = "https://probe.example/other.png"


def _spoil_outcome(result: dict[str, Any]) -> None:
    result["status"] = "refused"


COPIED: dict[str, tuple[dict[str, Any], Any]] = {
    "read_page": (_read(), _spoil_read),
    "read_page_scoped": (_scoped(), _spoil_read),
    "screenshot": (IMAGE, _spoil_image),
    "zoom": (IMAGE, _spoil_image),
    "upload_file": (
        {"version": 1, "status": "completed", "effect": "completed", "cleanup": "completed"},
        _spoil_outcome,
    ),
}


@pytest.mark.clause("TS-RES-015")
@pytest.mark.parametrize("member", sorted(COPIED))
def test_results_are_copied_before_the_final_state_read(flavour: Flavour, member: str) -> None:
    original, spoil = COPIED[member]
    handed_over = copy.deepcopy(original)

    def final_state(_: object) -> dict[str, Any]:
        spoil(handed_over)
        return {"tabs": [TAB]}

    replies = {member: Shared(handed_over), "state": Script({"tabs": [TAB]}, Act(final_state))}
    toolset, driver = gated(flavour, [member], replies=replies)
    output = execute(toolset, function_call(member, VALID_ARGUMENTS[member]))
    expect(driver.log.count("state") == 2, "TS-RES-015", "the final state was not read")
    report = payload(output)
    sent = output["output"][1] if member in ("screenshot", "zoom") else report.get("result")
    if isinstance(sent, dict):
        sent = {key: value for key, value in sent.items() if value is not None}
    expect(sent == original, "TS-RES-015", f"a change made during the final state read reached the model: {sent}")


# --- the output item -----------------------------------------------------------------------------------------

CALL_IDS = ("call_abc123", "call-é-✓", "x" * 200)


@pytest.mark.clause("TS-RES-018")
@pytest.mark.parametrize("member", ["get_page_text", "click", "screenshot"])
@pytest.mark.parametrize("call_id", CALL_IDS, ids=["plain", "unicode", "long"])
def test_output_carries_the_call_id(flavour: Flavour, member: str, call_id: str) -> None:
    toolset, _ = gated(flavour, [member])
    output = execute(toolset, function_call(member, VALID_ARGUMENTS[member], call_id=call_id))
    expect(
        output.get("type") == "function_call_output",
        "TS-RES-018",
        f"browser_{member} was answered with {output.get('type')!r}, not a function_call_output",
    )
    expect(
        output.get("call_id") == call_id,
        "TS-RES-018",
        f"browser_{member} output names call {output.get('call_id')!r}, not {call_id!r}",
    )


@pytest.mark.clause("TS-RES-018")
def test_refused_call_output_carries_the_call_id(flavour: Flavour) -> None:
    # A refusal is still the answer to that call: the model pairs outputs with calls by call_id alone.
    toolset, _ = gated(flavour, ["click"], confirm_reply=False)
    output = execute(toolset, function_call("click", VALID_ARGUMENTS["click"], call_id="call-refused-7"))
    precondition(payload(output).get("ok") is False, "TS-CONF-004", "a refused click was reported as done")
    expect(
        output.get("call_id") == "call-refused-7",
        "TS-RES-018",
        f"the refused click's output names call {output.get('call_id')!r}",
    )


def _error_name(error: BaseException) -> str:
    # A Node error crosses as a Python exception that keeps the JavaScript name it reported (js_class).
    return str(getattr(error, "js_class", type(error).__name__))


@pytest.mark.clause("TS-RES-019")
def test_browser_errors_report_one_stable_name(flavour: Flavour) -> None:
    # Application code tells controlled failures from other errors by name, so every instance must report the
    # same one, whatever its message. The Node toolset turns its own BrowserErrors into outputs (none reach the
    # caller), so the instances are made through the SDK's export.
    messages = ("Unknown tab.", "", "x" * 300)
    if flavour == "node":
        made = [shared_sdk().construct("BrowserError", message) for message in messages]
    else:
        made = [BrowserError(message) for message in messages]
    names = {_error_name(error) for error in made}
    expect(names == {"BrowserError"}, "TS-RES-019", f"BrowserError instances report the names {sorted(names)}")


# Optional element fields as Node drivers may leave them: undefined (the bridge's marker) or null.
UNDEFINED = {"$undefined": True}
OPTIONAL_FIELDS = {"value": "textbox", "options": "listbox", "checked": "checkbox"}


@pytest.mark.clause("TS-RES-020")
@pytest.mark.parametrize("field", sorted(OPTIONAL_FIELDS))
def test_node_omits_undefined_optional_read_fields(flavour: Flavour, field: str) -> None:
    if flavour != "node":
        not_implemented("undefined beside null is JavaScript's; a Python driver has one None")
    element = _element(role=OPTIONAL_FIELDS[field], **{field: UNDEFINED})
    report, _ = _succeeds(flavour, "read_page", _read(elements=[element]), "TS-RES-020", f"an undefined {field}")
    kept = report["result"]["elements"][0]
    expect(field not in kept, "TS-RES-020", f"an undefined {field} reached the model as {kept.get(field)!r}")


@pytest.mark.clause("TS-RES-020")
@pytest.mark.parametrize("field", sorted(OPTIONAL_FIELDS))
def test_node_rejects_null_optional_read_fields(flavour: Flavour, field: str) -> None:
    if flavour != "node":
        not_implemented("null as distinct from an omitted field is the Node SDK's rule for its drivers")
    toolset, _ = _run(flavour, "read_page", _read(elements=[_element(role=OPTIONAL_FIELDS[field], **{field: None})]))
    try:
        output = execute(toolset, function_call("read_page", VALID_ARGUMENTS["read_page"]))
    except BrowserError as error:
        violation("TS-RES-020", f"a null {field} raised BrowserError, which the model would see: {error}")
    except Exception:
        return
    violation("TS-RES-020", f"a null {field} was accepted: {payload(output).get('result')}")
