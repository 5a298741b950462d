"""Run the execution service: ``python -m reference.execution --display :99`` (token from the environment).

The bearer token is read from ``OPENAI_EXAMPLE_CODE_EXECUTION_TOKEN`` (never from the command line, where other
users could read it in the process list). The endpoint URL is printed once the service listens.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading

from .client import TOKEN_VARIABLE
from .limits import ExecutionLimits
from .service import LOOPBACK, ExecutionService, IsolationUnavailable


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reference.execution", description=__doc__)
    parser.add_argument(
        "--display",
        default=os.environ.get("DISPLAY"),
        help="X display of the desktop, shared by every session (default $DISPLAY); 'per-session' gives each "
        "session an X server of its own that no other session can reach",
    )
    parser.add_argument("--host", default=LOOPBACK, help="address to bind (default loopback)")
    parser.add_argument("--port", type=int, default=8787)
    parser.add_argument("--unix-socket", help="serve on this unix socket instead of TCP (for network-less containers)")
    parser.add_argument("--deadline", type=float, default=ExecutionLimits.deadline_s, help="seconds per call")
    parser.add_argument("--memory-mb", type=int, default=ExecutionLimits.memory_bytes // (1024 * 1024))
    parser.add_argument("--max-sessions", type=int, default=ExecutionLimits.max_sessions, help="live sessions at most")
    parser.add_argument(
        "--idle-timeout", type=float, default=ExecutionLimits.idle_timeout_s, help="end sessions idle this many seconds"
    )
    parser.add_argument(
        "--scratch-mb",
        type=int,
        default=ExecutionLimits.scratch_bytes >> 20,
        help="size of each session's scratch folder (a tmpfs: counted in RAM, in the session's cgroup as root)",
    )
    parser.add_argument("--allow-network", action="store_true", help="run runtimes with network access")
    options = parser.parse_args(argv)

    token = os.environ.get(TOKEN_VARIABLE, "")
    if len(token) < 16:
        print(f"error: set {TOKEN_VARIABLE} to a bearer token of at least 16 characters", file=sys.stderr)
        return 2
    if not options.display:
        print("error: no X display; pass --display or set DISPLAY", file=sys.stderr)
        return 2
    try:
        limits = ExecutionLimits(
            deadline_s=options.deadline,
            memory_bytes=options.memory_mb * 1024 * 1024,
            max_sessions=options.max_sessions,
            idle_timeout_s=options.idle_timeout,
            scratch_bytes=options.scratch_mb * 1024 * 1024,
        )
        service = ExecutionService(
            token,
            display=options.display,
            limits=limits,
            host=options.host,
            port=options.port,
            isolate_network=not options.allow_network,
            unix_socket=options.unix_socket,
        )
    except (IsolationUnavailable, ValueError, OSError) as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with service:
        print(f"execution service listening at {service.endpoint} (display {options.display})", flush=True)
        print(f"sandbox: {service.launcher.description}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            # A signal may be delivered to any thread, and Python runs its handler in the main thread only once
            # that thread runs again: a wait without a timeout could sleep through SIGTERM for ever.
            while not stop.wait(timeout=0.2):
                pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
