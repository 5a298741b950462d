"""The format of ``certificate.json``: one typed model, the JSON Schema made from it, and the one loader.

``certificate.json`` is the kit's machine interface: CI pipelines read its verdict, ``merge-certificates`` joins
shards, ``compare-sdks`` sets two side by side, ``certificate.html`` is rendered from it alone. Each of those reads
it through :func:`load`, which checks it against :data:`SCHEMA`, and the writer builds a :class:`Certificate`, so
the format is defined once, here. The schema ships in the wheel (``conformance/schema/``; regenerate it with
``python -m conformance.certificate_format``, a test fails when it drifts from the model) for readers outside the
kit.

The model is a set of TypedDicts (the certificate *is* JSON; a class hierarchy would only be converted back).
The schema generator understands exactly the annotations used here; :func:`problems` validates the keywords it
emits, so the kit needs no JSON Schema library at run time (the kit's tests cross-check with one).
"""

from __future__ import annotations

import json
import sys
import types
import typing
from pathlib import Path
from typing import Any, Final, Literal, NotRequired, TypedDict, Union, get_args, get_origin, get_type_hints

FORMAT: Final = "driverkit.certificate"
# 2: clauses say why they were not checked and what blocked them; fix_first lists the root causes.
FORMAT_VERSION: Final = 2
SCHEMA_ID: Final = f"https://responses-driver-kit.invalid/schema/certificate-v{FORMAT_VERSION}.json"
SCHEMA_FILE: Final = Path(__file__).with_name("schema") / f"certificate-v{FORMAT_VERSION}.schema.json"

Status = Literal["passed", "failed", "deviation", "unverified", "not_implemented", "not_checked"]
NotCheckedWhy = Literal["blocked", "stopped", "not_provoked", "environment", "not_run"]


class Subject(TypedDict):
    """What was certified: ``kind`` (browser driver, computer driver, SDK toolsets and runners), the option
    value that named it (None for the installed SDK), and what the kit found out about it."""

    kind: str
    spec: str | None
    profile: dict[str, Any]


class ShardRecord(TypedDict):
    """One certificate a merged certificate was made from."""

    name: str
    certificate: str


class RunRecord(TypedDict):
    """Whether the run checked everything it set out to (``incomplete`` says what cut it short), harness notes
    that concern no clause, and for a merged certificate the shards it was merged from."""

    complete: bool
    incomplete: list[str]
    notes: list[str]
    shards: NotRequired[list[ShardRecord]]


class ClauseEntry(TypedDict):
    """One clause: its outcome, in the kit's words with its source, why (at most three reasons), the implemented
    members an unverified clause is about, the checks that judged it, and for a clause not checked why not and
    the root clause that blocked it."""

    id: str
    status: Status
    summary: str
    source: str
    member: str | None
    reasons: list[str]
    members: list[str]
    checks: list[str]
    why: NotCheckedWhy | None
    blocked_by: str | None


class RootCauseEntry(TypedDict):
    """An entry of "What to fix first": a failed root clause, the clauses it blocks and the members they touch."""

    clause: str
    blocks: list[str]
    members: list[str]
    # The other failed clauses of the same requirement (conformance.requirements); absent in older certificates.
    same_cause: NotRequired[list[str]]


class EvidenceCall(TypedDict):
    """One member call a check made: its arguments, timing, what the driver returned or raised, the SDK's view."""

    member: str
    arguments: Any
    at_s: float
    seconds: float | None
    driver_calls: list[str]
    raw: Any
    raised: str | None
    sdk: Any


class Picture(TypedDict):
    """A thumbnail as a data URL, or a note saying why there is none."""

    image: str | None
    note: str


class Rerun(TypedDict):
    """What the evidence rerun of a failing check found: repeated (true), not (false), not rerun (null)."""

    repeated: bool | None
    note: str
    seconds: float


class Evidence(TypedDict):
    """What a check that did not pass saw: its last calls, the fixture page's record, pictures before and after."""

    calls: list[EvidenceCall]
    omitted_calls: int
    effects: list[Any] | None
    omitted_effects: int
    point: list[float] | None
    before: Picture
    after: Picture
    rerun: NotRequired[Rerun | None]


