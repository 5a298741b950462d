"""``driverkit replay``: the command line over the replay engine (:mod:`conformance.replay`).

Kept apart from the engine as ``driverkit shrink`` keeps its command (:mod:`conformance.streams.shrink_command`)
apart from shrinking, so code that replays a cassette (a test, the ``replayer`` fixture) never loads argument
parsing and printing, and the command's exit codes are defined in one place.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conformance import atomic
from conformance.cassettes import CassetteError
from conformance.html_report import timeline
from conformance.replay import MODES, ReplayError, replay


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``driverkit replay`` arguments."""
    parser.add_argument("cassette", help="a driverkit.responses cassette (JSONL)")
    parser.add_argument(
        "--driver",
        metavar="MODULE:FACTORY",
        help="browser driver factory, as for certification: called with an Environment, returning a driver, "
        "a context manager or a generator (its flavour picks sync or async); default: a recording probe driver",
    )
    parser.add_argument(
        "--mode",
        choices=sorted(MODES),
        help="runner flavour and delivery; default: the driver's flavour (sync for the probe), streamed if the "
        "recording was",
    )
    parser.add_argument("--max-steps", type=int, help="max_steps for the replayed run (default: the SDK's)")
    parser.add_argument("--strict", action="store_true", help="also compare outputs produced by drivers")
    parser.add_argument(
        "--html",
        metavar="OUT.html",
        type=Path,
        help="also write a timeline of the replayed run (requests, streamed events, tool calls, the divergence)",
    )


def run(args: argparse.Namespace) -> int:
    """Execute ``driverkit replay``: 0 when the replay matches, 1 on divergence, 2 when it cannot start."""
    html_path: Path | None = getattr(args, "html", None)
    try:
        if html_path is not None and not html_path.parent.resolve().is_dir():
            raise ReplayError(f"--html {html_path}: the folder {html_path.parent} does not exist")
        report = replay(args.cassette, mode=args.mode, driver=args.driver, max_steps=args.max_steps, strict=args.strict)
    except (CassetteError, ReplayError) as error:
        print(f"driverkit replay: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(report.render())
    if html_path is not None:
        try:
            atomic.write_text(html_path, timeline.render(report))
        except OSError as error:
            print(f"driverkit replay: --html {html_path}: cannot write it ({error.strerror or error})", file=sys.stderr)
            return 2
        print(f"timeline: {html_path}")
    return 0 if report.ok else 1


__all__ = ["add_arguments", "run"]
