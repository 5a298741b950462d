"""certificate.json has one format: the typed model, the shipped JSON Schema made from it, one loader for all."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conformance import certificate, certificate_format
from conformance.certificate_format import SCHEMA, SCHEMA_FILE, CertificateFormatError, problems
from conformance.clauses import registry
from conformance.compare import CertificateError
from conformance.compare import load as compare_load
from conformance.merge import MergeError
from conformance.merge import load as merge_load
from conformance.session import ClauseResult


def _built() -> dict[str, Any]:
    clauses = list(registry())[:3]
    results = [
        ClauseResult(clauses[0], "passed", ["contracts/browser/check_a.py::test_a"], []),
        ClauseResult(clauses[1], "failed", ["contracts/browser/check_b.py::test_b"], ["it broke"]),
        ClauseResult(clauses[2], "not_checked", [], ["blocked"], why="blocked", blocked_by=clauses[1].id),
    ]
    evidence = {
        "contracts/browser/check_b.py::test_b": {
            "calls": [
                {
                    "member": "click",
                    "arguments": {"target": "r1"},
                    "at_s": 0.1,
                    "seconds": 0.02,
                    "driver_calls": ["state", "click"],
                    "raw": None,
                    "raised": None,
                    "sdk": {"ok": True},
                }
            ],
            "omitted_calls": 0,
            "effects": [],
            "omitted_effects": 0,
            "point": [3, 4],
            "before": {"image": None, "note": "no screenshot before"},
            "after": {"image": "data:image/jpeg;base64,AAAA", "note": ""},
            "rerun": {"repeated": True, "note": "", "seconds": 0.5},
        }
    }
    subjects = [certificate.CertifiedSubject("browser driver", "mypkg:make", {"flavour": "sync"})]
    return dict(certificate.build(subjects, results, [], ["a note"], evidence))


def test_the_shipped_schema_is_the_models() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == certificate_format.schema_text(), (
        "the model changed: regenerate the schema with python -m conformance.certificate_format"
    )
    jsonschema.Draft202012Validator.check_schema(json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))


def test_a_built_certificate_validates_against_the_shipped_schema() -> None:
    built = _built()
    jsonschema.validate(built, json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))
    assert problems(built) == []


def _mutations() -> list[tuple[str, Any]]:
    return [
        ("unknown top-level field", lambda c: c.update(colour="red")),
        ("missing verdict", lambda c: c.pop("verdict")),
        ("bad status", lambda c: c["clauses"][0].update(status="fine")),
        ("reasons not a list", lambda c: c["clauses"][0].update(reasons="x")),
        ("summary lacks a status", lambda c: c["summary"].pop("passed")),
        ("summary count is a string", lambda c: c["summary"].update(passed="3")),
        ("boolean where a number goes", lambda c: next(iter(c["evidence"].values())).update(omitted_calls=True)),
        ("evidence call without member", lambda c: next(iter(c["evidence"].values()))["calls"][0].pop("member")),
        ("unknown why", lambda c: c["clauses"][2].update(why="bored")),
        ("profile not an object", lambda c: c["subjects"][0].update(profile=[])),
    ]


@pytest.mark.parametrize(("what", "mutate"), _mutations(), ids=[what for what, _ in _mutations()])
def test_the_kits_validator_and_a_json_schema_library_agree_on_broken_certificates(what: str, mutate: Any) -> None:
    broken = copy.deepcopy(_built())
    mutate(broken)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, SCHEMA)
    assert problems(broken), what


def _write(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "certificate.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "not JSON"),
        ({"format": "other"}, "not a driverkit certificate"),
        ({"format": "driverkit.certificate", "format_version": 1}, "format version 1; this kit reads version 2"),
        ("MISSING_CLAUSES", "the field 'clauses' is missing"),
        ("TWICE", "clauses listed twice"),
    ],
)
def test_every_reader_refuses_what_is_not_a_certificate_with_one_message(
    tmp_path: Path, content: Any, problem: str
) -> None:
    if content == "MISSING_CLAUSES":
        content = _built()
        content.pop("clauses")
    elif content == "TWICE":
        content = _built()
        content["clauses"].append(content["clauses"][0])
    path = _write(tmp_path, content)
    for reader, error in ((certificate_format.load, CertificateFormatError), (merge_load, MergeError)):
        with pytest.raises(error, match=str(path)) as raised:
            reader(tmp_path)
        assert problem in str(raised.value)
    with pytest.raises(CertificateError, match=problem):
        compare_load(path)


def test_a_written_certificate_loads_back(tmp_path: Path) -> None:
    json_path, _, _ = certificate.write(tmp_path, _built())
    loaded = certificate_format.load(json_path)
    assert loaded["verdict"] == "does not conform" and loaded["summary"]["failed"] == 1
