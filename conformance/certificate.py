"""The certificate: a JSON record and a readable Markdown page of what conforms, clause by clause.

Both files are written atomically (a temporary file renamed into place), so an interrupted run never leaves a
half-written certificate beside a complete-looking one.

Much of a certificate is a driver's own text (its exceptions, its page titles, its class name): the Markdown page
and the terminal line take it through conformance._safe_text, which also says what certificate.json keeps.
"""

from __future__ import annotations

import json
import platform
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any, cast

from conformance import atomic
from conformance._safe_text import bounded, for_markdown, for_terminal, markdown_code, valid_unicode
from conformance.certificate_format import FORMAT, FORMAT_VERSION, Certificate, Evidence, RootCauseEntry, Status
from conformance.clauses import DOCUMENTS
from conformance.session import ClauseResult, RootCause, fix_first

STATUS_LABELS: Mapping[str, str] = {
    "passed": "passed",
    "failed": "FAILED",
    "deviation": "known deviation",
    "unverified": "unverified",
    "not_implemented": "not implemented",
    "not_checked": "not checked",
}


REASON_LIMIT = 300


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _bounded(text: str, limit: int = REASON_LIMIT) -> str:
    # Kept in step with conformance.harness.errors.bounded (the same marker); the certificate needs nothing from the
    # harness.
    return bounded(text, limit)


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


def verdict_of_results(results: Sequence[ClauseResult], incomplete: Sequence[str] = ()) -> str:
    """The verdict of these clause results; a run that was cut short (``incomplete`` says how) is never more than
    "not fully checked", even when every clause it reached looks fine."""
    counts: Counter[str] = Counter(result.status for result in results)
    members = [member for result in results if result.status == "unverified" for member in result.members]
    verdict = verdict_of(counts, members)
    if incomplete and verdict != "does not conform":
        return "not fully checked"
    return verdict


@dataclass(frozen=True)
class CertifiedSubject:
    """What was certified: the option values that named it and the profile the kit found."""

    kind: str  # "browser driver", "computer driver", "SDK toolsets and runners"
    spec: str | None
    profile: Mapping[str, Any] | None


def build(
    subjects: Sequence[CertifiedSubject],
    results: Sequence[ClauseResult],
    incomplete: Sequence[str] = (),
    notes: Sequence[str] = (),
    evidence: Mapping[str, Mapping[str, Any]] | None = None,
) -> Certificate:
    """The certificate as JSON data. Its versions are the kit's, the SDK's and Python's plus what each subject's
    profile says its driver runs on (never anything of the kit's own reference browser); ``incomplete`` says what
    cut the run short (it caps the verdict at "not fully checked"); ``notes`` are harness findings that concern
    no clause; ``evidence`` is what each check that did not pass saw (conformance.evidence), by check node ID:
    the certificate keeps it for the checks its failed and unverified clauses name."""
    explained = {check for result in results if result.status in ("failed", "unverified") for check in result.checks}
    counts: Counter[str] = Counter(result.status for result in results)
    verdict = verdict_of_results(results, incomplete)
    software: dict[str, Any] = {}
    for subject in subjects:
        software.update((subject.profile or {}).get("software") or {})
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "verdict": verdict,
        "versions": {
            "kit": _version("responses-driver-kit"),
            "openai": _version("openai"),
            "python": platform.python_version(),
            **software,
        },
        "contract": [document.title for document in DOCUMENTS.values()],
        "subjects": [
            {"kind": subject.kind, "spec": subject.spec, "profile": dict(subject.profile or {})} for subject in subjects
        ],
        "run": {"complete": not incomplete, "incomplete": list(incomplete), "notes": list(notes)},
        "summary": cast(dict[Status, int], {status: counts[status] for status in STATUS_LABELS}),
        "clauses": [
            {
                "id": result.clause.id,
                "status": result.status,
                "summary": result.clause.summary,
                "source": result.clause.source,
                "member": result.clause.member,
                "reasons": [_bounded(reason) for reason in result.reasons[:3]],
                "members": result.members,
                "checks": result.checks,
                "why": result.why,
                "blocked_by": result.blocked_by,
            }
            for result in results
        ],
        "fix_first": [root_cause_entry(cause) for cause in fix_first(results)],
        "evidence": cast(
            dict[str, Evidence],
            _within_budget(
                {check: dict(found) for check, found in sorted((evidence or {}).items()) if check in explained}
            ),
        ),
    }


