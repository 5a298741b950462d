"""``driverkit shrink CASSETTE --mode M``: the smallest cassette whose replay still shows the same divergence.

A cassette from the field can hold hundreds of events around the one that matters. This command replays it in
mode ``M`` (as ``driverkit replay`` does, with ``--driver`` and ``--strict`` meaning the same) and notes how the
replay diverges: the first request that differs from the recording (which items were added or lost, which other
fields changed), a request the recording never had (and the new input items it carries), or how the run ended
(its error, and whether recorded exchanges were left unused). It then removes exchanges, output items, events,
deltas and faults (:mod:`conformance.streams.shrink`) while a replay of what is left still diverges that way, and
writes the smallest cassette with a report of what was removed.

The same divergence is not enough on its own: removing a stream's terminal event, say, makes almost any run stop
early. So the cassette must also keep replaying as it did in a reference mode: the mode the run was recorded in,
where a recording matches (or ``--against``; for an authored cassette, the plain mode of ``M``'s flavour). When
``M`` is that mode, only its divergence is kept.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, cast

from conformance import atomic, cassettes
from conformance._safe_text import for_terminal
from conformance.cassettes import Cassette, CassetteError, JSONObject
from conformance.fake_responses import comparable_body
from conformance.replay import MODES, ReplayError, ReplayReport, load_factory, plan_from, replay
from conformance.streams.shrink import Reduction, shrink, size

DEFAULT_SECONDS: Final = 300.0
Signature = tuple[object, ...]


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _inputs(body: JSONObject | None) -> list[str]:
    return [_canonical(item) for item in cast(list[object], (body or {}).get("input") or [])]


def _body_difference(expected: JSONObject | None, sent: JSONObject | None) -> Signature:
    """What differs between a recorded and a sent request: input items lost and added, other fields changed."""
    recorded, actual = _inputs(expected), _inputs(sent)
    lost = tuple(sorted(item for item in recorded if recorded.count(item) > actual.count(item)))
    added = tuple(sorted(item for item in actual if actual.count(item) > recorded.count(item)))
    fields = sorted((set(expected or {}) | set(sent or {})) - {"input"})
    changed = tuple(
        (key, _canonical((expected or {}).get(key)), _canonical((sent or {}).get(key)))
        for key in fields
        if (expected or {}).get(key) != (sent or {}).get(key)
    )
    order = () if lost or added or recorded == actual else ("input order",)
    return lost, added, changed, order


def signature(report: ReplayReport, strict: bool) -> Signature:
    """How a replay diverged, in terms that survive removing unrelated parts of the cassette."""
    divergence = report.divergence
    if divergence is None:
        return ("ended", report.error, report.unused_exchanges > 0)
    mask = not strict
    sent = comparable_body(divergence.actual, mask_driver_outputs=mask)
    if divergence.expected is None and divergence.index >= report.exchanges:
        # A request the recording never had: what it newly carries names the turn that led to it.
        trace = report.trace
        earlier = trace.requests[divergence.index - 1][1].body if trace and divergence.index >= 1 else None
        previous = _inputs(comparable_body(earlier, mask_driver_outputs=mask))
        new = tuple(item for item in _inputs(sent) if item not in previous)
        return ("extra request", new)
    if divergence.expected is None:
        return ("request", divergence.reason.split(":", 1)[-1].strip())
    expected = comparable_body(divergence.expected, mask_driver_outputs=mask)
    return ("request body", *_body_difference(expected, sent))


@dataclass(frozen=True)
class Target:
    """What a shrunk cassette must keep: ``mode``'s divergence, and the reference mode's replay (if any)."""

    mode: str
    divergence: Signature
    reference: str | None
    reference_signature: Signature | None


def _replayer(driver: Any, strict: bool) -> Callable[[Cassette, str], ReplayReport]:
    def run(cassette: Cassette, mode: str) -> ReplayReport:
        return replay(cassette, mode=mode, driver=driver, strict=strict)

    return run


def reference_mode(cassette: Cassette, mode: str, against: str | None) -> str | None:
    """The mode whose replay must stay as it is: ``against``, else the recording's own delivery in ``mode``'s
    flavour; None when that is ``mode`` itself."""
    chosen = against
    if chosen is None:
        delivery = "stream" if plan_from(cassette).recorded_stream else "plain"
        chosen = f"{MODES[mode].flavour}-{delivery}"
    return None if chosen == mode else chosen


def shrink_replay(
    cassette: Cassette,
    mode: str,
    *,
    driver: Any = None,
    strict: bool = False,
    against: str | None = None,
    budget_seconds: float | None = DEFAULT_SECONDS,
) -> tuple[Reduction, ReplayReport]:
    """Shrink ``cassette`` while its replay in ``mode`` diverges as it does now; the reduction and the final
    replay's report. Raises :class:`ReplayError` when the replay does not diverge (nothing to keep)."""
    run = _replayer(driver, strict)
    original = run(cassette, mode)
    if original.ok:
        raise ReplayError(f"the replay in {mode} matches the recording: there is no divergence to keep")
    reference = reference_mode(cassette, mode, against)
    target = Target(
        mode,
        signature(original, strict),
        reference,
        None if reference is None else signature(run(cassette, reference), strict),
    )

    def still(candidate: Cassette) -> bool:
        try:
            if signature(run(candidate, mode), strict) != target.divergence:
                return False
            return target.reference is None or signature(run(candidate, target.reference), strict) == (
                target.reference_signature
            )
        except (ReplayError, CassetteError):
            return False

    reduction = shrink(cassette, still, budget_seconds=budget_seconds)
    return reduction, run(reduction.cassette, mode)


