"""Start or stop a browser for the reference driver to connect to: a Playwright server or a DevTools endpoint.

    python -m reference.browser.serve playwright-server start   # prints ws://127.0.0.1:PORT/TOKEN/...
    python -m reference.browser.serve cdp start                 # prints http://127.0.0.1:PORT/TOKEN
    python -m reference.browser.serve cdp stop
    python -m reference.browser.serve desktop-cdp start         # prints http://CONTAINER-IP:9222/TOKEN
    python -m reference.browser.serve desktop-cdp host          # prints this machine's address as the container sees it

(``scripts/remote-browser.sh`` runs this with the checkout's venv.)

Who can use what it prints: an endpoint is the browser's full control, every page and every file the browser's
user can read (``file:///...``); run as root, that is any file. So each endpoint answers its owner only. It
carries a random token (``secrets.token_urlsafe(32)``) in its path, and the port it names is a relay
(containers/desktop/devtools_relay.py) that forwards only requests whose path starts with ``/TOKEN/`` and answers
404 to everything else; the token is handed only to the caller (printed by ``start``) and recorded in the state
folder, which is the owner's alone (0700, files 0600; a folder of another user, or a symbolic link, is refused,
and a loose one of ours is closed). No command line holds the token: it reaches the processes that need it
through a pipe or their environment, which other users cannot read.

``cdp`` and ``playwright-server`` browsers run in a network namespace of their own, so their own ports (Chromium's
DevTools port, the Playwright server's) are on a loopback no other process of this machine shares: the relay,
given a listening socket on this machine's loopback, is their one way in. The browser still reaches everything
this user reaches over TCP (the fixture pages, a driver's network guard on 127.0.0.1): the namespace sends its
connections (iptables ``REDIRECT``) to a bridge that has a helper outside make them. The browser itself runs as an
ordinary user of a user namespace of its own, so Chromium keeps its sandbox even when the helper runs as root
(``DRIVERKIT_CHROMIUM_SANDBOX=off`` still turns it off); its files are the owner's. Otherwise it is started the way
the driver's own launch starts it: the same executable, the same flags that keep Chromium's DNS lookups local and
its background requests off, an empty HOME and its own profile folder. A keeper process (``_keep``) holds all of
this in its own session; ``stop`` ends that session by the process ID recorded at start, and the keeper ends
every process started under it (it is their subreaper, so a browser its launcher detached is found too).

``desktop-cdp`` is the kit's desktop container (``kit/desktop``, containers/build-desktop-image.sh) with its
Chromium's DevTools endpoint offered, behind the same relay and token, on a host-only Docker network
(``driverkit-remote``: internal, so nothing routes beyond this machine). Its browser reaches this machine only at
the network's gateway address, which ``host`` prints: serve the fixture pages there (``--fixture-host``) and put
the reference driver's network guard there (``DRIVERKIT_BROWSER_GUARD_HOST``). The container keeps the desktop's
lockdown: an unprivileged user, no capabilities, a read-only root; ``stop`` removes it by the ID recorded at start,
and the network once no container is on it.

State (PID, endpoint, log, profile, container) lives in ``--state`` (default ``$DRIVERKIT_REMOTE_STATE`` or a
fixed folder under the temporary directory).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import fcntl
import json
import os
import re
import secrets
import select
import shutil
import signal
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any, Final

from conformance import resources

from ._launch import SANDBOX_VARIABLE, launch_options

STATE_VARIABLE: Final = "DRIVERKIT_REMOTE_STATE"
KINDS: Final = ("playwright-server", "cdp", "desktop-cdp")
DESKTOP_IMAGE_VARIABLE: Final = "KIT_DESKTOP_IMAGE"
DESKTOP_NETWORK: Final = "driverkit-remote"
DESKTOP_DEVTOOLS_PORT: Final = 9222
# Marks what this helper made on the engine, so nothing else is ever removed by it.
DESKTOP_LABEL: Final = "org.responses-driver-kit.remote-browser"
# The relay reads its token from this variable (in the container too); no command line ever holds it.
TOKEN_VARIABLE: Final = "KIT_DEVTOOLS_TOKEN"
START_DEADLINE_S: Final = 30.0
STOP_DEADLINE_S: Final = 10.0
KEEPER_ACTION: Final = "_keep"
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

# What the command line of each kind's keeper holds, to recognise it again at stop.
_MARKERS: Final = {kind: f"reference.browser.serve {KEEPER_ACTION} {kind}" for kind in ("playwright-server", "cdp")}
# The relay connects to the browser from this address; the namespace sends every other connection to the host.
_RELAY_SOURCE: Final = "127.0.0.2"
# The browser's user in its own user namespace: anyone but root, so Chromium builds its sandbox.
_BROWSER_UID: Final = 1000
_CLONE_NEWUSER: Final = 0x10000000
_CLONE_NEWNET: Final = 0x40000000
_SO_ORIGINAL_DST: Final = 80
_PR_SET_CHILD_SUBREAPER: Final = 36
_SIOCGIFFLAGS: Final = 0x8913
_SIOCSIFFLAGS: Final = 0x8914
_IFF_UP: Final = 0x1
_OUTSIDE_CONNECT_TIMEOUT_S: Final = 10.0
# The browser's own processes get this long to end on SIGTERM before every process left is killed.
_KEEPER_GRACE_S: Final = 4.0
# Whatever asks this helper's readiness checks must not go through a proxy of the environment: the URL holds the token.
_DIRECT: Final = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class ServeError(RuntimeError):
    """The browser could not be started or stopped; the message says what was tried."""


def _state(directory: str | None) -> Path:
    chosen = directory or os.environ.get(STATE_VARIABLE) or os.path.join(tempfile.gettempdir(), "driverkit-remote")
    return Path(chosen)


def _files(state: Path, kind: str) -> dict[str, Path]:
    names = ("pid", "endpoint", "log", "home", "config", "container", "host")
    return {name: state / f"{kind}.{name}" for name in names}


# ----- the state folder: the owner's alone ---------------------------------------------------------------------


def _private_folder(state: Path, *, create: bool = True) -> None:
    """Make ``state`` (or check it) a folder only this user can enter: it holds the endpoints and their tokens.

    A folder another user owns is refused (they could read, or swap, what this helper writes there: the default is
    a fixed name under /tmp that anyone may create first), and so is a symbolic link; a folder of ours that others
    may enter or write is closed to them.
    """
    if create:
        state.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            state.mkdir(mode=0o700)
    try:
        descriptor = os.open(state, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except FileNotFoundError:
        if create:
            raise
        return
    except OSError as error:
        why = f"the state folder {state} is not a folder of its own (a symbolic link or a file): {error}"
        raise ServeError(why) from None
    try:
        info = os.fstat(descriptor)
        if info.st_uid != os.geteuid():
            raise ServeError(
                f"the state folder {state} is owned by uid {info.st_uid}, not by this user (uid {os.geteuid()}): "
                f"another user could read the endpoint recorded there; name a folder of your own with --state or "
                f"{STATE_VARIABLE}"
            )
        if stat.S_IMODE(info.st_mode) != 0o700:
            os.fchmod(descriptor, 0o700)
    finally:
        os.close(descriptor)


def _open_private(path: Path) -> IO[bytes]:
    """A new file only this user can read, in place of whatever was there (never through a symbolic link)."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    return os.fdopen(descriptor, "wb")


