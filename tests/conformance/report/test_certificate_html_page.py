"""certificate.html from certificate data: self-contained, escaped, one row per clause with its status and family,
evidence under failed and unverified clauses (shown once per check), links from passing clauses to their checks."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from conformance import certificate
from conformance.clauses import Clause
from conformance.html_report import render_certificate
from conformance.session import ClauseResult

HOSTILE = '<script>alert("title")</script>'


def _clause(clause_id: str, member: str | None = None) -> Clause:
    return Clause(clause_id, "002", "Driver contract", f"summary of {clause_id}", member)


def _evidence(reason: str) -> dict[str, Any]:
    return {
        "calls": [
            {
                "member": "click_at",
                "arguments": '{"x": 1, "y": 2}',
                "at_s": 0.5,
                "seconds": 0.1,
                "driver_calls": ["state", "click_at", "state"],
                "raw": f'"{HOSTILE}"',
                "raised": None,
                "sdk": '{"ok": true}',
            }
        ],
        "omitted_calls": 0,
        "effects": ['{"kind": "click", "x": 10}'],
        "omitted_effects": 0,
        "point": [1.0, 2.0],
        "before": {"image": None, "note": reason},
        "after": {"image": "data:image/jpeg;base64,/9j/AAAA", "note": ""},
    }


def _built() -> dict[str, Any]:
    results = [
        ClauseResult(_clause("BR-PTR-001", "click_at"), "failed", ["m::check_a"], [f"landed elsewhere {HOSTILE}"]),
        ClauseResult(_clause("BR-PTR-002", "click_at"), "failed", ["m::check_a"], ["wrong button"]),
        ClauseResult(_clause("BR-READ-001", "read_page"), "passed", ["m::check_b", "m::check_c"]),
        ClauseResult(_clause("BR-READ-002", "read_page"), "unverified", ["m::check_d"], ["no ref"], ["read_page"]),
        ClauseResult(_clause("BR-TAB-001", "new_tab"), "not_checked", []),
    ]
    evidence = {"m::check_a": _evidence("no before"), "m::check_b": _evidence("passed checks keep none")}
    subject = certificate.CertifiedSubject("browser driver", "m:f", None)
    return certificate.build([subject], results, evidence=evidence)


def test_the_certificate_json_keeps_evidence_only_for_checks_of_failed_and_unverified_clauses() -> None:
    built = _built()
    assert list(built["evidence"]) == ["m::check_a"]


def test_the_page_is_one_file_that_fetches_nothing() -> None:
    page = render_certificate(_built())
    assert "default-src 'none'" in page  # the Content-Security-Policy forbids every fetch
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", page), "the page references the network"
    assert "<link" not in page and "@import" not in page
    assert "<style>" in page and "<script>" in page  # the stylesheet and the script are inline


def test_driver_output_is_escaped() -> None:
    page = render_certificate(_built())
    assert HOSTILE not in page
    assert "&lt;script&gt;alert(&quot;title&quot;)&lt;/script&gt;" in page


def test_rows_carry_status_and_family_and_the_filters_offer_them() -> None:
    page = render_certificate(_built())
    rows = re.findall(r'<tr class="clause" id="clause-([^"]+)" data-status="([^"]+)" data-family="([^"]+)"', page)
    # What a reader acts on first: failed, then unverified; the rest in clause order.
    assert rows == [
        ("BR-PTR-001", "failed", "BR-PTR"),
        ("BR-PTR-002", "failed", "BR-PTR"),
        ("BR-READ-002", "unverified", "BR-READ"),
        ("BR-READ-001", "passed", "BR-READ"),
        ("BR-TAB-001", "not_checked", "BR-TAB"),
    ]
    # The page opens on what to fix first, before the summary.
    assert page.index('id="fix-first"') < page.index("<h2>Summary</h2>") < page.index('id="clauses"')
    assert '<option value="failed">FAILED (2)</option>' in page
    assert '<option value="deviation">' not in page  # a status no clause has is not offered
    assert '<option value="BR-READ">BR-READ</option>' in page


def test_a_checks_evidence_is_shown_once_and_passing_clauses_link_to_their_checks() -> None:
    page = render_certificate(_built())
    assert page.count('id="check-1-evidence"') == 1
    assert 'See the evidence of <a href="#check-1-evidence">m::check_a</a>' in page
    assert '<a href="#check-2">m::check_b</a>, <a href="#check-3">m::check_c</a>' in page
    assert '<tr id="check-2"><td><code>m::check_b</code>' in page
    assert "No evidence was recorded" in page  # check_d ran without a driver subject in this crafted data
    assert 'src="data:image/jpeg;base64,/9j/AAAA"' in page and "no before" in page


def test_written_beside_the_json_and_markdown(tmp_path: Path) -> None:
    paths = certificate.write(tmp_path, _built())
    assert [path.name for path in paths] == ["certificate.json", "certificate.md", "certificate.html"]
    assert paths[2].read_text("utf-8").startswith("<!DOCTYPE html>")
    assert not list(tmp_path.glob(".*.tmp"))


def test_pictures_past_the_budget_become_notes_so_the_page_stays_small(tmp_path: Path) -> None:
    picture = {"image": "data:image/jpeg;base64," + "A" * 400_000, "note": ""}
    seen = {"calls": [], "before": picture, "after": picture}
    checks = [f"m::check_{number:02d}" for number in range(20)]
    results = [
        ClauseResult(_clause(f"BR-PTR-{number:03d}"), "failed", [check], ["x"]) for number, check in enumerate(checks)
    ]
    built = certificate.build([], results, evidence={check: dict(seen) for check in checks})
    kept = [
        found[moment]["image"] is not None for found in built["evidence"].values() for moment in ("before", "after")
    ]
    assert kept == [True] * 8 + [False] * 32  # 8 pictures of 400 kB fit in the budget
    assert "reached its size limit" in built["evidence"]["m::check_19"]["after"]["note"]
    html_path = certificate.write(tmp_path, built)[2]
    assert html_path.stat().st_size < 5_000_000