# The characters of screenshot data a certificate may carry: with the text around them, certificate.html stays
# under 5 MB however many checks fail. Pictures past it are replaced by a note.
PICTURE_BUDGET = 3_500_000


def _within_budget(evidence: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    spent = 0
    for found in evidence.values():
        for moment in ("before", "after"):
            picture = found.get(moment)
            image = picture.get("image") if isinstance(picture, Mapping) else None
            if not isinstance(image, str):
                continue
            spent += len(image)
            if spent > PICTURE_BUDGET:
                found[moment] = {
                    "image": None,
                    "note": "picture left out: the certificate's pictures reached its size limit",
                }
    return evidence


def blocks_phrase(count: int) -> str:
    """ "blocks 1 clause" / "blocks 12 clauses": how every view of "What to fix first" sizes a cause."""
    return f"blocks {count} clause{'' if count == 1 else 's'}"


def describe_cause(cause: RootCause) -> str:
    """One line of "What to fix first" for the terminal: the clause, why it failed, and what it blocks (the reason,
    a driver's text, with its control characters shown as escapes)."""
    result = cause.clause
    reason = result.reasons[0] if result.reasons else ""
    line = f"{result.clause.id} {result.clause.summary.rstrip('.')} -- {for_terminal(reason, 160)}"
    if cause.blocks:
        line += f" [{blocks_phrase(len(cause.blocks))}]"
    if cause.same_cause:
        line += f" [{same_cause_phrase(cause.same_cause)}]"
    return line


def root_cause_entry(cause: RootCause) -> RootCauseEntry:
    """A cause as the certificate lists it; ``same_cause`` only where a requirement grouped several clauses."""
    entry = RootCauseEntry(clause=cause.clause.clause.id, blocks=list(cause.blocks), members=list(cause.members))
    if cause.same_cause:
        entry["same_cause"] = list(cause.same_cause)
    return entry


def same_cause_phrase(clause_ids: Sequence[str]) -> str:
    """How every view of "What to fix first" names the other failed paths of one requirement."""
    return f"the same requirement also fails {', '.join(clause_ids)}"


def _reason(clause: Mapping[str, Any]) -> str:
    return for_markdown("; ".join(clause["reasons"]))


def render_markdown(certificate: Mapping[str, Any]) -> str:
    """A page a driver author reads top-down: what to fix, what could not be exercised, what was not checked,
    then the versions and the full clause table."""
    clauses: list[Mapping[str, Any]] = certificate["clauses"]
    lines = [f"# Conformance certificate: {certificate['verdict']}", ""]
    for subject in certificate["subjects"]:
        profile = subject["profile"]
        lines.append(f"- **{subject['kind']}**: {markdown_code(subject['spec'] or 'built-in')}")
        if profile.get("flavour"):
            lines.append(f"  - flavour: {for_markdown(profile['flavour'])}")
        if profile.get("browser route"):
            lines.append(f"  - browser reached: {for_markdown(profile['browser route'])}")
        if profile.get("fixture host"):
            lines.append(f"  - fixture pages served as: {for_markdown(profile['fixture host'])}")
        if profile.get("screen size"):
            lines.append(f"  - screen size: {for_markdown(profile['screen size'])}")
        if "implemented" in profile:
            implemented = ", ".join(for_markdown(member) for member in profile["implemented"]) or "none"
            lines.append(f"  - implemented members: {implemented}")
    summary = ", ".join(f"{count} {STATUS_LABELS[status]}" for status, count in certificate["summary"].items())
    lines += ["", f"Clauses: {summary}.", ""]
    run = certificate.get("run") or {}
    if run.get("incomplete"):
        lines += ["**This run did not check everything:**", ""]
        lines += [f"- {for_markdown(item)}" for item in run["incomplete"]]
        lines.append("")

    by_id = {clause["id"]: clause for clause in clauses}
    causes = [cause for cause in certificate.get("fix_first", []) if cause["clause"] in by_id]
    if causes:
        lines += ["## What to fix first", ""]
        lines += [
            "Each entry is one cause: a failed clause (with the other failed paths of the same requirement); the "
            "clauses it blocked could not be judged until it is fixed.",
            "",
        ]
        for number, cause in enumerate(causes, 1):
            clause = by_id[cause["clause"]]
            seen = len(clause["checks"])
            where = f" (in {seen} checks)" if seen > 1 else ""
            reason = for_markdown((clause["reasons"] or [""])[0])
            lines.append(f"{number}. **{clause['id']}** {clause['summary']}: {reason}{where}")
            if cause.get("same_cause"):
                lines.append(f"   - {same_cause_phrase(cause['same_cause'])}")
            if cause["blocks"]:
                touched = ", ".join(markdown_code(member) for member in cause["members"]) or "the driver as a whole"
                lines.append(
                    f"   - {blocks_phrase(len(cause['blocks']))} ({', '.join(cause['blocks'])}), about {touched}"
                )
        lines.append("")

    unverified = [clause for clause in clauses if clause["status"] == "unverified"]
    if unverified:
        lines += ["## Implemented but unverified", ""]
        lines += ["The driver has these members, but the kit could not exercise them:", ""]
        why: dict[str, list[str]] = {}
        for clause in unverified:
            for member in clause["members"] or [clause["member"] or "?"]:
                why.setdefault(member, []).append(clause["id"])
        reasons = {member: _reason(clause) for clause in unverified for member in clause["members"]}
        for member, ids in sorted(why.items()):
            lines.append(f"- {markdown_code(member)} ({', '.join(ids)}): {reasons.get(member, '')}")
        lines.append("")

    unchecked = [clause for clause in clauses if clause["status"] == "not_checked"]
    if unchecked:
        lines += ["## Not checked", ""]
        by_reason: dict[str, list[str]] = {}
        for clause in unchecked:
            # Clauses blocked by one root cause are one line: the cause itself is explained under What to fix first.
            blocker = clause.get("blocked_by")
            reason = f"blocked by {blocker} (see What to fix first)" if blocker else _reason(clause)
            by_reason.setdefault(reason, []).append(clause["id"])
        lines += [f"- {reason}: {', '.join(ids)}" for reason, ids in by_reason.items()]
        lines.append("")

    if run.get("notes"):
        lines += ["## Notes from the harness", ""]
        lines += [f"- {for_markdown(note)}" for note in run["notes"]]
        lines.append("")

    lines += ["## Versions", "", "| software | version |", "| --- | --- |"]
    lines += [
        f"| {for_markdown(name)} | {for_markdown(value or 'unknown')} |"
        for name, value in certificate["versions"].items()
    ]
    lines += ["", "## All clauses", ""]
    lines += ["| clause | status | requirement | source | reason |", "| --- | --- | --- | --- | --- |"]
    for clause in clauses:
        lines.append(
            f"| {clause['id']} | {STATUS_LABELS[clause['status']]} | {clause['summary']} | "
            f"{clause['source']} | {_reason(clause)} |"
        )
    lines.append("")
    return "\n".join(lines)


def write(directory: Path, certificate: Mapping[str, Any]) -> tuple[Path, Path, Path]:
    """Write ``certificate.json``, ``certificate.md`` and ``certificate.html`` into ``directory`` (created if
    missing)."""
    from conformance import html_report  # the page renderer needs this module's labels

    directory.mkdir(parents=True, exist_ok=True)
    json_path, markdown_path = directory / "certificate.json", directory / "certificate.md"
    html_path = directory / "certificate.html"
    # A lone surrogate from a driver cannot be UTF-8: the JSON gets U+FFFD (the pages replace it field by field).
    atomic.write_text(json_path, valid_unicode(json.dumps(certificate, indent=2, ensure_ascii=False)) + "\n")
    atomic.write_text(markdown_path, render_markdown(certificate))
    atomic.write_text(html_path, html_report.render_certificate(certificate))
    return json_path, markdown_path, html_path