def _write_private(path: Path, text: str) -> None:
    with _open_private(path) as handle:
        handle.write(text.encode("utf-8"))


def _fresh_folder(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(mode=0o700)


# ----- cdp and playwright-server: a browser in namespaces of its own, behind the relay -----------------------


def _served_sandbox() -> bool:
    launch_options("/nonexistent")  # refuses a malformed DRIVERKIT_CHROMIUM_SANDBOX, as the driver's launch does
    # The browser runs as an ordinary user of its own user namespace, so Chromium can build its sandbox even when
    # this helper runs as root; only an explicit "off" (a kernel that forbids nested user namespaces) turns it off.
    return os.environ.get(SANDBOX_VARIABLE, "") != "off"


def _server_config(home: str) -> dict[str, Any]:
    """``launch-server``'s JSON config: the driver's own launch options in Playwright's server spelling."""
    options = launch_options(home)
    config: dict[str, Any] = {
        "headless": options["headless"],
        "chromiumSandbox": _served_sandbox(),
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
    sandbox = [] if _served_sandbox() else ["--no-sandbox"]
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


def _start_isolated(kind: str, files: dict[str, Path]) -> str:
    token = secrets.token_urlsafe(32)
    _fresh_folder(files["home"])
    home = str(files["home"])
    if kind == "playwright-server":
        _write_private(files["config"], json.dumps(_server_config(home)))
        command = [sys.executable, "-m", "playwright", "launch-server", "--browser", "chromium"]
        command += ["--config", str(files["config"])]
    else:
        command = _cdp_command(home, files["home"] / "profile")
    environment = {name: value for name, value in os.environ.items() if name != TOKEN_VARIABLE}
    environment["HOME"] = home
    # The relay's port, on this machine's loopback: made here, before the keeper leaves this network namespace.
    listener = socket.create_server(("127.0.0.1", 0), backlog=64)
    port = listener.getsockname()[1]
    orders = {
        "command": command,
        "environment": environment,
        "home": home,
        "log": str(files["log"]),
        "token": token,
        "listener": listener.fileno(),
        "relay": str(resources.containers("desktop", "devtools_relay.py")),
    }
    try:
        with _open_private(files["log"]) as log:
            keeper = subprocess.Popen(
                [sys.executable, "-m", "reference.browser.serve", KEEPER_ACTION, kind],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                pass_fds=(listener.fileno(),),
                start_new_session=True,
            )
    finally:
        listener.close()
    _write_private(files["pid"], str(keeper.pid))
    deadline = time.monotonic() + START_DEADLINE_S + 5
    assert keeper.stdin is not None and keeper.stdout is not None
    try:
        # The token reaches the keeper through this pipe: a command line is readable by every user.
        keeper.stdin.write(json.dumps(orders).encode("utf-8"))
        keeper.stdin.close()
        path = _keeper_answer(kind, keeper, keeper.stdout, deadline, files)
        endpoint = f"{'ws' if kind == 'playwright-server' else 'http'}://127.0.0.1:{port}/{token}{path}"
        _check_through_relay(kind, f"http://127.0.0.1:{port}/{token}", deadline, files)
    except BaseException:
        _end(keeper.pid)
        _clear(files)
        raise
    finally:
        keeper.stdout.close()
    _write_private(files["endpoint"], endpoint + "\n")
    return endpoint


def _keeper_answer(
    kind: str, keeper: subprocess.Popen[bytes], answer: IO[bytes], deadline: float, files: dict[str, Path]
) -> str:
    """The path the keeper reports for its browser's endpoint, once the browser listens."""
    received = b""
    while b"\n" not in received:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ServeError(f"the {kind} browser did not start within {START_DEADLINE_S:g} s:\n{_tail(files)}")
        ready, _, _ = select.select([answer], [], [], remaining)
        if ready:
            chunk = os.read(answer.fileno(), 4096)
            if not chunk:
                break
            received += chunk
    line = received.split(b"\n", 1)[0]
    if not line:
        status = keeper.wait(timeout=5)
        raise ServeError(f"the {kind} browser's keeper exited with status {status} before it started:\n{_tail(files)}")
    reported: dict[str, str] = json.loads(line)
    if "error" in reported:
        raise ServeError(f"{reported['error']}:\n{_tail(files)}")
    return reported["path"]


def _check_through_relay(kind: str, base: str, deadline: float, files: dict[str, Path]) -> None:
    """Ask the browser for its listing through the relay, as a client will: the whole way in works."""
    url = f"{base}/json/version" if kind == "cdp" else f"{base}/json"
    while True:
        try:
            with _DIRECT.open(url, timeout=5) as answer:
                listing = json.loads(answer.read())
            break
        except (OSError, ValueError) as error:
            if time.monotonic() > deadline:
                why = f"the {kind} browser did not answer through its relay: {error}:\n{_tail(files)}"
                raise ServeError(why) from None
            time.sleep(0.1)
    if kind == "cdp" and not str(listing.get("webSocketDebuggerUrl", "")).startswith(f"ws{base[4:]}/devtools/"):
        raise ServeError(f"the relay did not give the browser's WebSocket URL its token: {listing!r}")


def _tail(files: dict[str, Path], lines: int = 15) -> str:
    text = files["log"].read_text("utf-8", "replace") if files["log"].exists() else ""
    return "\n".join(text.splitlines()[-lines:])


# ----- the keeper: runs in the browser's network namespace, for as long as the browser runs -------------------

_libc = ctypes.CDLL(None, use_errno=True)


def _call(result: int, what: str) -> None:
    if result != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")


def _unshare(flags: int) -> None:
    _call(int(_libc.unshare(flags)), "unshare")


def _map_self(inside: int, uid: int, gid: int) -> None:
    """Right after unsharing a user namespace: be ``inside`` there, the user and group this process was outside."""
    Path("/proc/self/setgroups").write_text("deny")
    Path("/proc/self/uid_map").write_text(f"{inside} {uid} 1")
    Path("/proc/self/gid_map").write_text(f"{inside} {gid} 1")


def _as_ordinary_user() -> None:
    """Before exec, in a child: an ordinary user (not root) of a user namespace of its own.

    It keeps no capability past exec, in any namespace, so the browser (and the relay) can do nothing the owner's
    processes could not; its files are still the owner's. Chromium, not root there, builds its sandbox.
    """
    uid, gid = os.getuid(), os.getgid()
    _unshare(_CLONE_NEWUSER)
    _map_self(_BROWSER_UID, uid, gid)


def _enter_private_network() -> None:
    """Leave this machine's network for a namespace whose loopback nobody else shares (root, or through a user ns)."""
    uid, gid = os.getuid(), os.getgid()
    if uid == 0:
        try:
            _unshare(_CLONE_NEWNET)
            return
        except OSError:
            pass  # root without CAP_SYS_ADMIN (in a container): a user namespace may still give it one
    try:
        _unshare(_CLONE_NEWUSER | _CLONE_NEWNET)
    except OSError as error:
        raise ServeError(
            f"could not give the browser a network namespace of its own ({error}); without one its port would be "
            "open to every user of this machine, so no browser was started"
        ) from None
    _map_self(0, uid, gid)


def _loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as control:
        request = struct.pack("16sh22x", b"lo", 0)
        flags = struct.unpack("16sh", fcntl.ioctl(control, _SIOCGIFFLAGS, request)[:18])[1]
        fcntl.ioctl(control, _SIOCSIFFLAGS, struct.pack("16sh22x", b"lo", flags | _IFF_UP))


def _tool(name: str) -> str | None:
    return shutil.which(name, path=os.pathsep.join((os.environ.get("PATH", ""), "/usr/sbin", "/sbin")))


def _send_connections_to(bridge_port: int) -> None:
    """In the namespace: every TCP connection goes to the bridge, except the relay's own (from 127.0.0.2)."""
    iptables = _tool("iptables")
    if iptables is None:
        raise ServeError(
            "iptables is not installed: the browser runs in a network namespace of its own and needs it to reach "
            "this machine's loopback (the fixture pages, a driver's network guard)"
        )
    rules = (
        ("-A", "OUTPUT", "-p", "tcp", "-s", _RELAY_SOURCE, "-j", "RETURN"),
        ("-A", "OUTPUT", "-p", "tcp", "-j", "REDIRECT", "--to-ports", str(bridge_port)),
    )
    for rule in rules:
        done = subprocess.run([iptables, "-t", "nat", *rule], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise ServeError(f"iptables {' '.join(rule)} failed in the browser's namespace: {done.stderr.strip()}")
    # A route for every address, so a connection to another address of this machine is made (by the bridge) too;
    # without `ip` the browser reaches the loopback only.
    ip = _tool("ip")
    if ip is not None:
        subprocess.run([ip, "route", "add", "default", "dev", "lo"], capture_output=True, check=False)


def _pipe(source: socket.socket, target: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            target.sendall(data)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            target.shutdown(socket.SHUT_WR)


def _splice(one: socket.socket, other: socket.socket) -> None:
    # Small request-answer traffic: Nagle's wait for more to send would delay each exchange.
    for end in (one, other):
        with contextlib.suppress(OSError):
            end.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    back = threading.Thread(target=_pipe, args=(other, one), daemon=True)
    back.start()
    _pipe(one, other)
    back.join()


def _connector(control: socket.socket) -> None:
    """Outside the namespace: connect where the bridge asks and hand it the connected socket."""
    while True:
        try:
            message, descriptors, _, _ = socket.recv_fds(control, 256, 4)
        except OSError:
            return
        if not message and not descriptors:
            return  # the keeper is gone
        threading.Thread(target=_connect_for, args=(message, descriptors), daemon=True).start()


def _connect_for(message: bytes, descriptors: list[int]) -> None:
    for extra in descriptors[1:]:
        os.close(extra)
    if not descriptors:
        return
    with socket.socket(fileno=descriptors[0]) as reply:
        try:
            host, port = message.decode("ascii").split()
            outside = socket.create_connection((host, int(port)), timeout=_OUTSIDE_CONNECT_TIMEOUT_S)
        except (OSError, ValueError) as error:
            with contextlib.suppress(OSError):
                reply.sendall(str(error).encode("utf-8", "replace")[:200] or b"failed")
            return
        with outside, contextlib.suppress(OSError):
            # The connect timeout left the descriptor non-blocking, and the bridge's copy shares that flag.
            outside.setblocking(True)
            socket.send_fds(reply, [b"ok"], [outside.fileno()])


def _bridge(listener: socket.socket, control: socket.socket) -> None:
    while True:
        try:
            inside, _ = listener.accept()
        except OSError:
            return
        threading.Thread(target=_bridge_one, args=(inside, control), daemon=True).start()


def _bridge_one(inside: socket.socket, control: socket.socket) -> None:
    with inside:
        try:
            original = inside.getsockopt(socket.SOL_IP, _SO_ORIGINAL_DST, 16)
            host, port = socket.inet_ntoa(original[4:8]), int.from_bytes(original[2:4], "big")
            mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            with mine:
                with theirs:
                    socket.send_fds(control, [f"{host} {port}".encode("ascii")], [theirs.fileno()])
                mine.settimeout(_OUTSIDE_CONNECT_TIMEOUT_S + 5)
                _, descriptors, _, _ = socket.recv_fds(mine, 256, 1)
        except OSError:
            descriptors = []
        if not descriptors:
            # Refused outside: a reset tells the browser so at once, as a refused connection would.
            with contextlib.suppress(OSError):
                inside.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            return
        with socket.socket(fileno=descriptors[0]) as outside:
            outside.setblocking(True)
            _splice(inside, outside)


def _read_upstream(kind: str, home: Path, log: Path) -> tuple[int, str] | None:
    """The port (and, for a Playwright server, the path) the browser listens on in its namespace, once it does."""
    if kind == "playwright-server":
        # launch-server prints its ws:// endpoint once it listens.
        found = re.search(r"ws://127\.0\.0\.1:(\d+)(/\S*)", log.read_text("utf-8", "replace"))
        return (int(found.group(1)), found.group(2)) if found else None
    # Chromium writes the port it chose (with --remote-debugging-port=0) into its profile once it listens.
    port_file = home / "profile" / "DevToolsActivePort"
    lines = port_file.read_text("utf-8").splitlines() if port_file.exists() else []
    return (int(lines[0]), "") if lines and lines[0].strip().isdigit() else None


def descendants(root: int) -> set[int]:
    """Every process under ``root`` (for the keeper, itself: orphans come back to it, their subreaper)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            children.setdefault(int(fields[1]), []).append(int(entry))
    found: set[int] = set()
    pending = [root]
    while pending:
        for child in children.get(pending.pop(), []):
            if child not in found:
                found.add(child)
                pending.append(child)
    return found


def _reap_all() -> set[int]:
    ended: set[int] = set()
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return ended
        if pid == 0:
            return ended
        ended.add(pid)


class _Keeper:
    """Holds a served browser: its namespaces, the bridge out of them, the relay in, and every process started."""

    def __init__(self, kind: str, orders: Mapping[str, Any], answer: int) -> None:
        self.kind = kind
        self.orders = orders
        self.answer = answer
        self.watched: dict[int, str] = {}

    def start(self) -> str:
        _call(int(_libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)), "prctl(PR_SET_CHILD_SUBREAPER)")
        control, outside_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        connector = os.fork()
        if connector == 0:  # pragma: no cover - the child process
            for descriptor in (self.orders["listener"], self.answer):
                os.close(descriptor)  # start waits for the answer pipe to end, and the listener is the relay's
            control.close()
            with contextlib.suppress(OSError):
                # No capability outside either: connecting needs none.
                _as_ordinary_user()
            _connector(outside_end)
            os._exit(0)
        outside_end.close()
        self.watched[connector] = "connector"
        _enter_private_network()
        _loopback_up()
        bridge = socket.create_server(("127.0.0.1", 0), backlog=128)
        _send_connections_to(bridge.getsockname()[1])
        home, log_path = Path(self.orders["home"]), Path(self.orders["log"])
        listener: int = self.orders["listener"]
        with log_path.open("ab") as log:
            browser = subprocess.Popen(
                self.orders["command"],
                env=self.orders["environment"],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                preexec_fn=_as_ordinary_user,  # safe: this process has no thread yet
            )
            self.watched[browser.pid] = "browser"
            upstream = self._wait_for_upstream(browser, home, log_path)
            relay = subprocess.Popen(
                [sys.executable, self.orders["relay"], f"fd:{listener}", str(upstream[0]), "--source", _RELAY_SOURCE],
                env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), TOKEN_VARIABLE: self.orders["token"]},
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                pass_fds=(listener,),
                preexec_fn=_as_ordinary_user,  # safe: this process has no thread yet
            )
            self.watched[relay.pid] = "relay"
        os.close(listener)
        # From here on signals are taken by sigtimedwait in run(); blocked before the bridge's threads exist, so no
        # thread takes one instead (and after the children were started: they must not inherit the mask).
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGCHLD})
        threading.Thread(target=_bridge, args=(bridge, control), daemon=True).start()
        return upstream[1]

    def _wait_for_upstream(self, browser: subprocess.Popen[bytes], home: Path, log: Path) -> tuple[int, str]:
        deadline = time.monotonic() + START_DEADLINE_S
        while time.monotonic() < deadline:
            found = _read_upstream(self.kind, home, log)
            if found:
                return found
            if browser.poll() is not None:
                raise ServeError(f"the {self.kind} browser exited with status {browser.returncode} before it listened")
            time.sleep(0.05)
        raise ServeError(f"the {self.kind} browser did not listen within {START_DEADLINE_S:g} s")

    def run(self) -> None:
        """Until told to stop, or until the browser, the relay or the connector ends: then end everything."""
        stopping = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP}
        while True:
            received = signal.sigtimedwait(stopping | {signal.SIGCHLD}, 1.0)
            if _reap_all() & self.watched.keys():
                break
            if received is not None and received.si_signo in stopping:
                break
        self.finish()

    def finish(self) -> None:
        for pid in self.watched:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + _KEEPER_GRACE_S
        while descendants(os.getpid()) and time.monotonic() < deadline:
            _reap_all()
            time.sleep(0.05)
        for _ in range(50):
            left = descendants(os.getpid())
            if not left:
                break
            for pid in left:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            _reap_all()
            time.sleep(0.05)


def _keep(kind: str) -> int:
    """``python -m reference.browser.serve _keep KIND``: what :func:`start` runs; its orders come on stdin."""
    orders: dict[str, Any] = json.loads(sys.stdin.buffer.read() or b"{}")
    answer = os.fdopen(os.dup(1), "w")
    # Nothing started from here may hold the answer pipe: start reads it to its end.
    with open(os.devnull, "r+b") as null:
        os.dup2(null.fileno(), 0)
        os.dup2(null.fileno(), 1)
    keeper = _Keeper(kind, orders, answer.fileno())
    try:
        path = keeper.start()
    except (OSError, ServeError, subprocess.SubprocessError) as error:
        answer.write(json.dumps({"error": f"could not start the {kind} browser: {error}"}) + "\n")
        answer.close()
        keeper.finish()
        return 1
    answer.write(json.dumps({"path": path}) + "\n")
    answer.close()
    keeper.run()
    return 0


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


# ----- desktop-cdp: the desktop container's browser, behind the container's relay ---------------------------


def _docker(*arguments: str, environment: Mapping[str, str] | None = None) -> str:
    """Run the docker CLI; its output, or :class:`ServeError` with what it said."""
    try:
        done = subprocess.run(
            ["docker", *arguments], capture_output=True, text=True, timeout=120, check=False, env=environment
        )
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
    token = secrets.token_urlsafe(32)
    # "--env NAME" without a value: docker takes it from its own environment, so no command line shows the token.
    container = _docker(
        "run", "--detach", "--network", DESKTOP_NETWORK, "--label", DESKTOP_LABEL,
        "--user", "1000:1000", "--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--read-only",
        "--tmpfs", "/tmp:rw,size=64m", "--tmpfs", "/home/kit:rw,size=512m,uid=1000,gid=1000",
        "--shm-size", "256m", "--init", "--memory", "2g", "--pids-limit", "512",
        "--env", "KIT_DISPLAY=99", "--env", f"KIT_DEVTOOLS_PORT={DESKTOP_DEVTOOLS_PORT}", "--env", TOKEN_VARIABLE,
        "--env", f"KIT_HOST_ADDRESS={host}", "--name", f"driverkit-devtools-{os.getpid()}-{int(time.time())}", image,
        environment={**os.environ, TOKEN_VARIABLE: token},
    )  # fmt: skip
    _write_private(files["container"], container)
    address = _docker(
        "inspect", "--format", f'{{{{(index .NetworkSettings.Networks "{DESKTOP_NETWORK}").IPAddress}}}}', container
    )
    endpoint = f"http://{address}:{DESKTOP_DEVTOOLS_PORT}/{token}"
    deadline = time.monotonic() + START_DEADLINE_S
    while True:
        try:
            with _DIRECT.open(f"{endpoint}/json/version", timeout=2) as answer:
                if answer.status == 200:
                    break
        except OSError:
            pass
        running = _docker("inspect", "--format", "{{.State.Running}}", container)
        if running != "true" or time.monotonic() > deadline:
            logs = subprocess.run(["docker", "logs", "--tail", "15", container], capture_output=True, text=True)
            _stop_desktop(files)
            why = "exited" if running != "true" else f"did not answer within {START_DEADLINE_S:g} s"
            shown = f"http://{address}:{DESKTOP_DEVTOOLS_PORT}/..."
            raise ServeError(f"the desktop container's DevTools endpoint {shown} {why}:\n{logs.stderr[-1500:]}")
        time.sleep(0.2)
    _write_private(files["host"], host)
    _write_private(files["endpoint"], endpoint + "\n")
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


# ----- the commands ----------------------------------------------------------------------------------------------


def host(kind: str, state: Path) -> str:
    """This machine's address as the ``desktop-cdp`` container reaches it (recorded at start)."""
    files = _files(state, kind)
    if kind != "desktop-cdp" or not files["host"].exists():
        raise ServeError(f"no desktop-cdp browser recorded in {state}; start one first")
    return files["host"].read_text("utf-8").strip()


def start(kind: str, state: Path) -> str:
    """Start the browser of ``kind`` in the background and return its endpoint (which holds its token)."""
    _private_folder(state)
    files = _files(state, kind)
    if kind == "desktop-cdp":
        if files["container"].exists():
            raise ServeError(f"a desktop-cdp browser is already recorded in {state}; stop it first")
        return _start_desktop(files)
    if files["pid"].exists():
        pid = _recorded_pid(files)
        if _is_running(kind, pid):
            raise ServeError(f"a {kind} browser is already running from {state} (pid {pid}); stop it first")
        # The helper that recorded it was killed before its stop ran (the browser went with it, or its PID now
        # belongs to another process): the record no longer describes a browser, so it must not block this start.
        _clear_stale(kind, files, pid)
    return _start_isolated(kind, files)


def stop(kind: str, state: Path) -> bool:
    """Stop the browser of ``kind`` recorded in ``state``; False when none was recorded."""
    # A record in a folder another user controls is theirs to write: nothing is signalled or removed on its word.
    _private_folder(state, create=False)
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
    """Whether ``pid`` is still the ``kind`` browser's keeper this helper started (a live process, its command line)."""
    command = _command_line(pid)
    return command is not None and _MARKERS[kind] in command


def _command_line(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return None


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == [KEEPER_ACTION]:
        return _keep(arguments[1]) if len(arguments) == 2 and arguments[1] in _MARKERS else 2
    parser = argparse.ArgumentParser(prog="python -m reference.browser.serve", description=__doc__.splitlines()[0])
    parser.add_argument(
        "kind",
        choices=KINDS,
        help="a Playwright server (ws://), Chromium's DevTools endpoint (http://), or that endpoint of a browser in "
        "the kit's desktop container",
    )
    parser.add_argument("action", choices=("start", "stop", "host"))
    parser.add_argument("--state", help=f"folder for the PID, endpoint and log (default ${STATE_VARIABLE})")
    args = parser.parse_args(arguments)
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
