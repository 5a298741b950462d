"""``certificate.html``: the certificate as a page a driver author looks at rather than reads.

From the certificate's JSON data alone (so a merged certificate renders too): the verdict, what to fix first
(the root causes, those blocking the most clauses first), the summary as a bar chart, the clause table (failed
and unverified clauses first) with filters by status and by clause family, and under each failed or
unverified clause the evidence of the checks that blamed it (calls, the page's record, screenshots). A passing
clause links to the checks that passed it, listed at the end of the page.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conformance._safe_text import image_source
from conformance.certificate import STATUS_LABELS, blocks_phrase, same_cause_phrase
from conformance.html_report.document import esc, page

EXPLAINED = ("failed", "unverified")
CHART_WIDTH = 560


def family(clause_id: str) -> str:
    """The clause family: the ID without its number (``BR-PTR-001`` is in ``BR-PTR``)."""
    return clause_id.rsplit("-", 1)[0]


def _verdict_class(verdict: str) -> str:
    if verdict.startswith("conforms") and "unverified" not in verdict:
        return "good"
    if verdict == "does not conform" or verdict.startswith("shards disagree"):
        return "bad"
    return "partial"


def _chart(summary: Mapping[str, int]) -> str:
    """A stacked bar of every status's share, then one bar per status with its count, as inline SVG."""
    total = sum(summary.values()) or 1
    parts, x = [], 0.0
    for status, count in summary.items():
        width = CHART_WIDTH * count / total
        if count:
            parts.append(
                f'<rect class="{esc(status)}" x="{x:.1f}" y="0" width="{width:.1f}" height="22">'
                f"<title>{count} {esc(STATUS_LABELS.get(status, status))}</title></rect>"
            )
        x += width
    rows = []
    for index, (status, count) in enumerate(summary.items()):
        y = 36 + index * 20
        width = max(1.0, (CHART_WIDTH - 200) * count / total) if count else 0
        rows.append(
            f'<text x="0" y="{y + 12}">{esc(STATUS_LABELS.get(status, status))}</text>'
            f'<rect class="{esc(status)}" x="130" y="{y}" width="{width:.1f}" height="14"></rect>'
            f'<text x="{136 + width:.1f}" y="{y + 12}">{count}</text>'
        )
    height = 36 + 20 * len(summary)
    return (
        f'<svg class="chart" role="img" aria-label="clause statuses" width="{CHART_WIDTH}" height="{height}" '
        f'viewBox="0 0 {CHART_WIDTH} {height}">{"".join(parts)}{"".join(rows)}</svg>'
    )


def _check_anchor(index: Mapping[str, int], check: str) -> str:
    return f"check-{index[check]}"


def _picture(label: str, shot: Mapping[str, Any] | None) -> str:
    shot = shot or {}
    # The kit's screenshots are JPEG data URLs; anything else there (a merged certificate's data is only data) is
    # said, never used as a source.
    source = image_source(shot.get("image"))
    if source:
        body = f'<img alt="{esc(label)}" src="{source}">'
        # A picture can say where it came from (one taken on the evidence rerun says so).
        caption = f"{label}: {shot['note']}" if shot.get("note") else label
    else:
        note = shot.get("note") or ("not an image data URL" if shot.get("image") else "not available")
        body = f'<p class="note">{esc(note)}</p>'
        caption = label
    return f"<figure>{body}<figcaption>{esc(caption)}</figcaption></figure>"


def _rerun(rerun: Mapping[str, Any] | None) -> str:
    """What the evidence rerun found; a failure that did not repeat stands out (the driver may be flaky)."""
    if not rerun or not rerun.get("note"):
        return ""
    repeated = rerun.get("repeated")
    kind = "repeated" if repeated is True else "not-repeated" if repeated is False else "not-rerun"
    seconds = rerun.get("seconds")
    took = f" (the rerun took {seconds:.1f} s)" if repeated is not None and isinstance(seconds, int | float) else ""
    return f'<p class="rerun {kind}">{esc(str(rerun["note"]))}{esc(took)}</p>'


def _calls(calls: Sequence[Mapping[str, Any]], omitted: int) -> str:
    if not calls:
        return '<p class="note">The check made no call through the subject.</p>'
    rows = []
    for number, call in enumerate(calls, 1):
        result = f"raised {call['raised']}" if call.get("raised") else call.get("raw")
        seconds = "" if call.get("seconds") is None else f"{call['seconds']:.3f} s"
        rows.append(
            f"<tr><td>{number}</td><td>{call.get('at_s', 0):.3f} s</td><td><code>{esc(call.get('member'))}</code>"
            f"</td><td><pre>{esc(call.get('arguments'))}</pre></td><td><pre>{esc(result)}</pre></td>"
            f"<td><pre>{esc(call.get('sdk'))}</pre></td><td>{seconds}</td></tr>"
        )
    more = f'<p class="note">{omitted} earlier calls not kept.</p>' if omitted else ""
    return (
        f'{more}<table class="calls"><tr><th>#</th><th>at</th><th>member</th><th>arguments</th>'
        f"<th>the driver returned</th><th>the SDK's output</th><th>took</th></tr>{''.join(rows)}</table>"
    )


