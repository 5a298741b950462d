"""The certificate: a JSON record and a readable Markdown page of what conforms, clause by clause.

Both files are written atomically (a temporary file renamed into place), so an interrupted run never leaves a
half-written certificate beside a complete-looking one.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import tempfile
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from conformance.clauses import DOCUMENTS
from conformance.session import ClauseResult

FORMAT = "driverkit.certificate"
FORMAT_VERSION = 1
STATUS_LABELS: Mapping[str, str] = {
    "passed": "passed",
    "failed": "FAILED",
    "deviation": "known deviation",
    "unverified": "unverified",
    "not_implemented": "not implemented",
    "not_checked": "not checked",
}


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def browser_version(executable: str = "/usr/bin/chromium") -> str | None:
    """The version line of the system Chromium, when there is one (the reference drivers use it)."""
    try:
        completed = subprocess.run([executable, "--version"], capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = [line for line in completed.stdout.splitlines() if line.strip()]
    return lines[-1].strip() if lines else None


def verdict_of(counts: Mapping[str, int], unverified_members: Collection[str] = ()) -> str:
    """The one-line verdict, from the worst clause status found.

    A failed clause fails the subject. A run that left clauses unchecked (``-k``, a subset of check files, an
    interrupted run, an environment that failed) cannot say the subject conforms: it did not look at everything.
    Neither can a run that could not exercise members the subject implements: it says how many. A recorded
    known deviation (SDK suites only) is said, not hidden.
    """
    if counts.get("failed"):
        return "does not conform"
    if counts.get("not_checked"):
        return "not fully checked"
    if counts.get("unverified"):
        if unverified_members:
            count, noun = len(set(unverified_members)), "implemented member"
        else:
            count, noun = counts["unverified"], "clause"
        return f"conforms, {count} {noun}{'' if count == 1 else 's'} unverified"
    if counts.get("deviation"):
        return "conforms except for known deviations"
    return "conforms"


def verdict_of_results(results: Sequence[ClauseResult]) -> str:
    counts: Counter[str] = Counter(result.status for result in results)
    members = [member for result in results if result.status == "unverified" for member in result.members]
    return verdict_of(counts, members)


@dataclass(frozen=True)
class Subject:
    """What was certified: the option values that named it and the profile the kit found."""

    kind: str  # "browser driver", "computer driver", "SDK toolsets and runners"
    spec: str | None
    profile: Mapping[str, Any] | None


def build(
    subjects: Sequence[Subject], results: Sequence[ClauseResult], extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    counts: Counter[str] = Counter(result.status for result in results)
    verdict = verdict_of_results(results)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "verdict": verdict,
        "versions": {
            "kit": _version("responses-driver-kit"),
            "openai": _version("openai"),
            "playwright": _version("playwright"),
            "python": platform.python_version(),
            **(extra or {}),
        },
        "contract": [document.title for document in DOCUMENTS.values()],
        "subjects": [
            {"kind": subject.kind, "spec": subject.spec, "profile": dict(subject.profile or {})} for subject in subjects
        ],
        "summary": {status: counts[status] for status in STATUS_LABELS},
        "clauses": [
            {
                "id": result.clause.id,
                "status": result.status,
                "summary": result.clause.summary,
                "source": result.clause.source,
                "member": result.clause.member,
                "reasons": result.reasons[:3],
                "members": result.members,
                "checks": result.checks,
            }
            for result in results
        ],
    }


def render_markdown(certificate: Mapping[str, Any]) -> str:
    lines = [f"# Conformance certificate: {certificate['verdict']}", ""]
    for subject in certificate["subjects"]:
        profile = subject["profile"]
        lines.append(f"- **{subject['kind']}**: `{subject['spec'] or 'built-in'}`")
        if profile.get("flavour"):
            lines.append(f"  - flavour: {profile['flavour']}")
        if "implemented" in profile:
            implemented = ", ".join(profile["implemented"]) or "none"
            lines.append(f"  - implemented members: {implemented}")
    lines.append("")
    lines.append("| versions | |")
    lines.append("| --- | --- |")
    for name, value in certificate["versions"].items():
        lines.append(f"| {name} | {value or 'unknown'} |")
    lines.append("")
    summary = ", ".join(f"{count} {STATUS_LABELS[status]}" for status, count in certificate["summary"].items())
    lines.append(f"Clauses: {summary}.")
    lines.append("")
    lines.append("| clause | status | requirement | source | reason |")
    lines.append("| --- | --- | --- | --- | --- |")
    for clause in certificate["clauses"]:
        reason = "; ".join(clause["reasons"]).replace("|", "\\|").replace("\n", " ")
        lines.append(
            f"| {clause['id']} | {STATUS_LABELS[clause['status']]} | {clause['summary']} | "
            f"{clause['source']} | {reason[:300]} |"
        )
    lines.append("")
    return "\n".join(lines)


def _write_atomically(path: Path, text: str) -> None:
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write(directory: Path, certificate: Mapping[str, Any]) -> tuple[Path, Path]:
    """Write ``certificate.json`` and ``certificate.md`` into ``directory`` (created if missing)."""
    directory.mkdir(parents=True, exist_ok=True)
    json_path, markdown_path = directory / "certificate.json", directory / "certificate.md"
    _write_atomically(json_path, json.dumps(certificate, indent=2, ensure_ascii=False) + "\n")
    _write_atomically(markdown_path, render_markdown(certificate))
    return json_path, markdown_path
