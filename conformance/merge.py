"""Merging the certificates of several shards or workers (``driverkit merge-certificates``) into one.

A fan-out run certifies one subject in slices (``-k`` halves, one container per worker) and each slice writes
its own ``certificate.json``. The merge takes every clause from the shards that looked at it: a shard where a
clause was merely not run (deselected) says nothing about it. Statuses combine the way one run combines its
checks (a failure outranks a known deviation, which outranks a pass, then unverified, not implemented, not
checked). Shards must not contradict each other: when the same check reached different statuses on two shards
(a flaky check, a desktop that behaves differently), the merged clause and the verdict name the shards and what
each found. Shards of different subjects (another driver, another SDK or kit version) are refused.

The merged certificate is built and written by ``conformance.certificate`` itself, so it has the same format,
the same page and the same atomic write as one from a single run.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from conformance import certificate, certificate_format
from conformance.clauses import UnknownClauseError, registry
from conformance.session import DESELECTED, PRECEDENCE, WHY_PRECEDENCE, ClauseResult, ClauseStatus, NotCheckedWhy

# Versions that say what was certified: shards that differ here certified different software.
SUBJECT_VERSIONS = ("kit", "openai")
DISAGREEMENTS_SHOWN = 3


class MergeError(ValueError):
    """The certificates cannot be merged; the message names the file and the problem."""


@dataclass(frozen=True)
class Shard:
    """One certificate to merge: a readable name (its folder) and its JSON data."""

    name: str
    path: Path
    data: Mapping[str, Any]

    @property
    def clauses(self) -> list[Mapping[str, Any]]:
        return cast(list[Mapping[str, Any]], self.data["clauses"])


def load(location: Path) -> Shard:
    """Read and check one ``certificate.json`` (``location`` is the file or the folder holding it)."""
    try:
        data = certificate_format.load(location)
    except certificate_format.CertificateFormatError as error:
        raise MergeError(str(error)) from None
    path = location / "certificate.json" if location.is_dir() else location
    return Shard(path.parent.name or str(path.parent), path, data)


def _subject_key(shard: Shard) -> tuple[tuple[tuple[str, str | None], ...], tuple[str | None, ...]]:
    subjects = tuple(sorted((str(item.get("kind")), item.get("spec")) for item in shard.data["subjects"]))
    return subjects, tuple(shard.data["versions"].get(name) for name in SUBJECT_VERSIONS)


def _describe_subject(shard: Shard) -> str:
    subjects, versions = _subject_key(shard)
    named = ", ".join(f"{kind} {spec or 'built-in'}" for kind, spec in subjects) or "no subject"
    pinned = ", ".join(f"{name} {version}" for name, version in zip(SUBJECT_VERSIONS, versions, strict=True))
    return f"{named} ({pinned})"


def _check_same_subject(shards: Sequence[Shard]) -> None:
    first = shards[0]
    for shard in shards[1:]:
        if _subject_key(shard) != _subject_key(first):
            raise MergeError(
                f"the certificates are of different subjects: {first.path} certifies {_describe_subject(first)}, "
                f"{shard.path} certifies {_describe_subject(shard)}; merge only shards of one run"
            )


def _looked_at(clause: Mapping[str, Any]) -> bool:
    # A clause "not checked" only because no check covering it ran on this shard is simply another shard's work;
    # "not checked" because the environment failed (or a precondition, ...) is a finding and takes part.
    return not (clause["status"] == "not_checked" and clause.get("why") in (None, "not_run"))


@dataclass(frozen=True)
class MergedClause:
    result: ClauseResult
    disagreement: str | None  # "shard-a failed, shard-b passed" when one check gave different statuses


def _merge_clause(clause_id: str, found: Sequence[tuple[Shard, Mapping[str, Any]]]) -> MergedClause:
    try:
        clause = registry().get(clause_id)
    except UnknownClauseError:
        raise MergeError(
            f"{found[0][0].path}: clause {clause_id} is not one this kit knows; merge with the kit that wrote it"
        ) from None
    looked = [(shard, entry) for shard, entry in found if _looked_at(entry)]
    if not looked:
        return MergedClause(ClauseResult(clause, "not_checked", reasons=[DESELECTED], why="not_run"), None)
    status = min((entry["status"] for _, entry in looked), key=PRECEDENCE.index)
    deciding = [entry for _, entry in looked if entry["status"] == status]
    reasons = sorted({reason for entry in deciding for reason in entry["reasons"]})
    members = sorted({member for entry in deciding for member in entry["members"]})
    checks = sorted({check for entry in deciding for check in entry["checks"]})
    whys = [entry.get("why") for entry in deciding if entry.get("why") in WHY_PRECEDENCE]
    why = cast(NotCheckedWhy, min(whys, key=WHY_PRECEDENCE.index)) if whys else None
    blocked_by = next((entry.get("blocked_by") for entry in deciding if entry.get("why") == why), None)
    disagreement = None
    check_statuses: dict[str, set[str]] = {}
    for _, entry in looked:
        for check in entry["checks"]:
            check_statuses.setdefault(check, set()).add(entry["status"])
    if any(len(statuses) > 1 for statuses in check_statuses.values()):
        disagreement = ", ".join(f"{shard.name} {entry['status']}" for shard, entry in looked)
        reasons = [f"shards disagree: {disagreement}", *reasons]
    result = ClauseResult(clause, cast(ClauseStatus, status), checks, reasons, members, why, blocked_by)
    return MergedClause(result, disagreement)


def _versions(shards: Sequence[Shard]) -> tuple[dict[str, Any], list[str]]:
    """One version per software; where shards ran different builds (another Chromium), each shard's is shown."""
    names: list[str] = []
    for shard in shards:
        names += [name for name in shard.data["versions"] if name not in names]
    versions: dict[str, Any] = {}
    notes: list[str] = []
    for name in names:
        values = {shard.name: shard.data["versions"].get(name) for shard in shards}
        if len(set(map(str, values.values()))) == 1:
            versions[name] = next(iter(values.values()))
        else:
            versions[name] = "; ".join(f"{value} ({shard})" for shard, value in values.items())
            notes.append(f"the shards ran different {name} versions: {versions[name]}")
    return versions, notes