def _effects(evidence: Mapping[str, Any]) -> str:
    effects = evidence.get("effects")
    if effects is None:
        return ""
    if not effects:
        return '<h4>What the page recorded</h4><p class="note">The page recorded nothing.</p>'
    omitted = evidence.get("omitted_effects") or 0
    more = f'<p class="note">{omitted} earlier records not kept.</p>' if omitted else ""
    return f"<h4>What the page recorded</h4>{more}<pre>{chr(10).join(esc(effect) for effect in effects)}</pre>"


def _evidence(check: str, evidence: Mapping[str, Any], anchor: str) -> str:
    point = evidence.get("point")
    drawn = f" (the red ring marks ({point[0]:g}, {point[1]:g}), where the last pointer step aimed)" if point else ""
    return (
        f'<div class="evidence" id="{anchor}-evidence"><h4>Check <code>{esc(check)}</code></h4>'
        f"{_rerun(evidence.get('rerun'))}"
        f'<div class="shots">{_picture("before the failing step" + drawn, evidence.get("before"))}'
        f"{_picture('after the failing step' + drawn, evidence.get('after'))}</div>"
        f"<h4>Calls the check made</h4>{_calls(evidence.get('calls') or [], evidence.get('omitted_calls') or 0)}"
        f"{_effects(evidence)}</div>"
    )


def _details(
    clause: Mapping[str, Any], certificate: Mapping[str, Any], index: Mapping[str, int], shown: set[str]
) -> str:
    evidence: Mapping[str, Mapping[str, Any]] = certificate.get("evidence") or {}
    checks: list[str] = clause.get("checks") or []
    links = ", ".join(f'<a href="#{_check_anchor(index, check)}">{esc(check)}</a>' for check in checks)
    if clause["status"] not in EXPLAINED:
        return f"<details><summary>checks ({len(checks)})</summary>{links or 'none'}</details>" if checks else ""
    parts = []
    for check in checks:
        if check not in evidence:
            continue
        anchor = _check_anchor(index, check)
        if check in shown:
            # One check's evidence is shown once; a second clause it blamed links to it.
            parts.append(f'<p>See the evidence of <a href="#{anchor}-evidence">{esc(check)}</a> above.</p>')
        else:
            shown.add(check)
            parts.append(_evidence(check, evidence[check], anchor))
    if not parts:
        parts.append('<p class="note">No evidence was recorded for these checks (they used no driver subject).</p>')
    return f'<details class="explained"><summary>evidence</summary>{"".join(parts)}</details>'


# Rows a reader acts on come first: what failed, then what the kit could not exercise; the rest keep clause order.
_ROW_ORDER = {"failed": 0, "unverified": 1}


def _fix_first(certificate: Mapping[str, Any]) -> str:
    by_id = {clause["id"]: clause for clause in certificate["clauses"]}
    items = []
    for cause in certificate.get("fix_first") or []:
        clause = by_id.get(cause["clause"])
        if clause is None:
            continue
        blocks = cause.get("blocks") or []
        touched = ", ".join(f"<code>{esc(member)}</code>" for member in cause.get("members") or [])
        # The clauses a cause blocks can be most of the contract: folded, so the next cause stays in view.
        blocked = (
            f"<details><summary>{blocks_phrase(len(blocks))}"
            f"{f' about {touched}' if touched else ''}</summary>"
            + ", ".join(f'<a href="#clause-{esc(clause_id)}">{esc(clause_id)}</a>' for clause_id in blocks)
            + "</details>"
            if blocks
            else ""
        )
        reasons = clause.get("reasons") or [""]
        checks = len(clause.get("checks") or [])
        seen = f" (in {checks} checks)" if checks > 1 else ""
        same = cause.get("same_cause") or []
        also = f"<p>{esc(same_cause_phrase(same))}</p>" if same else ""
        items.append(
            f'<li><a href="#clause-{esc(clause["id"])}"><code>{esc(clause["id"])}</code></a> '
            f"{esc(str(clause.get('summary', '')).rstrip('.'))}: {esc(reasons[0])}{seen}{also}{blocked}</li>"
        )
    return f'<h2 id="fix-first">What to fix first</h2><ol>{"".join(items)}</ol>' if items else ""


