"""``python -m tools.mutate``: certify single-defect variants of the reference drivers and report the kill rate.

    python -m tools.mutate --out build/mutation           # the default seeded sample (about 30 min on 2 cores)
    python -m tools.mutate --variant stale:read_page      # one variant (and the control), e.g. to re-check it
    python -m tools.mutate --list                         # every variant ID with its one-line description
    python -m tools.mutate --all --jobs 2                 # every variant the control exercises (hours)

The controls run first (see tools.mutate.runner); the report (report.json, report.md) goes to ``--out``, and the
score line is printed last.
"""

from __future__ import annotations

import argparse
import functools
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from tools.mutate import equivalent, report, runner, variants
from tools.mutate.model import OPERATORS, Target, Variant
from tools.mutate.report import Pool
from tools.mutate.runner import Control, ControlFailed, Outcome

# Sized for about 30 minutes on 2 cores with 2 jobs: a survivor costs a whole certification (35-90 s, more on a
# loaded machine), a killed variant usually much less (-x stops it at the first failure).
DEFAULT_SAMPLE: Final = 60
# Any fixed number will do; this is the issue that asked for the tool.
DEFAULT_SEED: Final = 29
TARGETS: Final[tuple[Target, ...]] = ("browser", "computer")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m tools.mutate", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    chosen = parser.add_mutually_exclusive_group()
    chosen.add_argument(
        "--sample", type=int, default=DEFAULT_SAMPLE, help=f"variants to certify (default {DEFAULT_SAMPLE})"
    )
    chosen.add_argument("--all", action="store_true", help="certify every variant the control exercises")
    chosen.add_argument(
        "--variant", action="append", default=[], metavar="ID", help="certify this variant (repeatable)"
    )
    chosen.add_argument("--list", action="store_true", help="list every variant and exit")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"sample seed (default {DEFAULT_SEED})")
    parser.add_argument("--jobs", type=int, default=2, help="certifications at a time (default 2)")
    parser.add_argument("--out", type=Path, help="report folder (default: a new temporary folder)")
    parser.add_argument(
        "--target",
        action="append",
        choices=TARGETS,
        help="browser and/or computer (default: both, computer when Xvfb is installed)",
    )
    parser.add_argument(
        "--timeout", type=float, help="seconds per certification (default: 4x the slowest control, at least 300)"
    )
    parser.add_argument(
        "--equivalent", type=Path, default=equivalent.DEFAULT_PATH, help="the equivalent-survivors list"
    )
    parser.add_argument(
        "--checks",
        metavar="EXPR",
        help="certify with only the checks pytest -k EXPR picks, the controls included (the score is then about "
        "those checks alone)",
    )
    parser.add_argument("--keep", action="store_true", help="keep each variant's working copy (printed at the end)")
    parser.add_argument("--fail-under", type=float, metavar="PERCENT", help="exit 1 when the score is below PERCENT")
    return parser


def _targets(requested: Sequence[Target] | None) -> tuple[list[Target], list[str]]:
    notes: list[str] = []
    targets = list(dict.fromkeys(requested or TARGETS))
    if "computer" in targets and shutil.which("Xvfb") is None:
        # The computer suite needs a local X desktop; without it the computer driver cannot be certified here.
        targets.remove("computer")
        notes.append("computer: not certified, Xvfb is not installed (the computer suite needs a local X desktop)")
    return targets, notes


def _commit() -> str | None:
    try:
        completed = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=runner.REPOSITORY, capture_output=True, text=True, check=False
        )
    except OSError:
        return None
    return completed.stdout.strip() or None


def _progress(done: int, total: int, variant: Variant, outcome: Outcome) -> None:
    print(
        f"[{done}/{total}] {outcome.status:<11} {variant.id} ({outcome.seconds:.0f} s) {outcome.reason[:100]}",
        file=sys.stderr,
        flush=True,
    )


def _controls(
    targets: Sequence[Target], base: Path, jobs: int, timeout: float, origin: Path, checks: Sequence[str]
) -> dict[Target, Control]:
    tasks = [functools.partial(runner.run_control, target, base, timeout, origin, checks) for target in targets]
    found: list[Control] = runner.run_parallel(tasks, jobs)
    return {control.target: control for control in found}