def merge(shards: Sequence[Shard]) -> certificate_format.Certificate:
    """The merged certificate data (format of ``conformance.certificate.build``)."""
    if not shards:
        raise MergeError("no certificates to merge")
    paths = [shard.path.resolve() for shard in shards]
    repeated = sorted({str(path) for path in paths if paths.count(path) > 1})
    if repeated:
        raise MergeError(f"the same certificate was given twice: {', '.join(repeated)}")
    _check_same_subject(shards)
    order: list[str] = []
    found: dict[str, list[tuple[Shard, Mapping[str, Any]]]] = {}
    for shard in shards:
        for entry in shard.clauses:
            if entry["id"] not in found:
                order.append(entry["id"])
            found.setdefault(entry["id"], []).append((shard, entry))
    merged = [_merge_clause(clause_id, found[clause_id]) for clause_id in order]
    profiles = {
        (item["kind"], item["spec"]): item["profile"]
        for shard in reversed(shards)  # the first shard with a profile wins; a shard that ran nothing has none
        for item in shard.data["subjects"]
        if item.get("profile")
    }
    subjects = [
        certificate.CertifiedSubject(item["kind"], item["spec"], profiles.get((item["kind"], item["spec"])))
        for item in shards[0].data["subjects"]
    ]
    versions, notes = _versions(shards)
    incomplete = [f"{shard.name}: {item}" for shard in shards for item in shard.data["run"].get("incomplete", [])]
    notes += [f"{shard.name}: {note}" for shard in shards for note in shard.data["run"].get("notes", [])]
    notes.append(f"merged from {len(shards)} certificates: {', '.join(str(shard.path) for shard in shards)}")
    # Each check ran on one shard; where two shards hold evidence of the same check, the first one's is kept.
    evidence: dict[str, Any] = {}
    for shard in shards:
        for check, seen in (shard.data.get("evidence") or {}).items():
            evidence.setdefault(check, seen)
    built = certificate.build(subjects, [item.result for item in merged], incomplete, notes, evidence)
    # The shards' own versions, not this machine's: the merge may run where another kit or SDK is installed.
    built["versions"] = versions
    disagreements = [(item.result.clause.id, item.disagreement) for item in merged if item.disagreement]
    if disagreements:
        shown = "; ".join(f"{clause_id} ({where})" for clause_id, where in disagreements[:DISAGREEMENTS_SHOWN])
        more = len(disagreements) - DISAGREEMENTS_SHOWN
        shown += f"; and {more} more" if more > 0 else ""
        built["verdict"] = f"shards disagree on {shown}; otherwise {built['verdict']}"
    built["run"]["shards"] = [{"name": shard.name, "certificate": str(shard.path)} for shard in shards]
    return built


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``driverkit merge-certificates`` arguments."""
    parser.add_argument(
        "out", type=Path, help="folder for the merged certificate.json, certificate.md and certificate.html"
    )
    parser.add_argument(
        "shards", type=Path, nargs="+", metavar="CERT_DIR", help="certificate folders (or certificate.json files)"
    )


def run(args: argparse.Namespace) -> int:
    """Execute ``driverkit merge-certificates``: 0 when written, 2 when the inputs cannot be merged."""
    try:
        shards = [load(location) for location in args.shards]
        out = args.out.resolve()
        overwritten = [str(shard.path) for shard in shards if shard.path.resolve().parent == out]
        if overwritten:
            raise MergeError(f"the output folder holds an input certificate ({overwritten[0]}); choose another folder")
        merged = merge(shards)
        json_path, markdown_path, html_path = certificate.write(args.out, merged)
    except (MergeError, OSError) as error:
        print(f"driverkit merge-certificates: {error}", file=sys.stderr)
        return 2
    print(f"verdict: {merged['verdict']}")
    print(f"certificate: {json_path}, {markdown_path} and {html_path}")
    return 0
