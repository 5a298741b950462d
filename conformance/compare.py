"""``driverkit compare-sdks``: where the Python and the Node SDK behave differently on the same checks.

It reads the two SDK certificates (``driverkit certify --sdk`` and ``driverkit certify --sdk=node``) and prints, as
Markdown, every clause both runs checked whose outcome differs (passed on one, a failure or known deviation on the
other) on a check that ran on both, then the clauses whose outcome differs only because the deciding check ran on
one SDK, and the clauses checked on one SDK only (so a reader sees what the comparison could not cover). Both
certificates ran the same checks over the same cassettes, so a differing outcome is a behavioural difference, and
its reasons say what each SDK did. It always exits 0 for readable certificates: differing is the finding, not an
error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance import certificate_format
from conformance.certificate import STATUS_LABELS
from conformance.certificate_format import Certificate

# Outcomes that say something about the SDK; "not checked" and "not implemented" say the check did not run there.
CHECKED = frozenset({"passed", "failed", "deviation", "unverified"})


class CertificateError(ValueError):
    """A path that is no readable certificate."""


@dataclass(frozen=True)
class Difference:
    clause: str
    summary: str
    python: Mapping[str, Any]
    node: Mapping[str, Any]


def load(path: Path) -> Certificate:
    """The certificate at ``path`` (a certificate folder or its certificate.json), checked against its format."""
    try:
        return certificate_format.load(path)
    except certificate_format.CertificateFormatError as error:
        raise CertificateError(str(error)) from None


def _functions(clause: Mapping[str, Any]) -> set[str]:
    """The checks behind a clause's outcome, without their parameters (``path::test``)."""
    return {str(check).split("[", 1)[0] for check in clause.get("checks", [])}


def same_checks(difference: Difference) -> bool:
    """Whether a check that decided the non-passing side's outcome also ran on the other SDK. When none did (the
    Python deviation comes from a check with no Node form, say), the outcomes differ in coverage, not behaviour."""
    python, node = difference.python, difference.node
    deciding, other = (python, node) if python.get("status") != "passed" else (node, python)
    return bool(_functions(deciding) & _functions(other))


def compare(python: Mapping[str, Any], node: Mapping[str, Any]) -> tuple[list[Difference], list[str], list[str]]:
    """Clauses both checked with different outcomes; clause IDs checked only on Python; only on Node."""
    by_id_python = {clause["id"]: clause for clause in python.get("clauses", [])}
    by_id_node = {clause["id"]: clause for clause in node.get("clauses", [])}
    differences: list[Difference] = []
    python_only: list[str] = []
    node_only: list[str] = []
    for clause_id in sorted(set(by_id_python) | set(by_id_node)):
        left, right = by_id_python.get(clause_id, {}), by_id_node.get(clause_id, {})
        left_checked, right_checked = left.get("status") in CHECKED, right.get("status") in CHECKED
        if left_checked and right_checked:
            if left["status"] != right["status"]:
                summary = str(left.get("summary") or right.get("summary") or "")
                differences.append(Difference(clause_id, summary, left, right))
        elif left_checked:
            python_only.append(clause_id)
        elif right_checked:
            node_only.append(clause_id)
    return differences, python_only, node_only


def _version(certificate: Mapping[str, Any], key: str) -> str:
    versions = certificate.get("versions", {})
    return str(versions.get(key) or "unknown")


def _outcome(clause: Mapping[str, Any]) -> str:
    label = STATUS_LABELS.get(str(clause.get("status")), str(clause.get("status")))
    reasons = [str(reason) for reason in clause.get("reasons", []) if reason]
    return f"{label}: {reasons[0]}" if reasons else label


def render(python: Mapping[str, Any], node: Mapping[str, Any]) -> str:
    found, python_only, node_only = compare(python, node)
    differences = [difference for difference in found if same_checks(difference)]
    coverage = [difference.clause for difference in found if not same_checks(difference)]
    both = sum(
        1
        for clause in python.get("clauses", [])
        if clause.get("status") in CHECKED
        and any(other["id"] == clause["id"] and other.get("status") in CHECKED for other in node.get("clauses", []))
    )
    lines = [
        "# Python SDK vs Node SDK",
        "",
        f"openai (Python) {_version(python, 'openai')} vs openai (npm) {_version(node, 'openai (npm)')}: "
        f"{both} clause(s) checked on both, {len(differences)} behave differently.",
        "",
    ]
    if differences:
        lines += ["| clause | Python SDK | Node SDK |", "|---|---|---|"]
        for difference in differences:
            cells = [
                f"{difference.clause} {difference.summary}",
                _outcome(difference.python),
                _outcome(difference.node),
            ]
            lines.append("| " + " | ".join(cell.replace("|", "\\|").replace("\n", " ") for cell in cells) + " |")
        lines.append("")
    else:
        lines += ["No clause checked on both SDKs has a different outcome.", ""]
    sections = (
        ("Outcome differs only in which checks ran (the deciding check has no run on the other SDK)", coverage),
        ("Checked on the Python SDK only", python_only),
        ("Checked on the Node SDK only", node_only),
    )
    for title, ids in sections:
        lines.append(f"{title} ({len(ids)}): {', '.join(ids) if ids else 'none'}")
    return "\n".join(lines) + "\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("python", type=Path, help="the Python SDK certificate (folder or certificate.json)")
    parser.add_argument("node", type=Path, help="the Node SDK certificate (folder or certificate.json)")


def run(args: argparse.Namespace) -> int:
    try:
        python, node = load(args.python), load(args.node)
    except CertificateError as error:
        print(f"driverkit compare-sdks: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(render(python, node))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="driverkit compare-sdks")
    add_arguments(parser)
    return run(parser.parse_args(argv))
