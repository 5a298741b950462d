"""The mutation report: ``report.json`` (everything) and ``report.md`` (for people) in the ``--out`` folder.

The score is killed / (certified - equivalent): *certified* counts the variants whose certification ran to a
verdict (killed or survived); *equivalent* the survivors ``equivalent.toml`` argues equivalent. Incompetent
variants, variants the control never exercised, and runs the tool itself failed on are reported beside it and
counted in neither.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.mutate.equivalent import Entry
from tools.mutate.model import OPERATORS, Variant
from tools.mutate.runner import Control, Outcome
from tools.mutate.source_ops import Incompetent


@dataclass(frozen=True)
class Pool:
    """How many variants an operator has: generated, exercised by the control, and not exercised."""

    generated: int
    eligible: int
    not_covered: int
    incompetent: int


@dataclass(frozen=True)
class Run:
    """Everything one invocation of the tool decided and measured."""

    variants: Sequence[Variant]  # the certified selection, in order
    outcomes: Sequence[Outcome]
    equivalent: dict[str, Entry]  # valid entries, by ID
    stale_equivalents: Sequence[str]
    pools: dict[str, Pool]
    incompetent: Sequence[Incompetent]  # found when generating (do not compile)
    not_covered: Sequence[Variant]  # variants whose change the control never ran (source) or met (behavioural)
    controls: Sequence[Control]
    seconds: float
    settings: dict[str, Any]


@dataclass(frozen=True)
class Score:
    killed: int
    certified: int
    equivalent: int

    @property
    def denominator(self) -> int:
        return self.certified - self.equivalent

    @property
    def rate(self) -> float | None:
        return self.killed / self.denominator if self.denominator > 0 else None

    def line(self) -> str:
        rate = "n/a" if self.rate is None else f"{100 * self.rate:.1f}%"
        return (
            f"{rate} killed: {self.killed} / ({self.certified} certified - {self.equivalent} argued equivalent) "
            f"= {self.killed} / {self.denominator}"
        )


def score(outcomes: Sequence[Outcome], equivalent: dict[str, Entry]) -> Score:
    certified = [outcome for outcome in outcomes if outcome.status in ("killed", "survived")]
    killed = sum(1 for outcome in certified if outcome.status == "killed")
    accounted = sum(1 for outcome in certified if outcome.status == "survived" and outcome.id in equivalent)
    return Score(killed, len(certified), accounted)


def _duration(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest:02d} s" if minutes else f"{rest} s"


def as_json(run: Run) -> dict[str, Any]:
    by_id = {outcome.id: outcome for outcome in run.outcomes}
    total = score(run.outcomes, run.equivalent)
    operators = []
    for name, operator in OPERATORS.items():
        mine = [by_id[variant.id] for variant in run.variants if variant.operator == name and variant.id in by_id]
        pool = run.pools.get(name, Pool(0, 0, 0, 0))
        own = score(mine, run.equivalent)
        operators.append(
            {
                "operator": name,
                "kind": operator.kind,
                "family": operator.family,
                "generated": pool.generated,
                "not_covered": pool.not_covered,
                "incompetent": pool.incompetent + sum(1 for outcome in mine if outcome.status == "incompetent"),
                "eligible": pool.eligible,
                "certified": own.certified,
                "killed": own.killed,
                "survived": own.certified - own.killed,
                "equivalent": own.equivalent,
                "timeouts": sum(1 for outcome in mine if outcome.reason.startswith("timeout")),
                "rate": own.rate,
            }
        )
    variants = []
    for variant in run.variants:
        outcome = by_id.get(variant.id)
        entry = run.equivalent.get(variant.id)
        variants.append(
            {
                "id": variant.id,
                "operator": variant.operator,
                "family": variant.family,
                "kind": variant.kind,
                "target": variant.target,
                "description": variant.description,
                "status": None if outcome is None else outcome.status,
                "reason": None if outcome is None else outcome.reason,
                "failed_clauses": [] if outcome is None else list(outcome.failed_clauses),
                "verdict": None if outcome is None else outcome.verdict,
                "seconds": None if outcome is None else outcome.seconds,
                "equivalent": None if entry is None else entry.why,
            }
        )
    survivors = [item for item in variants if item["status"] == "survived"]
    return {
        "format": "driverkit-mutation-report",
        "format_version": 1,
        "settings": run.settings,
        "seconds": round(run.seconds, 1),
        "score": {
            "killed": total.killed,
            "certified": total.certified,
            "equivalent": total.equivalent,
            "rate": total.rate,
            "line": total.line(),
        },
        "controls": [
            {"target": control.target, "verdict": control.verdict, "seconds": control.seconds}
            for control in run.controls
        ],
        "operators": operators,
        "variants": variants,
        "survivors": [item["id"] for item in survivors if item["equivalent"] is None],
        "survivors_equivalent": [item["id"] for item in survivors if item["equivalent"] is not None],
        "killed_but_listed_equivalent": [
            item["id"] for item in variants if item["status"] == "killed" and item["equivalent"] is not None
        ],
        "incompetent": [{"id": item.id, "reason": item.reason} for item in run.incompetent]
        + [{"id": outcome.id, "reason": outcome.reason} for outcome in run.outcomes if outcome.status == "incompetent"],
        "errors": [
            {"id": outcome.id, "reason": outcome.reason} for outcome in run.outcomes if outcome.status == "error"
        ],
        "not_exercised": [
            {"id": variant.id, "description": variant.description}
            for variant in run.not_covered
            if variant.kind == "wrapper"
        ],
        "not_covered_by_file": _by_file(run.not_covered),
        "stale_equivalents": list(run.stale_equivalents),
    }


def _by_file(variants: Sequence[Variant]) -> dict[str, dict[str, int]]:
    """Per file, how many source variants of each operator sit in code the control never ran."""
    found: dict[str, dict[str, int]] = {}
    for variant in variants:
        if variant.edit is not None:
            counts = found.setdefault(variant.edit.path, {})
            counts[variant.operator] = counts.get(variant.operator, 0) + 1
    return dict(sorted(found.items()))


def _rate(value: Any) -> str:
    return "–" if value is None else f"{100 * value:.0f}%"


def as_markdown(data: dict[str, Any]) -> str:
    settings = data["settings"]
    lines = [
        "# Mutation report",
        "",
        f"**Score: {data['score']['line']}**",
        "",
        f"Run time {_duration(data['seconds'])} with {settings.get('jobs')} jobs; "
        f"selection: {settings.get('selection')}; checks: {settings.get('checks', 'all')}; "
        f"targets: {', '.join(settings.get('targets', []))}.",
        "",
        *[f"**Note:** {note}" + "\n" for note in settings.get("notes", [])],
        f"Checkout: commit {settings.get('commit')} (with its uncommitted changes, as the run found them).",
        "",
        "Controls (the unmutated reference in the same set-up): "
        + ", ".join(
            f"{control['target']} {control['verdict']} in {_duration(control['seconds'])}"
            for control in data["controls"]
        )
        + ".",
        "",
        "## Per operator",
        "",
        "*generated*: all variants; *not covered*: the control never ran the changed code (source) or never made a "
        "call the change would alter (behavioural); *incompetent*: does not compile or import; *certified*: in this "
        "run's selection and certified to a verdict.",
        "",
        "| operator | kind | mistake | generated | not covered | incompetent | certified | killed | survived "
        "| equivalent | rate |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in data["operators"]:
        rate = None if row["certified"] == row["equivalent"] else row["rate"]
        lines.append(
            f"| {row['operator']} | {row['kind']} | {row['family']} | {row['generated']} | {row['not_covered']} "
            f"| {row['incompetent']} | {row['certified']} | {row['killed']} | {row['survived']} | "
            f"{row['equivalent']} | {_rate(rate)} |"
        )
    by_id = {item["id"]: item for item in data["variants"]}
    lines += ["", "## Survivors", ""]
    if not data["survivors"]:
        lines.append("None outside equivalent.toml.")
    for variant_id in data["survivors"]:
        lines.append(f"- `{variant_id}`: {by_id[variant_id]['description']}")
    if data["survivors_equivalent"]:
        lines += ["", "## Survivors argued equivalent (equivalent.toml)", ""]
        for variant_id in data["survivors_equivalent"]:
            item = by_id[variant_id]
            lines.append(f"- `{variant_id}`: {item['description']} — {item['equivalent']}")
    if data["killed_but_listed_equivalent"]:
        lines += ["", "## Listed as equivalent but killed (remove from equivalent.toml)", ""]
        lines += [
            f"- `{variant_id}`: {by_id[variant_id]['reason']}" for variant_id in data["killed_but_listed_equivalent"]
        ]
    if data["stale_equivalents"]:
        lines += ["", "## Stale equivalent.toml entries (the ID is gone or now names another change)", ""]
        lines += [f"- `{variant_id}`" for variant_id in data["stale_equivalents"]]
    killed = [item for item in data["variants"] if item["status"] == "killed"]
    if killed:
        lines += ["", "## Killed", "", "| variant | first failure | seconds |", "|---|---|---:|"]
        for item in killed:
            reason = str(item["reason"]).replace("|", "\\|").replace("\n", " ")[:140]
            lines.append(f"| `{item['id']}` | {reason} | {item['seconds']} |")
    if data["incompetent"]:
        lines += ["", f"## Incompetent ({len(data['incompetent'])}, not counted)", ""]
        lines += [f"- `{item['id']}`: {item['reason']}" for item in data["incompetent"]]
    if data["errors"]:
        lines += ["", f"## Runs the tool could not judge ({len(data['errors'])}, not counted)", ""]
        lines += [f"- `{item['id']}`: {item['reason']}" for item in data["errors"]]
    if data["not_exercised"]:
        lines += [
            "",
            f"## Behavioural variants the certification never exercises ({len(data['not_exercised'])}, not certified)",
            "",
            "At every call the checks made, these would have forwarded the same arguments once and answered as the "
            "reference did, so they cannot fail any check as the suite stands; some show calls no check makes.",
            "",
        ]
        lines += [f"- `{item['id']}`: {item['description']}" for item in data["not_exercised"]]
    if data["not_covered_by_file"]:
        lines += [
            "",
            "## Source variants in code the certification never runs (not certified)",
            "",
            "| file | variants | of which raise-to-return |",
            "|---|---:|---:|",
        ]
        for path, counts in data["not_covered_by_file"].items():
            lines.append(f"| {path} | {sum(counts.values())} | {counts.get('raise-to-return', 0)} |")
    return "\n".join(lines) + "\n"


def write(run: Run, folder: Path) -> dict[str, Any]:
    """Write report.json, report.md and, for each killed or failed run, its output under logs/ (how it died)."""
    folder.mkdir(parents=True, exist_ok=True)
    data = as_json(run)
    for outcome in run.outcomes:
        if outcome.log:
            logs = folder / "logs"
            logs.mkdir(exist_ok=True)
            name = "".join(character if character.isalnum() or character in "+-." else "_" for character in outcome.id)
            (logs / f"{name}.log").write_text(outcome.log, encoding="utf-8")
    (folder / "report.json").write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (folder / "report.md").write_text(as_markdown(data), encoding="utf-8")
    return data
