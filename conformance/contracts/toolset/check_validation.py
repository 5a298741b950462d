"""Argument validation limits (spec/000 "Driver contract", "Opt in to scoped reads and pointer input", "Opt in
to diagnostics, scripts, and file transfers").

For every documented limit, the boundary values must reach the driver and the values one past them must not;
hypothesis then explores the inside and outside of each range. An invalid call must never reach the driver
and never ask for consent.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.assertions import expect
from conformance.contracts.toolset._toolsets import VALID_ARGUMENTS, execute, function_call, gated, payload
from conformance.flavours import Flavour
from conformance.members import ALL_NAMES

SAFE_MAX = 2**53 - 1
TWO_BYTE = "é"  # two UTF-8 bytes, so byte limits and character counts differ
LONE_SURROGATE = "\ud800"
LETTERS = st.characters(min_codepoint=0x61, max_codepoint=0x7A)


@dataclass(frozen=True)
class Limit:
    """One documented limit on one field: boundary values, values just past them, and range strategies."""

    member: str
    field: str
    clause: str
    valid: tuple[Any, ...]
    invalid: tuple[Any, ...]
    inside: Any = None  # hypothesis strategy of valid values
    outside: Any = None  # hypothesis strategy of invalid values

    @property
    def id(self) -> str:
        return f"{self.member}.{self.field}"


def _int_range(low: int, high: int) -> tuple[Any, Any]:
    inside = st.integers(low, high)
    outside = st.one_of(
        st.integers(max_value=low - 1),
        st.integers(min_value=high + 1),
        st.booleans(),
        st.floats(allow_nan=True, allow_infinity=True).filter(lambda number: not float(number).is_integer()),
        st.text(max_size=3),
        st.none(),
    )
    return inside, outside


def _int_limit(member: str, name: str, clause: str, low: int, high: int) -> Limit:
    inside, outside = _int_range(low, high)
    return Limit(
        member,
        name,
        clause,
        (low, high),
        (low - 1, high + 1, True, False, 1.5, math.inf, str(low), None),
        inside,
        outside,
    )


def _bytes_text(limit: int) -> tuple[Any, Any]:
    inside = st.text(st.one_of(LETTERS, st.just(TWO_BYTE)), min_size=1, max_size=limit // 2)
    outside = st.one_of(
        st.text(LETTERS, min_size=limit + 1, max_size=limit + 40),
        st.text(st.just(TWO_BYTE), min_size=limit // 2 + 1, max_size=limit // 2 + 20),
        st.just(""),
        st.builds(lambda text: text + LONE_SURROGATE, st.text(LETTERS, max_size=5)),
    )
    return inside, outside


def _text_limit(member: str, name: str, clause: str, limit: int) -> Limit:
    inside, outside = _bytes_text(limit)
    return Limit(
        member,
        name,
        clause,
        ("a", "x" * limit, TWO_BYTE * (limit // 2)),
        ("", "x" * (limit + 1), TWO_BYTE * (limit // 2) + "x", "a" + LONE_SURROGATE, None, 7),
        inside,
        outside,
    )


def _choice_limit(
    member: str, name: str, clause: str, choices: tuple[str, ...], invalid: tuple[Any, ...], other_max_size: int
) -> Limit:
    """A field taking exactly one of ``choices``: any other text (up to ``other_max_size`` characters) is invalid."""
    return Limit(
        member,
        name,
        clause,
        choices,
        invalid,
        st.sampled_from(list(choices)),
        st.text(max_size=other_max_size).filter(lambda s: s not in choices),
    )


def _points(count: int) -> list[dict[str, int]]:
    return [{"x": index, "y": index} for index in range(count)]


_COORD_IN, _COORD_OUT = _int_range(0, SAFE_MAX)
_WAIT_SPACE = st.sampled_from([" ", "\t", "\n"])

LIMITS: tuple[Limit, ...] = (
    # wait_for: text normalized (runs of whitespace become one space, ends trimmed) then 1..256 bytes.
    Limit(
        "wait_for",
        "text",
        "TS-VAL-002",
        ("a", "x" * 256, TWO_BYTE * 128, "  " + "x" * 256 + "  ", "a" + " \t\n " * 100 + "b" + "x" * 253),
        ("", "   ", "\n\t", "x" * 257, TWO_BYTE * 128 + "x", "a" + " " * 3 + "x" * 256, None, 1),
        st.builds(
            lambda pad, word, tail: pad + word + tail,
            st.text(_WAIT_SPACE, max_size=50),
            st.text(LETTERS, min_size=1, max_size=256),
            st.text(_WAIT_SPACE, max_size=50),
        ),
        st.one_of(
            st.text(_WAIT_SPACE, max_size=30),
            st.builds(
                lambda pad, word: pad + word + pad,
                st.text(_WAIT_SPACE, max_size=20),
                st.text(LETTERS, min_size=257, max_size=300),
            ),
        ),
    ),
    _int_limit("wait_for", "timeout_ms", "TS-VAL-002", 1, 30000),
    Limit(
        "run_script",
        "source",
        "TS-VAL-003",
        ("x", "return 1;" * 20000, TWO_BYTE),
        ("", LONE_SURROGATE, "ok" + LONE_SURROGATE, None, 5),
        st.text(min_size=1, max_size=200),
        st.builds(lambda text: text + LONE_SURROGATE, st.text(max_size=20)),
    ),
    _int_limit("run_script", "timeout_ms", "TS-VAL-003", 1, 30000),
    _choice_limit(
        "read_diagnostics", "source", "TS-VAL-004", ("console", "network"), ("dom", "", "Console", None, 1), 8
    ),
    _int_limit("read_diagnostics", "limit", "TS-VAL-004", 1, 100),
    Limit(
        "click_at",
        "x",
        "TS-VAL-005",
        (0, SAFE_MAX),
        (-1, SAFE_MAX + 1, True, 1.5, math.nan, math.inf, "1", None),
        _COORD_IN,
        _COORD_OUT,
    ),
    Limit("click_at", "y", "TS-VAL-005", (0, SAFE_MAX), (-1, SAFE_MAX + 1, False, 0.5, None), _COORD_IN, _COORD_OUT),
    Limit("hover_at", "x", "TS-VAL-005", (0, SAFE_MAX), (-1, SAFE_MAX + 1, True, 2.5, None), _COORD_IN, _COORD_OUT),
    Limit("hover_at", "y", "TS-VAL-005", (0, SAFE_MAX), (-1, SAFE_MAX + 1, True, -math.inf), _COORD_IN, _COORD_OUT),
    _choice_limit("click_at", "button", "TS-VAL-005", ("left", "right", "middle"), ("wheel", "Left", "", None, 1), 8),
    Limit(
        "click_at",
        "click_count",
        "TS-VAL-005",
        (1, 2, 3),
        (0, 4, True, 2.5, "1", None),
        st.sampled_from([1, 2, 3]),
        st.one_of(st.integers().filter(lambda n: n not in (1, 2, 3)), st.booleans()),
    ),
    Limit(
        "drag_path",
        "path",
        "TS-VAL-006",
        (_points(2), _points(100)),
        (
            _points(1),
            _points(101),
            [],
            [{"x": 0, "y": 0}, {"x": 1, "y": 1, "z": 2}],
            [{"x": 0}, {"x": 1, "y": 1}],
            [{"x": -1, "y": 0}, {"x": 1, "y": 1}],
            [{"x": True, "y": 0}, {"x": 1, "y": 1}],
            None,
        ),
        st.lists(st.fixed_dictionaries({"x": _COORD_IN, "y": _COORD_IN}), min_size=2, max_size=100),
        st.one_of(
            st.lists(st.fixed_dictionaries({"x": _COORD_IN, "y": _COORD_IN}), max_size=1),
            st.lists(st.fixed_dictionaries({"x": _COORD_IN, "y": _COORD_IN}), min_size=101, max_size=110),
            st.lists(st.fixed_dictionaries({"x": _COORD_OUT, "y": _COORD_IN}), min_size=2, max_size=4),
        ),
    ),
    Limit(
        "drag_path",
        "keys",
        "TS-VAL-006",
        ([], ["Control", "Alt", "Meta", "Shift"], ["Shift"]),
        (["Shift", "Shift"], ["Ctrl"], ["shift"], [""], "Shift", None),
        st.lists(st.sampled_from(["Control", "Alt", "Meta", "Shift"]), unique=True),
        st.lists(st.sampled_from(["Control", "Alt", "Meta", "Shift"]), min_size=2).filter(
            lambda keys: len(set(keys)) < len(keys)
        ),
    ),
    Limit(
        "click_at",
        "keys",
        "TS-VAL-006",
        ([], ["Meta", "Control"]),
        (["Alt", "Alt"], ["Command"], None),
        st.lists(st.sampled_from(["Control", "Alt", "Meta", "Shift"]), unique=True),
        st.lists(st.text(LETTERS, min_size=1, max_size=6), min_size=1).filter(
            lambda keys: not set(keys) <= {"Control", "Alt", "Meta", "Shift"}
        ),
    ),
    Limit(
        "hold_keys",
        "keys",
        "TS-VAL-007",
        (["a"], [f"k{index}" for index in range(8)], ["x" * 64], [TWO_BYTE * 32], ["Shift", "a"]),
        (
            [],
            [f"k{index}" for index in range(9)],
            ["a", "a"],
            [""],
            ["x" * 65],
            [TWO_BYTE * 32 + "x"],
            [LONE_SURROGATE],
            ["a", 1],
            "a",
            None,
        ),
        st.lists(
            st.text(st.one_of(LETTERS, st.just(TWO_BYTE)), min_size=1, max_size=32), min_size=1, max_size=8, unique=True
        ),
        st.one_of(
            st.lists(st.text(LETTERS, min_size=1, max_size=3), min_size=9, max_size=12, unique=True),
            st.lists(st.text(LETTERS, min_size=65, max_size=70), min_size=1, max_size=3),
        ),
    ),
    _int_limit("hold_keys", "duration_ms", "TS-VAL-007", 1, 3000),
    Limit(
        "read_page_scoped",
        "root",
        "TS-VAL-008",
        (None, "s", "x" * 256, TWO_BYTE * 128),
        ("", "x" * 257, TWO_BYTE * 128 + "x", "a" + LONE_SURROGATE, 5),
        *_bytes_text(256),
    ),
    _int_limit("read_page_scoped", "depth", "TS-VAL-008", 1, 32),
    _choice_limit("read_page_scoped", "filter", "TS-VAL-008", ("all", "interactive"), ("visible", "", None), 12),
    _text_limit("upload_file", "grant_id", "TS-VAL-009", 256),
    _text_limit("download_file", "grant_id", "TS-VAL-009", 256),
    Limit(
        "zoom",
        "region",
        "TS-VAL-010",
        ([0, 0, 1, 1], [0, 0, SAFE_MAX, SAFE_MAX], [5, 6, 7, 8]),
        (
            [5, 0, 5, 10],
            [0, 5, 10, 5],
            [6, 0, 5, 10],
            [0, 0, 10],
            [0, 0, 10, 10, 10],
            [-1, 0, 10, 10],
            [0, 0, True, 10],
            [0, 0, SAFE_MAX + 1, 10],
            [0, 0, 1.5, 10],
            None,
        ),
        st.tuples(st.integers(0, 1000), st.integers(0, 1000), st.integers(1, 1000), st.integers(1, 1000)).map(
            lambda box: [box[0], box[1], box[0] + box[2], box[1] + box[3]]
        ),
        st.tuples(st.integers(0, 1000), st.integers(0, 1000), st.integers(-1000, 0), st.integers(0, 1000)).map(
            lambda box: [box[0], box[1], box[0] + box[2], box[1] + box[3]]
        ),
    ),
    Limit("switch_tab", "tab_id", "TS-VAL-011", ("tab-1",), (None, 1, ["tab-1"])),
    Limit("close_tab", "tab_id", "TS-VAL-011", ("tab-1",), (None, 0)),
    Limit("get_page_text", "tab_id", "TS-VAL-011", (None, "tab-1"), (1, True, [])),
    Limit("click", "tab_id", "TS-VAL-011", (None, "tab-1"), (2, {})),
    Limit(
        "set_checked",
        "checked",
        "TS-VAL-012",
        (True, False),
        (1, 0, "true", None),
        st.booleans(),
        st.one_of(st.integers(), st.text(max_size=5), st.none()),
    ),
    # Plain text fields: any string (even empty: the documents set no length), nothing else.
    *(
        Limit(member, field, "TS-VAL-013", ("", "x", TWO_BYTE * 300), (None, 7, True, ["x"], {"x": 1}))
        for member, field in (
            ("navigate", "url"),
            ("find", "query"),
            ("click", "target"),
            ("hover", "target"),
            ("scroll_to", "target"),
            ("select_option", "target"),
            ("set_checked", "target"),
            ("type", "text"),
        )
    ),
    # Lists of strings: the documents bound neither length nor content, so an empty list is valid too.
    *(
        Limit(
            member,
            field,
            "TS-VAL-013",
            ([], ["a"], ["a", "a", ""]),
            ("a", None, [1], ["a", None], [["a"]], {"a": "b"}),
            st.lists(st.text(max_size=8), max_size=5),
            st.one_of(
                st.text(max_size=5),
                st.lists(st.integers(), min_size=1, max_size=3),
                st.none(),
            ),
        )
        for member, field in (("key", "keys"), ("select_option", "values"))
    ),
    _choice_limit("read_page", "filter", "TS-VAL-013", ("all", "interactive"), ("visible", "All", "", None, 1), 12),
    _choice_limit(
        "scroll",
        "direction",
        "TS-VAL-013",
        ("up", "down", "left", "right"),
        ("Down", "forward", "", None, 1, ["down"]),
        8,
    ),
    Limit(
        "scroll",
        "amount",
        "TS-VAL-013",
        (0, SAFE_MAX),
        (-1, SAFE_MAX + 1, True, False, 1.5, math.inf, "3", None),
        *_int_range(0, SAFE_MAX),
    ),
)
BY_ID = {limit.id: limit for limit in LIMITS}


def _call(limit: Limit, value: Any) -> tuple[Any, dict[str, Any]]:
    arguments = dict(VALID_ARGUMENTS[limit.member])
    arguments[limit.field] = value
    return function_call(limit.member, json.dumps(arguments)), arguments


def _expect_accepted(flavour: Flavour, limit: Limit, value: Any) -> None:
    toolset, driver = gated(flavour, [limit.member])
    call, arguments = _call(limit, value)
    report = payload(execute(toolset, call))
    received = driver.log.of(limit.member)
    expect(
        report.get("ok") is True and len(received) == 1,
        limit.clause,
        f"{limit.id}={_short(value)} is documented as valid but was refused: {report.get('error')}",
    )
    if limit.member == "run_script":
        expect(received[0].argument == arguments, "TS-VAL-003", "the driver did not receive the script unchanged")


def _expect_refused(flavour: Flavour, limit: Limit, value: Any) -> None:
    toolset, driver = gated(flavour, [limit.member])
    call, _ = _call(limit, value)
    report = payload(execute(toolset, call))
    reached = [name for name in driver.log.names() if name != "state"]
    expect(report.get("ok") is False, limit.clause, f"{limit.id}={_short(value)} is invalid but was accepted")
    expect(reached == [], limit.clause, f"invalid {limit.id}={_short(value)} reached {reached}")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _boundary_cases(valid: bool) -> list[Any]:
    return [
        pytest.param(limit.id, index, id=f"{limit.id}-{index}", marks=pytest.mark.clause(limit.clause))
        for limit in LIMITS
        for index in range(len(limit.valid if valid else limit.invalid))
    ]


@pytest.mark.parametrize(("limit_id", "index"), _boundary_cases(valid=True))
def test_boundary_value_is_accepted(flavour: Flavour, limit_id: str, index: int) -> None:
    limit = BY_ID[limit_id]
    _expect_accepted(flavour, limit, limit.valid[index])


@pytest.mark.parametrize(("limit_id", "index"), _boundary_cases(valid=False))
def test_value_past_the_limit_is_refused(flavour: Flavour, limit_id: str, index: int) -> None:
    limit = BY_ID[limit_id]
    _expect_refused(flavour, limit, limit.invalid[index])


RANGED = [
    pytest.param(limit.id, id=limit.id, marks=pytest.mark.clause(limit.clause))
    for limit in LIMITS
    if limit.inside is not None
]


@pytest.mark.parametrize("limit_id", RANGED)
@given(data=st.data())
def test_values_inside_the_range_are_accepted(flavour: Flavour, limit_id: str, data: st.DataObject) -> None:
    limit = BY_ID[limit_id]
    _expect_accepted(flavour, limit, data.draw(limit.inside, label=limit.id))


@pytest.mark.parametrize("limit_id", RANGED)
@given(data=st.data())
def test_values_outside_the_range_are_refused(flavour: Flavour, limit_id: str, data: st.DataObject) -> None:
    limit = BY_ID[limit_id]
    _expect_refused(flavour, limit, data.draw(limit.outside, label=limit.id))


def _expect_arguments_refused(flavour: Flavour, member: str, arguments: dict[str, Any] | str, what: str) -> None:
    """A call of browser_``member`` with ``arguments`` (or raw argument text) fails without reaching the driver;
    ``what`` names the arguments."""
    toolset, driver = gated(flavour, [member])
    report = payload(execute(toolset, function_call(member, arguments)))
    reached = [name for name in driver.log.names() if name != "state"]
    expect(report.get("ok") is False and reached == [], "TS-VAL-001", f"{what} reached {reached}")


@pytest.mark.clause("TS-VAL-001")
@pytest.mark.parametrize("member", ALL_NAMES)
def test_unknown_field_is_refused(flavour: Flavour, member: str) -> None:
    arguments = {**VALID_ARGUMENTS[member], "extra": None}
    _expect_arguments_refused(flavour, member, arguments, f"browser_{member} with an unknown field")


@pytest.mark.clause("TS-VAL-001")
@pytest.mark.parametrize("member", [name for name in ALL_NAMES if VALID_ARGUMENTS[name]])
def test_missing_field_is_refused(flavour: Flavour, member: str) -> None:
    arguments = dict(VALID_ARGUMENTS[member])
    arguments.pop(next(iter(arguments)))
    _expect_arguments_refused(flavour, member, arguments, f"browser_{member} with a missing field")


MALFORMED = {"truncated": '{"tab_id": null', "array": "[]", "string": '"tab_id"', "null": "null", "empty": ""}


@pytest.mark.clause("TS-VAL-001")
@pytest.mark.parametrize("member", ["get_page_text", "click", "navigate"])
@pytest.mark.parametrize("shape", sorted(MALFORMED))
def test_malformed_arguments_are_refused(flavour: Flavour, member: str, shape: str) -> None:
    _expect_arguments_refused(flavour, member, MALFORMED[shape], f"malformed {shape} arguments")


@pytest.mark.clause("TS-VAL-001", "TS-CONF-007")
@pytest.mark.parametrize("member", ["get_page_text", "screenshot"])
def test_invalid_protected_read_asks_no_consent(flavour: Flavour, member: str) -> None:
    toolset, driver = gated(flavour, [member], confirm_reads=[member])
    report = payload(execute(toolset, function_call(member, {"tab_id": 5})))
    expect(report.get("ok") is False, "TS-VAL-001", "an invalid protected read succeeded")
    expect(driver.log.names() == [], "TS-VAL-001", f"an invalid protected read reached {driver.log.names()}")


def _unfinished_call(member: str, status: str) -> Any:
    call = function_call(member, VALID_ARGUMENTS[member])
    return call.model_copy(update={"status": status})


@pytest.mark.clause("TS-VAL-014")
@pytest.mark.parametrize("member", ["get_page_text", "click", "navigate"])
@pytest.mark.parametrize("status", ["in_progress", "incomplete"])
def test_unfinished_call_is_refused_before_any_work(flavour: Flavour, member: str, status: str) -> None:
    # The documents say the status is checked before any driver work, not how the refusal looks: an exception
    # and an output with ok false both count, a state read, consent or a driver call never does.
    toolset, driver = gated(flavour, [member])
    try:
        report: dict[str, Any] | None = payload(execute(toolset, _unfinished_call(member, status)))
    except Exception:
        # Any refusal form is allowed; only the work done is judged.
        report = None
    expect(
        report is None or report.get("ok") is False,
        "TS-VAL-014",
        f"a {status} browser_{member} call was executed: {report}",
    )
    expect(driver.log.names() == [], "TS-VAL-014", f"a {status} browser_{member} call reached {driver.log.names()}")