def main(argv: Sequence[str] | None = None) -> int:
    options = _parser().parse_args(argv)
    targets, notes = _targets(options.target)
    if options.list:
        listed = variants.generate(targets)
        for variant in listed.variants:
            print(f"{variant.id}\t{variant.description}")
        print(f"{len(listed.variants)} variants, {len(listed.incompetent)} incompetent", file=sys.stderr)
        return 0
    base = Path(tempfile.mkdtemp(prefix="driverkit-mutation-"))
    try:
        return _run(options, targets, notes, base)
    finally:
        if options.keep:
            print(f"working copies kept in {base}", file=sys.stderr)
        else:
            shutil.rmtree(base, ignore_errors=True)


def _run(options: argparse.Namespace, targets: list[Target], notes: list[str], base: Path) -> int:
    started = time.monotonic()
    commit, watched = _commit(), runner.fingerprint()
    origin = runner.snapshot(base)
    generated = variants.generate(targets, origin)
    try:
        entries = equivalent.load(options.equivalent)
        explicit = variants.find(generated, options.variant) if options.variant else None
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    needed = sorted({variant.target for variant in explicit}) if explicit is not None else targets
    checks = ["-k", options.checks] if options.checks else []
    out = options.out or Path(tempfile.mkdtemp(prefix="driverkit-mutation-report-"))
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"controls: certifying the unmutated reference ({', '.join(needed)})", file=sys.stderr, flush=True)
    try:
        controls = _controls(needed, base, options.jobs, options.timeout or 900.0, origin, checks)
    except ControlFailed as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for control in controls.values():
        print(f"control {control.target}: {control.verdict} in {control.seconds:.0f} s", file=sys.stderr)
    timeout = options.timeout or max(300.0, 4 * max(control.seconds for control in controls.values()))

    in_scope = [variant for variant in generated.variants if variant.target in controls]
    eligible = [variant for variant in in_scope if controls[variant.target].covers(variant)]
    not_covered = [variant for variant in in_scope if not controls[variant.target].covers(variant)]
    pools = {
        name: Pool(
            generated=sum(1 for variant in in_scope if variant.operator == name),
            eligible=sum(1 for variant in eligible if variant.operator == name),
            not_covered=sum(1 for variant in not_covered if variant.operator == name),
            incompetent=sum(1 for item in generated.incompetent if item.id.split(":", 1)[0] == name),
        )
        for name in OPERATORS
    }
    if explicit is not None:
        selection, described = explicit, f"--variant {' '.join(options.variant)}"
    elif options.all:
        selection, described = eligible, "every exercised variant"
    else:
        eligible_ids = {variant.id for variant in eligible}
        selection = variants.sample(in_scope, options.sample, options.seed, lambda variant: variant.id in eligible_ids)
        described = f"seeded sample of {len(selection)} (seed {options.seed}) from {len(eligible)} exercised variants"
    print(f"certifying {len(selection)} variants, {options.jobs} at a time", file=sys.stderr, flush=True)
    outcomes = runner.certify_all(
        selection,
        base,
        jobs=options.jobs,
        timeout=timeout,
        keep=options.keep,
        origin=origin,
        checks=checks,
        progress=_progress,
    )

    drifted = runner.changed(watched, runner.fingerprint())
    if drifted:
        notes.append(
            f"the checkout changed during the run ({', '.join(drifted[:8])}{', ...' if len(drifted) > 8 else ''}): "
            "variants certified at different times may have met different checks"
        )
    valid, stale = equivalent.matching(entries, generated.variants)
    run = report.Run(
        variants=selection,
        outcomes=outcomes,
        equivalent=valid,
        stale_equivalents=stale,
        pools=pools,
        incompetent=[item for item in generated.incompetent if item.id.split(":", 1)[0] in OPERATORS],
        not_covered=not_covered,
        controls=list(controls.values()),
        seconds=time.monotonic() - started,
        settings={
            "selection": described,
            "checks": options.checks or "all",
            "seed": options.seed,
            "sample": options.sample,
            "jobs": options.jobs,
            "timeout": timeout,
            "targets": list(controls),
            "notes": notes,
            "commit": commit,
            "changed_during_run": drifted,
            "python": sys.version.split()[0],
        },
    )
    data = report.write(run, out)
    print(f"report: {out / 'report.md'}", file=sys.stderr)
    print(
        f"mutation score: {data['score']['line']} ({report.score(outcomes, valid).killed} killed, "
        f"{len(data['survivors'])} unexplained survivors, {len(data['incompetent'])} incompetent, "
        f"{len(data['errors'])} errors; {round(run.seconds)} s)"
    )
    rate = data["score"]["rate"]
    if options.fail_under is not None and (rate is None or 100 * rate < options.fail_under):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
