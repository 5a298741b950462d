"""``python -m tools.cassettes [--write]``: check (default) or regenerate every committed cassette."""

from __future__ import annotations

import argparse
import sys

# stream_sources registers the live-* scenarios into RUNNER when imported, so it must be imported before RUNNER is used.
from tools.cassettes import stream_sources  # noqa: F401
from tools.cassettes.example_sources import EXAMPLES
from tools.cassettes.runner_sources import RUNNER


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check or regenerate the committed cassettes from their sources.")
    parser.add_argument("--write", action="store_true", help="write every cassette (default: only check)")
    options = parser.parse_args(argv)
    drifted = []
    for registry in (RUNNER, EXAMPLES):
        if options.write:
            for path in registry.write():
                print(path)
        else:
            drifted += [str(registry.path(name)) for name in registry.drifted()]
    if drifted:
        print(f"out of date (run python -m tools.cassettes --write): {', '.join(drifted)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