class Certificate(TypedDict):
    """A certificate: the verdict, what was certified and on which versions, every clause's outcome, the root
    causes to fix first, and the evidence of the checks behind failed and unverified clauses."""

    format: Literal["driverkit.certificate"]
    format_version: Literal[2]
    created: str
    verdict: str
    versions: dict[str, str | None]
    contract: list[str]
    subjects: list[Subject]
    run: RunRecord
    summary: dict[Status, int]
    clauses: list[ClauseEntry]
    fix_first: list[RootCauseEntry]
    evidence: dict[str, Evidence]


class CertificateFormatError(ValueError):
    """A file that is not a certificate of this format: the message names the file and what is wrong."""


# ------------------------------------------------------------------------------------------------ the schema

_MODULE: Final = sys.modules[__name__]


def _schema_of(annotation: Any, definitions: dict[str, Any]) -> dict[str, Any]:
    origin = get_origin(annotation)
    if annotation is Any:
        return {}
    if annotation is type(None):
        return {"type": "null"}
    if annotation is str:
        return {"type": "string"}
    if annotation is bool:
        return {"type": "boolean"}
    if annotation is int:
        return {"type": "integer"}
    if annotation is float:
        return {"type": "number"}
    if origin is Literal:
        values = list(get_args(annotation))
        return {"const": values[0]} if len(values) == 1 else {"enum": values}
    if origin in (Union, types.UnionType):
        return {"anyOf": [_schema_of(argument, definitions) for argument in get_args(annotation)]}
    if origin is list:
        return {"type": "array", "items": _schema_of(get_args(annotation)[0], definitions)}
    if origin is dict:
        key, value = get_args(annotation)
        schema: dict[str, Any] = {"type": "object", "additionalProperties": _schema_of(value, definitions)}
        if get_origin(key) is Literal:
            # Every key of a closed set, and only those (the summary counts every status).
            schema["required"] = list(get_args(key))
            schema["properties"] = {name: schema["additionalProperties"] for name in get_args(key)}
            schema["additionalProperties"] = False
        return schema
    if typing.is_typeddict(annotation):
        name = annotation.__name__
        if name not in definitions:
            definitions[name] = {}  # placeholder against recursion
            hints = get_type_hints(annotation, globalns=vars(_MODULE), include_extras=True)
            properties: dict[str, Any] = {}
            required: list[str] = []
            for field, hint in hints.items():
                if get_origin(hint) is NotRequired:
                    hint = get_args(hint)[0]
                else:
                    required.append(field)
                properties[field] = _schema_of(hint, definitions)
            definitions[name] = {
                "type": "object",
                "description": " ".join((annotation.__doc__ or "").split()) or name,
                "properties": properties,
                "required": required,
                "additionalProperties": False,
            }
        return {"$ref": f"#/$defs/{name}"}
    raise TypeError(f"the certificate model uses {annotation!r}, which the schema generator does not know")


