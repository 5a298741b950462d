"""Known-deviation files: loading, clear errors for malformed files, applying strict xfail to checks."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from pathlib import Path

import pytest

from conformance import deviations
from conformance.deviations import (
    CONTRACTS_DIR,
    DeviationFileError,
    apply_deviations,
    deviation_file,
    list_command,
    load_deviations,
    parse_deviations,
)

TEST = "toolset/check_selection.py::test_exported_member_tuples_are_the_documented_vocabulary"
ENTRY = f"""
[[deviation]]
id = "DEV-1"
clause = "TS-SEL-009"
tests = ["{TEST}"]
sdk = "Exports lists instead of tuples."
"""


def _write(directory: Path, version: str, text: str) -> Path:
    path = directory / f"{version}.toml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_valid_file_parses() -> None:
    (deviation,) = parse_deviations(ENTRY, "3.57.0.toml")
    assert (deviation.id, deviation.clause, deviation.tests) == ("DEV-1", "TS-SEL-009", (TEST,))
    assert deviation.reason.startswith("known deviation DEV-1 (TS-SEL-009)")


def test_shipped_files_load() -> None:
    for path in sorted((CONTRACTS_DIR.parent / "known_deviations").glob("*.toml")):
        parse_deviations(path.read_text(encoding="utf-8"), str(path))


BROKEN: dict[str, tuple[str, str]] = {
    "toml-syntax": ("[[deviation]]\nid = \n", "not valid TOML"),
    "unknown-clause": (ENTRY.replace("TS-SEL-009", "TS-NOPE-001"), "unknown clause ID 'TS-NOPE-001'"),
    "missing-key": (ENTRY.replace('sdk = "Exports lists instead of tuples."', ""), "missing keys ['sdk']"),
    "extra-key": (ENTRY + 'owner = "me"\n', "unknown keys ['owner']"),
    "duplicate-id": (ENTRY + ENTRY, "duplicate id"),
    "bad-test-id": (ENTRY.replace(TEST, "check_selection"), "is not '<dir>/<module>.py::<test>'"),
    "missing-module": (ENTRY.replace("check_selection.py", "check_nothing.py"), "does not exist"),
    "empty-tests": (ENTRY.replace(f'["{TEST}"]', "[]"), "tests must be a nonempty list"),
    "multiline-sdk": (ENTRY.replace('"Exports lists instead of tuples."', '"""one\ntwo"""'), "one nonempty line"),
    "wrong-table": ('[deviation]\nid = "x"\n', "array of tables"),
    "stray-key": ('title = "x"\n' + ENTRY, "unexpected top-level keys"),
    "bad-fixed-in": (ENTRY + 'fixed_in = "soon"\n', "fixed_in must be an openai version"),
    "fixed-before-file": (ENTRY + 'fixed_in = "3.40.0"\n', "fixed_in 3.40.0 is not newer than the file's version"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_malformed_file_names_file_and_entry(case: str) -> None:
    text, message = BROKEN[case]
    with pytest.raises(DeviationFileError) as caught:
        parse_deviations(text, "known_deviations/3.57.0.toml")
    assert "known_deviations/3.57.0.toml" in str(caught.value)
    assert message in str(caught.value)


def test_entry_errors_carry_the_line_number() -> None:
    text = ENTRY + ENTRY.replace("DEV-1", "DEV-2").replace("TS-SEL-009", "XX-1")
    with pytest.raises(DeviationFileError, match=r"3\.57\.0\.toml:8: deviation #2 \(DEV-2\)"):
        parse_deviations(text, "3.57.0.toml")


def test_applicable_file_is_the_newest_not_newer(tmp_path: Path) -> None:
    for version in ("3.31.0", "3.40.2", "3.57.0"):
        _write(tmp_path, version, "")
    assert deviation_file("3.45.0", tmp_path) == tmp_path / "3.40.2.toml"
    assert deviation_file("3.57.0", tmp_path) == tmp_path / "3.57.0.toml"
    assert deviation_file("4.0.0", tmp_path) == tmp_path / "3.57.0.toml"
    assert deviation_file("3.30.9", tmp_path) is None
    assert load_deviations("3.30.9", tmp_path) == ()


def test_an_entry_lapses_from_the_release_that_fixed_it(tmp_path: Path) -> None:
    _write(tmp_path, "3.31.0", ENTRY + 'fixed_in = "3.36.1"\n' + ENTRY.replace("DEV-1", "DEV-2"))
    assert [deviation.id for deviation in load_deviations("3.36.0", tmp_path)] == ["DEV-1", "DEV-2"]
    assert [deviation.id for deviation in load_deviations("3.36.1", tmp_path)] == ["DEV-2"]
    assert [deviation.id for deviation in load_deviations("3.40.0", tmp_path)] == ["DEV-2"]


def test_badly_named_file_is_an_error(tmp_path: Path) -> None:
    _write(tmp_path, "latest", "")
    with pytest.raises(DeviationFileError, match="file name must be an openai version"):
        deviation_file("3.57.0", tmp_path)


def test_unparseable_sdk_version_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(DeviationFileError, match="cannot compare SDK version"):
        deviation_file("3.57.0rc1", tmp_path)


class FakeItem:
    """Just enough of a pytest item for apply_deviations."""

    def __init__(self, test: str, clauses: Iterable[str]) -> None:
        module, name = test.split("::", 1)
        self.path = CONTRACTS_DIR / module
        self.nodeid = f"conformance/contracts/{module}::{name}"
        self.markers: list[pytest.Mark] = [pytest.mark.clause(*clauses).mark]

    def add_marker(self, marker: pytest.MarkDecorator) -> None:
        self.markers.append(marker.mark)

    def iter_markers(self, name: str | None = None) -> Iterable[pytest.Mark]:
        return [mark for mark in self.markers if name is None or mark.name == name]


def _xfails(item: FakeItem) -> list[pytest.Mark]:
    return list(item.iter_markers("xfail"))


def test_apply_marks_every_parametrization_strictly(tmp_path: Path) -> None:
    _write(tmp_path, "3.57.0", ENTRY)
    sync, asynchronous = (FakeItem(f"{TEST}[{flavour}]", ["TS-SEL-009"]) for flavour in ("sync", "async"))
    other = FakeItem("toolset/check_selection.py::test_list_tabs_needs_only_state[sync]", ["TS-SEL-006"])
    applied = apply_deviations([sync, asynchronous, other], "3.57.0", tmp_path)
    assert [deviation.id for deviation in applied] == ["DEV-1"]
    for item in (sync, asynchronous):
        (mark,) = _xfails(item)
        assert mark.kwargs["strict"] is True and "DEV-1" in mark.kwargs["reason"]
    assert _xfails(other) == []
    apply_deviations([sync], "3.57.0", tmp_path)
    assert len(_xfails(sync)) == 1, "applying twice must not stack markers"


def test_apply_exact_parametrization_only(tmp_path: Path) -> None:
    _write(tmp_path, "3.57.0", ENTRY.replace(f'"{TEST}"', f'"{TEST}[async]"'))
    sync, asynchronous = (FakeItem(f"{TEST}[{flavour}]", ["TS-SEL-009"]) for flavour in ("sync", "async"))
    apply_deviations([sync, asynchronous], "3.57.0", tmp_path)
    assert _xfails(sync) == [] and len(_xfails(asynchronous)) == 1


def test_apply_rejects_a_check_that_does_not_declare_the_clause(tmp_path: Path) -> None:
    _write(tmp_path, "3.57.0", ENTRY)
    item = FakeItem(f"{TEST}[sync]", ["TS-SEL-001"])
    with pytest.raises(DeviationFileError, match="does not declare clause TS-SEL-009"):
        apply_deviations([item], "3.57.0", tmp_path)


def test_list_command_prints_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(deviations, "DEVIATIONS_DIR", tmp_path)
    monkeypatch.setattr(deviations, "installed_sdk_version", lambda: "3.57.0")
    _write(tmp_path, "3.57.0", ENTRY)
    assert list_command() == 0
    out = capsys.readouterr().out
    assert "1 known deviation(s) from 3.57.0.toml" in out and "DEV-1" in out and TEST in out


def test_list_command_reports_malformed_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(deviations, "DEVIATIONS_DIR", tmp_path)
    monkeypatch.setattr(deviations, "installed_sdk_version", lambda: "3.57.0")
    _write(tmp_path, "3.57.0", ENTRY.replace("TS-SEL-009", "TS-NOPE-001"))
    assert list_command() == 2
    assert "unknown clause ID 'TS-NOPE-001'" in capsys.readouterr().err


def test_list_command_without_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(deviations, "DEVIATIONS_DIR", tmp_path)
    monkeypatch.setattr(deviations, "installed_sdk_version", lambda: "3.57.0")
    assert list_command() == 0
    assert "no known-deviation file applies" in capsys.readouterr().out


def test_a_fixed_sdk_fails_the_run(pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """End to end: a deviation recorded for a check that passes turns into a failing strict XPASS."""
    directory = tmp_path / "deviations"
    directory.mkdir()
    _write(directory, "0.0.1", ENTRY)
    monkeypatch.setattr(deviations, "DEVIATIONS_DIR", directory)
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\nmarkers = clause\n")
    result = pytester.runpytest_inprocess(
        "--pyargs", "conformance.contracts.toolset", "-p", "no:randomly", "-k", "exported_member_tuples"
    )
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed") == 2, result.stdout.str()[-3000:]
    assert "XPASS(strict)" in result.stdout.str()
