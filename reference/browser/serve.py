"""Start or stop a browser for the reference driver to connect to: a Playwright server or a DevTools endpoint.

    python -m reference.browser.serve playwright-server start   # prints ws://127.0.0.1:PORT/...
    python -m reference.browser.serve cdp start                 # prints http://127.0.0.1:PORT
    python -m reference.browser.serve cdp stop

(``scripts/remote-browser.sh`` runs this with the checkout's venv.) The browser is started the way the driver's
own launch starts it: the same executable, the same flags that keep Chromium's DNS lookups local and its
background requests off, the sandbox whenever Chromium can use it, an empty HOME and its own profile folder.
It listens on loopback only. The process runs in its own session, so ``stop`` ends it and every child it made,
by the process ID recorded at start. State (PID, endpoint, log, profile) lives in ``--state`` (default
``$DRIVERKIT_REMOTE_STATE`` or a fixed folder under the temporary directory).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from ._launch import launch_options

STATE_VARIABLE: Final = "DRIVERKIT_REMOTE_STATE"
KINDS: Final = ("playwright-server", "cdp")
START_DEADLINE_S: Final = 30.0
STOP_DEADLINE_S: Final = 10.0
# Playwright passes these itself when it launches; a bare Chromium needs them to stay quiet and start clean.
_BARE_CHROMIUM_ARGS: Final = (
    "--headless",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--password-store=basic",
    "--use-mock-keychain",
)


# What the command line of each kind's process holds, to recognise it again at stop.
_MARKERS: Final = {"playwright-server": "launch-server", "cdp": "--remote-debugging-port=0"}


class ServeError(RuntimeError):
    """The browser could not be started or stopped; the message says what was tried."""


def _state(directory: str | None) -> Path:
    chosen = directory or os.environ.get(STATE_VARIABLE) or os.path.join(tempfile.gettempdir(), "driverkit-remote")
    return Path(chosen)


def _files(state: Path, kind: str) -> dict[str, Path]:
    return {name: state / f"{kind}.{name}" for name in ("pid", "endpoint", "log", "home", "config")}


def _server_config(home: str) -> dict[str, Any]:
    """``launch-server``'s JSON config: the driver's own launch options in Playwright's server spelling."""
    options = launch_options(home)
    config: dict[str, Any] = {
        "headless": options["headless"],
        "chromiumSandbox": options["chromium_sandbox"],
        "args": options["args"],
        "env": options["env"],
        "host": "127.0.0.1",
        "port": 0,
    }
    if "channel" in options:
        config["channel"] = options["channel"]
    if "executable_path" in options:
        config["executablePath"] = options["executable_path"]
    return config


def _cdp_command(home: str, profile: Path) -> list[str]:
    options = launch_options(home)
    executable = options.get("executable_path") or shutil.which("chromium") or shutil.which("google-chrome")
    if executable is None:
        raise ServeError("no Chromium found for the DevTools endpoint (looked for /usr/bin/chromium and on PATH)")
    sandbox = [] if options["chromium_sandbox"] else ["--no-sandbox"]
    return [
        executable,
        *_BARE_CHROMIUM_ARGS,
        *sandbox,
        *options["args"],
        "--remote-debugging-address=127.0.0.1",
        "--remote-debugging-port=0",
        f"--user-data-dir={profile}",
        "about:blank",
    ]


def _wait_for_endpoint(process: subprocess.Popen[bytes], kind: str, files: dict[str, Path]) -> str:
    deadline = time.monotonic() + START_DEADLINE_S
    while time.monotonic() < deadline:
        endpoint = _read_endpoint(kind, files)
        if endpoint:
            return endpoint
        if process.poll() is not None:
            raise ServeError(
                f"the {kind} browser exited with status {process.returncode} before it listened:\n{_tail(files)}"
            )
        time.sleep(0.05)
    _end(process.pid)
    raise ServeError(f"the {kind} browser did not announce an endpoint within {START_DEADLINE_S:g} s:\n{_tail(files)}")


