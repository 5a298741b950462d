"""Start or stop a browser for the reference driver to connect to: a Playwright server or a DevTools endpoint.

    python -m reference.browser.serve playwright-server start   # prints ws://127.0.0.1:PORT/...
    python -m reference.browser.serve cdp start                 # prints http://127.0.0.1:PORT
    python -m reference.browser.serve cdp stop
    python -m reference.browser.serve desktop-cdp start         # prints http://CONTAINER-IP:9222
    python -m reference.browser.serve desktop-cdp host          # prints this machine's address as the container sees it

(``scripts/remote-browser.sh`` runs this with the checkout's venv.) The browser is started the way the driver's
own launch starts it: the same executable, the same flags that keep Chromium's DNS lookups local and its
background requests off, the sandbox whenever Chromium can use it, an empty HOME and its own profile folder.
It listens on loopback only. The process runs in its own session, so ``stop`` ends it and every child it made,
by the process ID recorded at start.

``desktop-cdp`` is the kit's desktop container (``kit/desktop``, containers/build-desktop-image.sh) with its
Chromium's DevTools endpoint offered on a host-only Docker network (``driverkit-remote``: internal, so nothing
routes beyond this machine). Its browser reaches this machine only at the network's gateway address, which
``host`` prints: serve the fixture pages there (``--fixture-host``) and put the reference driver's network
guard there (``DRIVERKIT_BROWSER_GUARD_HOST``). The container keeps the desktop's lockdown: an unprivileged
user, no capabilities, a read-only root; ``stop`` removes it by the ID recorded at start, and the network once
no container is on it.

State (PID, endpoint, log, profile, container) lives in ``--state`` (default ``$DRIVERKIT_REMOTE_STATE`` or a
fixed folder under the temporary directory).
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
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from ._launch import launch_options

STATE_VARIABLE: Final = "DRIVERKIT_REMOTE_STATE"
KINDS: Final = ("playwright-server", "cdp", "desktop-cdp")
DESKTOP_IMAGE_VARIABLE: Final = "KIT_DESKTOP_IMAGE"
DESKTOP_NETWORK: Final = "driverkit-remote"
DESKTOP_DEVTOOLS_PORT: Final = 9222
# Marks what this helper made on the engine, so nothing else is ever removed by it.
DESKTOP_LABEL: Final = "org.responses-driver-kit.remote-browser"
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
    names = ("pid", "endpoint", "log", "home", "config", "container", "host")
    return {name: state / f"{kind}.{name}" for name in names}


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


def _docker(*arguments: str) -> str:
    """Run the docker CLI; its output, or :class:`ServeError` with what it said."""
    try:
        done = subprocess.run(["docker", *arguments], capture_output=True, text=True, timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ServeError(f"docker {arguments[0]} could not run: {error}") from None
    if done.returncode != 0:
        raise ServeError(f"docker {' '.join(arguments[:2])} failed: {(done.stderr or done.stdout).strip()[-600:]}")
    return done.stdout.strip()


def _desktop_network() -> str:
    """The host-only network (created once, labelled) and this machine's address on it (its gateway)."""
    try:
        _docker("network", "inspect", DESKTOP_NETWORK)
    except ServeError:
        # --internal: no route out of the network, so the container reaches this machine and nothing else.
        _docker("network", "create", "--driver", "bridge", "--internal", "--label", DESKTOP_LABEL, DESKTOP_NETWORK)
    gateway = _docker("network", "inspect", "--format", "{{range .IPAM.Config}}{{.Gateway}} {{end}}", DESKTOP_NETWORK)
    if not gateway.split():
        raise ServeError(f"docker network {DESKTOP_NETWORK} has no gateway address for this machine")
    return gateway.split()[0]


def _start_desktop(files: dict[str, Path]) -> str:
    image = os.environ.get(DESKTOP_IMAGE_VARIABLE) or "kit/desktop:latest"
    host = _desktop_network()
    container = _docker(
        "run", "--detach", "--network", DESKTOP_NETWORK, "--label", DESKTOP_LABEL,
        "--user", "1000:1000", "--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--read-only",
        "--tmpfs", "/tmp:rw,size=64m", "--tmpfs", "/home/kit:rw,size=512m,uid=1000,gid=1000",
        "--shm-size", "256m", "--init", "--memory", "2g", "--pids-limit", "512",
        "--env", "KIT_DISPLAY=99", "--env", f"KIT_DEVTOOLS_PORT={DESKTOP_DEVTOOLS_PORT}",
        "--env", f"KIT_HOST_ADDRESS={host}", "--name", f"driverkit-devtools-{os.getpid()}-{int(time.time())}", image,
    )  # fmt: skip
    files["container"].write_text(container, "utf-8")
    address = _docker(
        "inspect", "--format", f'{{{{(index .NetworkSettings.Networks "{DESKTOP_NETWORK}").IPAddress}}}}', container
    )
    endpoint = f"http://{address}:{DESKTOP_DEVTOOLS_PORT}"
    deadline = time.monotonic() + START_DEADLINE_S
    while True:
        try:
            with urllib.request.urlopen(f"{endpoint}/json/version", timeout=2) as answer:
                if answer.status == 200:
                    break
        except OSError:
            pass
        running = _docker("inspect", "--format", "{{.State.Running}}", container)
        if running != "true" or time.monotonic() > deadline:
            logs = subprocess.run(["docker", "logs", "--tail", "15", container], capture_output=True, text=True)
            _stop_desktop(files)
            why = "exited" if running != "true" else f"did not answer within {START_DEADLINE_S:g} s"
            raise ServeError(f"the desktop container's DevTools endpoint {endpoint} {why}:\n{logs.stderr[-1500:]}")
        time.sleep(0.2)
    files["host"].write_text(host, "utf-8")
    files["endpoint"].write_text(endpoint + "\n", "utf-8")
    return endpoint


