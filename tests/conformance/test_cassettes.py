"""The cassette format: round trips, validation messages naming file:line, faults, atomic saves, the builder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance import cassettes
from conformance.cassette_builder import CassetteBuilder, function_call, message
from conformance.cassettes import CassetteError


def _sample() -> cassettes.Cassette:
    return (
        CassetteBuilder("sample", description="one call then an answer")
        .turn(function_call("lookup", {"reference": "A"}, call_id="c1"))
        .fault("cut_stream", after_sequence=1)
        .turn(message("Done."))
        .build()
    )


def _lines(cassette: cassettes.Cassette) -> list[dict[str, object]]:
    return [json.loads(line) for line in cassette.dumps().splitlines()]


def _text(lines: list[dict[str, object]]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


def test_round_trip_keeps_everything() -> None:
    cassette = _sample()
    again = cassettes.loads(cassette.dumps())
    assert again == cassette
    assert again.exchanges[0].faults[0].kind == "cut_stream"
    assert [event["sequence_number"] for event in again.exchanges[1].response.events or ()] == [0, 1, 2]


def test_header_names_format_and_version() -> None:
    header = _lines(_sample())[0]
    assert header["format"] == "driverkit.responses" and header["version"] == 1


def test_unknown_version_is_an_error_naming_the_line() -> None:
    lines = _lines(_sample())
    lines[0]["version"] = 2
    with pytest.raises(CassetteError) as caught:
        cassettes.loads(_text(lines), "bug.jsonl")
    assert str(caught.value).startswith("bug.jsonl:1: unsupported cassette version 2")


@pytest.mark.parametrize(
    "mutate,line,problem",
    [
        (lambda lines: lines[1].__setitem__("exchange", 5), 2, "exchange number 5 is out of order"),
        (lambda lines: lines[1]["response"].__setitem__("status", 42), 2, "not an HTTP status"),
        (lambda lines: lines[2]["response"]["events"][1].__setitem__("sequence_number", 0), 3, "does not increase"),
        (lambda lines: lines[2]["response"]["events"].pop(0), 3, "must start with response.created"),
        (lambda lines: lines[1]["faults"][0].__setitem__("after_sequence", 99), 2, "does not contain"),
        (lambda lines: lines[1]["faults"][0].__setitem__("kind", "explode"), 2, "unknown fault kind 'explode'"),
        (lambda lines: lines[1]["request"].__setitem__("surprise", 1), 2, "unknown field(s) surprise"),
        (lambda lines: lines[2]["response"].__setitem__("body", {}), 3, "exactly one of body or events"),
    ],
    ids=[
        "exchange-order",
        "status",
        "sequence",
        "first-event",
        "fault-target",
        "fault-kind",
        "extra-field",
        "body-and-events",
    ],
)
def test_validation_names_file_line_and_problem(mutate: object, line: int, problem: str) -> None:
    lines = _lines(_sample())
    mutate(lines)  # type: ignore[operator]
    with pytest.raises(CassetteError) as caught:
        cassettes.loads(_text(lines), "case.jsonl")
    assert str(caught.value).startswith(f"case.jsonl:{line}: ")
    assert problem in str(caught.value)


def test_invalid_json_and_empty_file() -> None:
    with pytest.raises(CassetteError, match=r"^x.jsonl:2: invalid JSON"):
        cassettes.loads(_sample().dumps().splitlines()[0] + "\n{nope\n", "x.jsonl")
    with pytest.raises(CassetteError, match="empty cassette"):
        cassettes.loads("\n", "x.jsonl")


def test_missing_file_is_a_cassette_error(tmp_path: Path) -> None:
    with pytest.raises(CassetteError, match="cannot read cassette"):
        cassettes.load(tmp_path / "absent.jsonl")


def test_save_is_atomic_and_refuses_invalid_cassettes(tmp_path: Path) -> None:
    target = tmp_path / "s.jsonl"
    cassettes.save(_sample(), target)
    before = target.read_text()
    broken = cassettes.Cassette("broken", (), meta={"x": 1})
    object.__setattr__(
        broken,
        "exchanges",
        (
            _sample()
            .exchanges[0]
            .__class__(cassettes.RecordedRequest("POST", "no-slash"), _sample().exchanges[0].response),
        ),
    )
    with pytest.raises(CassetteError):
        cassettes.save(broken, target)
    assert target.read_text() == before
    assert [path.name for path in tmp_path.iterdir()] == ["s.jsonl"]


def test_builder_refuses_fault_without_turn_and_bad_indices() -> None:
    with pytest.raises(ValueError, match="add a turn"):
        CassetteBuilder("x").fault("drop_event", sequence=1)
    with pytest.raises(ValueError, match="permutation"):
        CassetteBuilder("x").turn(message("a"), message("b", item_id="m2"), indices=[0, 2])


def test_builder_out_of_order_turn_completes_in_index_order() -> None:
    first, second = message("a", item_id="m1"), message("b", item_id="m2")
    cassette = CassetteBuilder("x").turn(second, first, indices=[1, 0]).build()
    events = cassette.exchanges[0].response.events or ()
    assert [event.get("output_index") for event in events[1:-1]] == [1, 0]
    assert cassette.exchanges[0].response.final_response()["output"] == [first, second]  # type: ignore[index]


def test_saved_file_is_not_left_private(tmp_path: Path) -> None:
    target = tmp_path / "s.jsonl"
    cassettes.save(_sample(), target)
    # mkstemp would leave 0600; a saved cassette gets what a plain open() gives under the current umask.
    assert target.stat().st_mode & 0o777 == 0o666 & ~_umask()


def _umask() -> int:
    import os

    mask = os.umask(0)
    os.umask(mask)
    return mask