def _read_endpoint(kind: str, files: dict[str, Path]) -> str | None:
    if kind == "playwright-server":
        # launch-server prints its ws:// endpoint as the first line of its output.
        for line in files["log"].read_text("utf-8", "replace").splitlines():
            if line.startswith("ws://"):
                return line.strip()
        return None
    # Chromium writes the port it chose (with --remote-debugging-port=0) into its profile once it listens.
    port_file = files["home"] / "profile" / "DevToolsActivePort"
    lines = port_file.read_text("utf-8").splitlines() if port_file.exists() else []
    return f"http://127.0.0.1:{lines[0].strip()}" if lines and lines[0].strip().isdigit() else None


def _tail(files: dict[str, Path], lines: int = 15) -> str:
    text = files["log"].read_text("utf-8", "replace") if files["log"].exists() else ""
    return "\n".join(text.splitlines()[-lines:])


def start(kind: str, state: Path) -> str:
    """Start the browser of ``kind`` in the background and return its endpoint."""
    files = _files(state, kind)
    if files["pid"].exists():
        raise ServeError(
            f"a {kind} browser is already recorded in {state} (pid {files['pid'].read_text().strip()}); stop it first"
        )
    state.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(files["home"], ignore_errors=True)
    files["home"].mkdir()
    home = str(files["home"])
    if kind == "playwright-server":
        files["config"].write_text(json.dumps(_server_config(home)), "utf-8")
        command = [
            sys.executable,
            "-m",
            "playwright",
            "launch-server",
            "--browser",
            "chromium",
            "--config",
            str(files["config"]),
        ]
    else:
        command = _cdp_command(home, files["home"] / "profile")
    environment = {**os.environ, "HOME": home}
    with files["log"].open("wb") as log:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=environment,
            start_new_session=True,
        )
    files["pid"].write_text(str(process.pid), "utf-8")
    try:
        endpoint = _wait_for_endpoint(process, kind, files)
    except BaseException:
        _end(process.pid)
        _clear(files)
        raise
    files["endpoint"].write_text(endpoint + "\n", "utf-8")
    return endpoint


def _end(pid: int) -> None:
    """End the process group this helper started (its own session: the group ID is the leader's PID)."""
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + STOP_DEADLINE_S
    while time.monotonic() < deadline:
        try:
            os.killpg(pid, 0)
        except ProcessLookupError:
            return
        _reap(pid)
        time.sleep(0.05)
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        return


def _reap(pid: int) -> None:
    # A process started by an earlier invocation of this helper is not our child: init reaps it.
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def _clear(files: dict[str, Path]) -> None:
    for name in ("pid", "endpoint", "config"):
        files[name].unlink(missing_ok=True)
    shutil.rmtree(files["home"], ignore_errors=True)


def stop(kind: str, state: Path) -> bool:
    """Stop the browser of ``kind`` recorded in ``state``; False when none was recorded."""
    files = _files(state, kind)
    if not files["pid"].exists():
        return False
    text = files["pid"].read_text("utf-8").strip()
    if not text.isdigit():
        raise ServeError(f"{files['pid']} does not hold a process ID ({text[:40]!r}); remove it by hand")
    pid = int(text)
    command = _command_line(pid)
    if command is not None and _MARKERS[kind] not in command:
        # The browser is gone and its PID was reused: never signal a process this helper did not start.
        raise ServeError(f"process {pid} recorded in {files['pid']} is not the {kind} browser; remove the file by hand")
    if command is not None:
        _end(pid)
    _clear(files)
    return True


def _command_line(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reference.browser.serve", description=__doc__.splitlines()[0])
    parser.add_argument(
        "kind", choices=KINDS, help="a Playwright server (ws://) or Chromium's DevTools endpoint (http://)"
    )
    parser.add_argument("action", choices=("start", "stop"))
    parser.add_argument("--state", help=f"folder for the PID, endpoint and log (default ${STATE_VARIABLE})")
    args = parser.parse_args(argv)
    state = _state(args.state)
    try:
        if args.action == "start":
            print(start(args.kind, state))
        elif not stop(args.kind, state):
            print(f"no {args.kind} browser recorded in {state}", file=sys.stderr)
    except ServeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
