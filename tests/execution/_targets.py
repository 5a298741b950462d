"""Running execution services to attack: in this process (as whoever runs pytest) or as ``nobody`` (needs root).

Each target is a pair of services with one token: one on loopback TCP, one on a unix socket, a work folder of
their own (where the unsandboxed baseline keeps its scratch folders; sandboxed runtimes have theirs only inside the
sandbox), and the facts an attacker would want (the service's host PID, a source file, the socket path).
``KIT_EXEC_UNSANDBOXED_BASELINE=1`` swaps the in-process services' sandbox for the old unconfined launcher, to
show that every attack in the suite does break an unsandboxed runtime (the attack tests must then fail).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import secrets
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import pytest

import reference.execution
from reference.execution import ExecutionService
from reference.execution.client import TOKEN_VARIABLE

from ._unsandboxed import UnsandboxedLauncher
from .conftest import TEST_LIMITS

PACKAGE = Path(reference.execution.__file__).resolve().parent
BASELINE = os.environ.get("KIT_EXEC_UNSANDBOXED_BASELINE") == "1"
_LISTENING = re.compile(r"listening at (\S+)")


@dataclass
class Target:
    """Two services (TCP and unix socket) sharing a token, and what an attacker would aim at."""

    mode: str
    token: str
    endpoint: str
    unix_endpoint: str
    unix_socket: str
    port: int
    service_pid: int
    source_file: str
    scratch_root: str
    _stops: list[object] = field(default_factory=list)

    def stop(self) -> None:
        for stop in reversed(self._stops):
            assert callable(stop)
            with contextlib.suppress(Exception):
                stop()
        self._stops.clear()


def _private_dir(owner: int | None = None) -> str:
    path = tempfile.mkdtemp(prefix="kit-exec-attack-")
    if owner is not None:
        os.chown(path, owner, owner)
    return path


@contextlib.contextmanager
def in_process_target(display: str, *, isolate_network: bool = True) -> Iterator[Target]:
    """The services in this process, run as this process's user; the token is in its environment, as with
    ``python -m reference.execution``."""
    token = secrets.token_urlsafe(24)
    work = _private_dir()
    previous = os.environ.get(TOKEN_VARIABLE)
    os.environ[TOKEN_VARIABLE] = token
    launcher = UnsandboxedLauncher(TEST_LIMITS, f"{work}/scratch") if BASELINE else None
    tcp = ExecutionService(
        token, display=display, limits=TEST_LIMITS, launcher=launcher, isolate_network=isolate_network
    )
    socket_path = f"{work}/exec.sock"
    unix = ExecutionService(
        token,
        display=display,
        limits=TEST_LIMITS,
        unix_socket=socket_path,
        isolate_network=isolate_network,
        launcher=UnsandboxedLauncher(TEST_LIMITS, f"{work}/scratch-unix") if BASELINE else None,
    )
    tcp.start()
    unix.start()
    address = tcp.endpoint.split("//", 1)[1].split("/", 1)[0]
    target = Target(
        mode="as root" if os.geteuid() == 0 else "as the test's own user",
        token=token,
        endpoint=tcp.endpoint,
        unix_endpoint=unix.endpoint,
        unix_socket=socket_path,
        port=int(address.rsplit(":", 1)[1]),
        service_pid=os.getpid(),
        source_file=str(PACKAGE / "service.py"),
        scratch_root=work,
    )
    target._stops += [lambda: shutil.rmtree(work, ignore_errors=True), tcp.stop, unix.stop]
    try:
        yield target
    finally:
        target.stop()
        if previous is None:
            os.environ.pop(TOKEN_VARIABLE, None)
        else:
            os.environ[TOKEN_VARIABLE] = previous


def unprivileged_python() -> str | None:
    """A Python that ``nobody`` can run and that has Pillow (Debian's, with python3-pil), or None."""
    python = "/usr/bin/python3"
    if not os.path.exists(python):
        return None
    probe = subprocess.run([python, "-c", "import PIL"], capture_output=True, check=False, timeout=60)
    return python if probe.returncode == 0 else None


def _start_as_nobody(python: str, package_root: str, args: list[str], token: str) -> tuple[subprocess.Popen[str], str]:
    nobody = pwd.getpwnam("nobody")
    process = subprocess.Popen(
        [
            "setpriv",
            f"--reuid={nobody.pw_uid}",
            f"--regid={nobody.pw_gid}",
            "--clear-groups",
            "--",
            python,
            "-m",
            "reference.execution",
            *args,
        ],
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": package_root, TOKEN_VARIABLE: token, "HOME": "/"},
        cwd="/",
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    found = _LISTENING.search(line)
    if found is None:
        process.kill()
        error = process.communicate()[1]
        if "cannot sandbox runtimes" in error:
            # The service refused, as it must, because this host gives an unprivileged user no sandbox.
            pytest.skip(f"blocked: the host cannot sandbox an unprivileged service: {error.strip()}")
        raise RuntimeError(f"the unprivileged service did not start: {line!r} {error!r}")
    return process, found.group(1)


def _terminate(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.contextmanager
def nobody_target(display: str, python: str, *, isolate_network: bool = True) -> Iterator[Target]:
    """The services as ``nobody``, started by root with Debian's Python and a copy of the package."""
    nobody = pwd.getpwnam("nobody")
    token = secrets.token_urlsafe(24)
    code_root = _private_dir()
    os.chmod(code_root, 0o755)
    package = Path(code_root) / "reference" / "execution"
    package.mkdir(parents=True)
    shutil.copy(PACKAGE.parent / "__init__.py", package.parent / "__init__.py")
    for source in PACKAGE.glob("*.py"):
        shutil.copy(source, package / source.name)
    if (PACKAGE / "js").is_dir():  # the JavaScript runtime and its npm packages
        shutil.copytree(PACKAGE / "js", package / "js", symlinks=True)
    for path in (package.parent, package, *package.parent.rglob("*")):
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    work = _private_dir(nobody.pw_uid)
    common = ["--display", display, "--deadline", str(TEST_LIMITS.deadline_s), "--memory-mb", "768"]
    common += ["--scratch-mb", str(TEST_LIMITS.scratch_bytes >> 20)]
    common += [] if isolate_network else ["--allow-network"]
    target_stops: list[object] = [lambda: shutil.rmtree(code_root, ignore_errors=True)]
    try:
        tcp, endpoint = _start_as_nobody(python, code_root, [*common, "--port", "0"], token)
        target_stops.append(lambda: _terminate(tcp))
        socket_path = f"{work}/exec.sock"
        unix, unix_endpoint = _start_as_nobody(
            python,
            code_root,
            [*common, "--unix-socket", socket_path],
            token,
        )
        target_stops.append(lambda: _terminate(unix))
    except Exception:
        for stop in reversed(target_stops):
            assert callable(stop)
            stop()
        raise
    target_stops.insert(0, lambda: shutil.rmtree(work, ignore_errors=True))
    address = endpoint.split("//", 1)[1].split("/", 1)[0]
    target = Target(
        mode="as nobody",
        token=token,
        endpoint=endpoint,
        unix_endpoint=unix_endpoint or f"http+unix://{quote(socket_path, safe='')}/execute",
        unix_socket=socket_path,
        port=int(address.rsplit(":", 1)[1]),
        service_pid=tcp.pid,
        source_file=str(package / "service.py"),
        scratch_root=work,
        _stops=target_stops,
    )
    try:
        yield target
    finally:
        target.stop()


Factory = Callable[[], AbstractContextManager[Target]]
MODES = ("root-or-self", "nobody")


def target_factory(mode: str, display: str, *, isolate_network: bool = True) -> Factory:
    """How to start a target in ``mode`` (skipping, with the reason, where this run cannot)."""
    if mode == "nobody":
        if os.geteuid() != 0:
            pytest.skip("starting a service as nobody needs root (this run is already unprivileged)")
        if BASELINE:
            pytest.skip("the baseline run replaces the in-process sandbox only")
        python = unprivileged_python()
        if python is None:
            pytest.skip("no Python for nobody with Pillow (apt-get install python3-pil)")
        return lambda: nobody_target(display, python, isolate_network=isolate_network)
    return lambda: in_process_target(display, isolate_network=isolate_network)