def _clause_rows(certificate: Mapping[str, Any], index: Mapping[str, int]) -> str:
    rows, shown = [], set[str]()
    ordered = sorted(certificate["clauses"], key=lambda clause: _ROW_ORDER.get(clause["status"], 2))
    for clause in ordered:
        status = clause["status"]
        reason = "; ".join(clause.get("reasons") or [])
        rows.append(
            f'<tr class="clause" id="clause-{esc(clause["id"])}" data-status="{esc(status)}" '
            f'data-family="{esc(family(clause["id"]))}"><td><code>{esc(clause["id"])}</code></td>'
            f'<td><span class="badge {esc(status)}">{esc(STATUS_LABELS.get(status, status))}</span></td>'
            f"<td>{esc(clause.get('summary', ''))}<br><small>{esc(clause.get('source', ''))}</small></td>"
            f"<td>{esc(reason)}{_details(clause, certificate, index, shown)}</td></tr>"
        )
    return "".join(rows)


def _filters(certificate: Mapping[str, Any]) -> str:
    summary: Mapping[str, int] = certificate.get("summary") or {}
    statuses = "".join(
        f'<option value="{esc(status)}">{esc(STATUS_LABELS.get(status, status))} ({count})</option>'
        for status, count in summary.items()
        if count
    )
    families = sorted({family(clause["id"]) for clause in certificate["clauses"]})
    family_options = "".join(f'<option value="{esc(name)}">{esc(name)}</option>' for name in families)
    return (
        '<div class="filters"><span><label for="status-filter">status</label> <select id="status-filter">'
        f'<option value="all">all</option>{statuses}</select></span>'
        '<span><label for="family-filter">clause family</label> <select id="family-filter">'
        f'<option value="all">all</option>{family_options}</select></span>'
        f'<span><span id="shown-count">{len(certificate["clauses"])}</span> clauses shown</span></div>'
    )


def _checks(certificate: Mapping[str, Any], index: Mapping[str, int]) -> str:
    by_check: dict[str, list[str]] = {}
    for clause in certificate["clauses"]:
        for check in clause.get("checks") or []:
            by_check.setdefault(check, []).append(
                f'<a href="#clause-{esc(clause["id"])}">{esc(clause["id"])}</a> '
                f'<span class="badge {esc(clause["status"])}">{esc(STATUS_LABELS.get(clause["status"], ""))}</span>'
            )
    rows = "".join(
        f'<tr id="{_check_anchor(index, check)}"><td><code>{esc(check)}</code></td><td>{" ".join(links)}</td></tr>'
        for check, links in by_check.items()
    )
    return f"<table><tr><th>check</th><th>clauses it covers, and their status</th></tr>{rows}</table>"


def _header(certificate: Mapping[str, Any]) -> str:
    verdict = certificate["verdict"]
    subjects = "".join(
        f"<li><b>{esc(subject['kind'])}</b>: <code>{esc(subject.get('spec') or 'built-in')}</code></li>"
        for subject in certificate.get("subjects") or []
    )
    run = certificate.get("run") or {}
    incomplete = "".join(f"<li>{esc(line)}</li>" for line in run.get("incomplete") or [])
    notes = "".join(f"<li>{esc(line)}</li>" for line in run.get("notes") or [])
    versions = "".join(
        f"<tr><td>{esc(name)}</td><td>{esc(value or 'unknown')}</td></tr>"
        for name, value in (certificate.get("versions") or {}).items()
    )
    return (
        f'<header><h1>Conformance certificate: <span class="verdict {_verdict_class(verdict)}" id="verdict">'
        f"{esc(verdict)}</span></h1><ul>{subjects}</ul><small>created {esc(certificate.get('created', ''))}"
        "</small></header><main>"
        + (f"<h2>This run did not check everything</h2><ul>{incomplete}</ul>" if incomplete else "")
        + _fix_first(certificate)
        + f"<h2>Summary</h2>{_chart(certificate.get('summary') or {})}"
        + (f"<h2>Notes from the harness</h2><ul>{notes}</ul>" if notes else "")
        + f"<details><summary>versions</summary><table>{versions}</table></details>"
    )


def render(certificate: Mapping[str, Any]) -> str:
    """The whole page for ``certificate`` (the JSON data :func:`conformance.certificate.build` makes)."""
    checks = [check for clause in certificate["clauses"] for check in clause.get("checks") or []]
    index = {check: number for number, check in enumerate(dict.fromkeys(checks), 1)}
    body = (
        _header(certificate)
        + f"<h2>Clauses</h2>{_filters(certificate)}"
        + '<table id="clauses"><tr><th>clause</th><th>status</th><th>requirement</th><th>reason</th></tr>'
        + _clause_rows(certificate, index)
        + "</table><h2>Checks</h2>"
        + _checks(certificate, index)
        + "</main>"
    )
    return page(f"Conformance certificate: {certificate['verdict']}", body, script=True)