def build_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of :class:`Certificate`."""
    definitions: dict[str, Any] = {}
    root = _schema_of(Certificate, definitions)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": f"driverkit certificate, format version {FORMAT_VERSION}",
        **root,
        "$defs": dict(sorted(definitions.items())),
    }


SCHEMA: Final = build_schema()


def schema_text() -> str:
    return json.dumps(SCHEMA, indent=2, sort_keys=False) + "\n"


# ------------------------------------------------------------------------------------------------ validation

_TYPES: Final[dict[str, tuple[type, ...]]] = {
    "string": (str,),
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


def problems(data: Any, schema: dict[str, Any] | None = None, where: str = "$", limit: int = 5) -> list[str]:
    """What in ``data`` breaks the schema (at most ``limit`` problems, each with its JSON path); [] when none."""
    found: list[str] = []
    _check(data, SCHEMA if schema is None else schema, where, found, limit)
    return found[:limit]


def _resolve(schema: dict[str, Any]) -> dict[str, Any]:
    reference = schema.get("$ref")
    if reference is None:
        return schema
    resolved: dict[str, Any] = SCHEMA["$defs"][str(reference).rsplit("/", 1)[-1]]
    return resolved


def _check(data: Any, schema: dict[str, Any], where: str, found: list[str], limit: int) -> None:
    if len(found) >= limit:
        return
    schema = _resolve(schema)
    if "anyOf" in schema:
        if not any(not problems(data, option, where, 1) for option in schema["anyOf"]):
            found.append(f"{where}: {_brief(data)} matches none of the allowed forms")
        return
    if "const" in schema and data != schema["const"]:
        found.append(f"{where}: must be {schema['const']!r}, not {_brief(data)}")
        return
    if "enum" in schema and data not in schema["enum"]:
        found.append(f"{where}: {_brief(data)} is not one of {schema['enum']}")
        return
    kind = schema.get("type")
    if kind is not None:
        allowed = _TYPES[kind]
        if not isinstance(data, allowed) or (kind in ("integer", "number") and isinstance(data, bool)):
            found.append(f"{where}: must be a JSON {kind}, not {_brief(data)}")
            return
    if isinstance(data, list) and "items" in schema:
        for index, item in enumerate(data):
            _check(item, schema["items"], f"{where}[{index}]", found, limit)
    if isinstance(data, dict):
        properties: dict[str, Any] = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in data:
                found.append(f"{where}: the field {name!r} is missing")
        extra = schema.get("additionalProperties", True)
        for name, value in data.items():
            if name in properties:
                _check(value, properties[name], f"{where}.{name}", found, limit)
            elif extra is False:
                found.append(f"{where}: unknown field {name!r}")
            elif isinstance(extra, dict):
                _check(value, extra, f"{where}[{name!r}]", found, limit)


def _brief(data: Any) -> str:
    text = json.dumps(data, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


# ------------------------------------------------------------------------------------------------ loading


def load(location: Path) -> Certificate:
    """Read and check one ``certificate.json`` (``location`` is the file or the certificate folder holding it)."""
    path = location / "certificate.json" if location.is_dir() else location
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        raise CertificateFormatError(
            f"{path}: no certificate there (expected a certificate folder or its certificate.json)"
        ) from None
    except OSError as error:
        raise CertificateFormatError(f"{path}: cannot read it ({error.strerror or error})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise CertificateFormatError(f"{path}: not JSON ({error.msg} at line {error.lineno})") from None
    return check(data, str(path))


def check(data: Any, source: str = "certificate") -> Certificate:
    """``data`` as a :class:`Certificate`, or :class:`CertificateFormatError` naming ``source`` and the problems."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CertificateFormatError(f"{source}: not a driverkit certificate (its format field is not {FORMAT!r})")
    if data.get("format_version") != FORMAT_VERSION:
        raise CertificateFormatError(
            f"{source}: certificate format version {data.get('format_version')!r}; this kit reads version "
            f"{FORMAT_VERSION}"
        )
    found = problems(data)
    if found:
        raise CertificateFormatError(f"{source}: not a valid certificate: {'; '.join(found)}")
    identifiers = [clause["id"] for clause in data["clauses"]]
    repeated = sorted({identifier for identifier in identifiers if identifiers.count(identifier) > 1})
    if repeated:
        raise CertificateFormatError(f"{source}: clauses listed twice: {', '.join(repeated)}")
    return typing.cast(Certificate, data)


if __name__ == "__main__":
    SCHEMA_FILE.parent.mkdir(exist_ok=True)
    SCHEMA_FILE.write_text(schema_text(), encoding="utf-8")
    print(SCHEMA_FILE)


__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "SCHEMA",
    "SCHEMA_FILE",
    "Certificate",
    "CertificateFormatError",
    "ClauseEntry",
    "Evidence",
    "EvidenceCall",
    "NotCheckedWhy",
    "Picture",
    "Rerun",
    "RootCauseEntry",
    "RunRecord",
    "ShardRecord",
    "Status",
    "Subject",
    "build_schema",
    "check",
    "load",
    "problems",
    "schema_text",
]