def _stop_desktop(files: dict[str, Path]) -> None:
    container = files["container"].read_text("utf-8").strip()
    labels = _docker("inspect", "--format", "{{json .Config.Labels}}", container) if container else "{}"
    if DESKTOP_LABEL not in json.loads(labels or "{}"):
        raise ServeError(f"container {container[:12]} recorded in {files['container']} is not this helper's")
    _docker("rm", "--force", container)
    for name in ("container", "host", "endpoint"):
        files[name].unlink(missing_ok=True)
    # The network goes too once no container uses it (another helper's browser may still be on it).
    with contextlib.suppress(ServeError):
        network_labels = _docker("network", "inspect", "--format", "{{json .Labels}}", DESKTOP_NETWORK)
        if DESKTOP_LABEL in json.loads(network_labels or "{}"):
            _docker("network", "rm", DESKTOP_NETWORK)


def host(kind: str, state: Path) -> str:
    """This machine's address as the ``desktop-cdp`` container reaches it (recorded at start)."""
    files = _files(state, kind)
    if kind != "desktop-cdp" or not files["host"].exists():
        raise ServeError(f"no desktop-cdp browser recorded in {state}; start one first")
    return files["host"].read_text("utf-8").strip()


def start(kind: str, state: Path) -> str:
    """Start the browser of ``kind`` in the background and return its endpoint."""
    files = _files(state, kind)
    if kind == "desktop-cdp":
        if files["container"].exists():
            raise ServeError(f"a desktop-cdp browser is already recorded in {state}; stop it first")
        state.mkdir(parents=True, exist_ok=True)
        return _start_desktop(files)
    if files["pid"].exists():
        pid = _recorded_pid(files)
        if _is_running(kind, pid):
            raise ServeError(f"a {kind} browser is already running from {state} (pid {pid}); stop it first")
        # The helper that recorded it was killed before its stop ran (the browser went with it, or its PID now
        # belongs to another process): the record no longer describes a browser, so it must not block this start.
        _clear_stale(kind, files, pid)
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
    if kind == "desktop-cdp":
        if not files["container"].exists():
            return False
        _stop_desktop(files)
        return True
    if not files["pid"].exists():
        return False
    pid = _recorded_pid(files)
    if not _is_running(kind, pid):
        # Gone already, or its PID now belongs to another process: never signal a process this helper did not start.
        _clear_stale(kind, files, pid)
        return True
    _end(pid)
    _clear(files)
    return True


def _clear_stale(kind: str, files: dict[str, Path], pid: int) -> None:
    print(f"note: {files['pid']} named pid {pid}, which is no longer the {kind} browser; cleared", file=sys.stderr)
    _clear(files)


def _recorded_pid(files: dict[str, Path]) -> int:
    text = files["pid"].read_text("utf-8").strip()
    if not text.isdigit():
        raise ServeError(f"{files['pid']} does not hold a process ID ({text[:40]!r}); remove it by hand")
    return int(text)


def _is_running(kind: str, pid: int) -> bool:
    """Whether ``pid`` is still the ``kind`` browser this helper started (a live process with its command line)."""
    command = _command_line(pid)
    return command is not None and _MARKERS[kind] in command


def _command_line(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reference.browser.serve", description=__doc__.splitlines()[0])
    parser.add_argument(
        "kind",
        choices=KINDS,
        help="a Playwright server (ws://), Chromium's DevTools endpoint (http://), or that endpoint of a browser in "
        "the kit's desktop container",
    )
    parser.add_argument("action", choices=("start", "stop", "host"))
    parser.add_argument("--state", help=f"folder for the PID, endpoint and log (default ${STATE_VARIABLE})")
    args = parser.parse_args(argv)
    state = _state(args.state)
    try:
        if args.action == "start":
            print(start(args.kind, state))
        elif args.action == "host":
            print(host(args.kind, state))
        elif not stop(args.kind, state):
            print(f"no {args.kind} browser recorded in {state}", file=sys.stderr)
    except ServeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