# ------------------------------------------------------------------------------------------ command line


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``driverkit shrink`` arguments."""
    parser.add_argument("cassette", help="a driverkit.responses cassette (JSONL) whose replay diverges")
    parser.add_argument("--mode", required=True, choices=sorted(MODES), help="the mode the replay diverges in")
    parser.add_argument(
        "--driver", metavar="MODULE:FACTORY", help="browser driver factory, as for driverkit replay (default: probes)"
    )
    parser.add_argument("--strict", action="store_true", help="also compare outputs produced by drivers")
    parser.add_argument(
        "--against",
        choices=sorted(MODES),
        help="the mode whose replay must stay unchanged (default: the recorded delivery in --mode's flavour)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="where to write the smallest cassette (default: CASSETTE with .shrunk.jsonl beside it)",
    )
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=DEFAULT_SECONDS,
        help=f"stop shrinking after this long and keep the smallest so far (default {DEFAULT_SECONDS:g})",
    )


def run(args: argparse.Namespace) -> int:
    """Execute ``driverkit shrink``: 0 when a smaller cassette was written, 1 when the replay does not diverge,
    2 when it cannot start."""
    source = Path(args.cassette)
    out: Path = args.out or source.with_name(f"{source.name.removesuffix('.jsonl')}.shrunk.jsonl")
    try:
        cassette = cassettes.load(source)
        driver = load_factory(args.driver) if args.driver else None
        if not out.parent.resolve().is_dir():
            raise ReplayError(f"--out {out}: the folder {out.parent} does not exist")
        reduction, final = shrink_replay(
            cassette,
            args.mode,
            driver=driver,
            strict=args.strict,
            against=args.against,
            budget_seconds=args.max_seconds,
        )
    except ReplayError as error:
        diverges = "matches the recording" in str(error)
        print(f"driverkit shrink: {error}", file=sys.stderr)
        return 1 if diverges else 2
    except CassetteError as error:
        print(f"driverkit shrink: {error}", file=sys.stderr)
        return 2
    shrunk = reduction.cassette
    header = dict(shrunk.meta)
    header["shrunk"] = {"from": str(source), "mode": args.mode, "removed": len(reduction.removed)}
    written = Cassette(shrunk.scenario, shrunk.exchanges, shrunk.description, header)
    try:
        cassettes.save(written, out)
    except OSError as error:
        print(f"driverkit shrink: {out}: cannot write it ({error.strerror or error})", file=sys.stderr)
        return 2
    lines = [reduction.report(), f"written: {out}", f"its replay in {args.mode}:"]
    text = "\n".join(lines) + "\n" + final.render()
    sys.stdout.write("".join(f"{for_terminal(line, 10_000)}\n" for line in text.rstrip("\n").split("\n")))
    atomic.write_text(out.with_name(f"{out.name.removesuffix('.jsonl')}.report.txt"), reduction.report() + "\n")
    return 0


__all__ = ["DEFAULT_SECONDS", "Target", "add_arguments", "reference_mode", "run", "shrink_replay", "signature", "size"]
