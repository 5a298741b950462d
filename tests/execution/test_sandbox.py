"""The service refuses to run code unconfined: without the sandbox's tools it does not start, and says why."""

from __future__ import annotations

import os
import secrets
import shutil
import socket

import pytest

from reference.execution import ExecutionService, SandboxUnavailable
from reference.execution.sandbox import PER_SESSION_DISPLAY, x11_socket

from ._http import execute, texts
from .conftest import TEST_LIMITS


def test_no_bwrap_means_no_service(monkeypatch: pytest.MonkeyPatch, token: str) -> None:
    real_which = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name: None if name == "bwrap" else real_which(name))
    with pytest.raises(SandboxUnavailable, match="bwrap not found"):
        ExecutionService(token, display=None, limits=TEST_LIMITS)


def test_only_a_local_display_socket_is_granted(x_display: str) -> None:
    socket = x11_socket(x_display)
    assert socket is not None and socket.name == f"X{x_display[1:]}"
    assert x11_socket("remote.example:0") is None
    assert x11_socket(None) is None


def test_each_session_has_its_own_private_scratch_folder(service: ExecutionService, token: str) -> None:
    probe = (
        "import os\n"
        "open('mine-' + {name!r}, 'w').close()\n"
        "folder = os.stat('.')\n"
        "names = sorted(n for n in os.listdir('.') if n != 'Xauthority')\n"
        "log('%o %d %s' % (folder.st_mode & 0o777, folder.st_uid, names))"
    )
    seen = {}
    for session in ("one", "two"):
        seen[session] = texts(execute(service.endpoint, token, session, probe.format(name=session)))
        runtime = service.pool.runtime(session)
        assert runtime is not None
        mode, owner, names = seen[session][0].split(" ", 2)
        assert mode == "700"
        assert int(owner) == (runtime.uid if os.geteuid() == 0 else os.geteuid())
        assert names == f"['mine-{session}']", "a session sees another's files, or its scratch is not its own"
    uids = {runtime.uid for runtime in (service.pool.runtime("one"), service.pool.runtime("two")) if runtime}
    if os.geteuid() == 0:
        # Started by root: a uid per runtime, none of them root.
        assert len(uids) == 2 and 0 not in uids


def test_scratch_is_bounded_in_total_and_never_reaches_the_host(service: ExecutionService, token: str) -> None:
    limit = TEST_LIMITS.scratch_bytes
    code = (
        "written = 0\n"
        "try:\n"
        f"    while written < {2 * limit}:\n"
        "        with open('fill-%d' % (written >> 24), 'ab') as out:\n"
        "            out.write(b'x' * (1 << 20))\n"
        "        written += 1 << 20\n"
        "except OSError as error:\n"
        "    log('stopped at %d: %s' % (written, type(error).__name__))\n"
        "else:\n"
        "    log('wrote %d' % written)"
    )
    said = texts(execute(service.endpoint, token, "filler", code))
    assert said and said[0].startswith("stopped at"), said
    assert int(said[0].split()[2].rstrip(":")) <= limit


def test_a_shared_network_still_keeps_the_hosts_abstract_sockets_out(x_display: str, token: str) -> None:
    # --allow-network shares the host's network namespace, and with it every abstract unix socket on the host
    # (X servers listen on one, beside their /tmp/.X11-unix file): Landlock's scope must keep the code off them.
    name = f"\0kit-abstract-probe-{secrets.token_hex(6)}"
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(name)
        listener.listen(1)
        code = (
            "import socket\n"
            "client = socket.socket(socket.AF_UNIX)\n"
            "try:\n"
            f"    client.connect({name!r})\n"
            "    log('BREACH: connected to a host abstract socket')\n"
            "except OSError as error:\n"
            "    log('held: ' + type(error).__name__)"
        )
        with ExecutionService(token, display=x_display, limits=TEST_LIMITS, isolate_network=False) as shared:
            said = texts(execute(shared.endpoint, token, "shared-network", code))
    assert said and said[0].startswith("held"), said


_VICTIM_WINDOW = """
from Xlib import display as xdisplay
connection = xdisplay.Display()
screen = connection.screen()
window = screen.root.create_window(10, 10, 200, 120, 0, screen.root_depth)
window.set_wm_name({marker!r})
window.map()
connection.sync()
log('window up')
"""
# Every display a session could name (its own DISPLAY and :0 to :20): does any of them show the victim's window?
_LOOK_FOR_THE_WINDOW = """
import os
from Xlib import display as xdisplay
found = []
for name in sorted({{os.environ.get('DISPLAY') or ':0', *(f':{{n}}' for n in range(21))}}):
    try:
        connection = xdisplay.Display(name)
    except Exception:
        continue
    try:
        for window in connection.screen().root.query_tree().children:
            if window.get_wm_name() == {marker!r}:
                found.append(name)
    finally:
        connection.close()
log('BREACH: sees the other session\\'s window on ' + ', '.join(found) if found else 'held')
"""


@pytest.mark.parametrize("display_mode", ["shared", "per-session"])
def test_sessions_cannot_see_each_others_windows_with_a_display_each(
    x_display: str, token: str, display_mode: str
) -> None:
    # A shared display is shared by design (documented): there the attack must get through, which shows it can.
    marker = f"victim-window-{secrets.token_hex(6)}"
    display = x_display if display_mode == "shared" else PER_SESSION_DISPLAY
    with ExecutionService(token, display=display, limits=TEST_LIMITS) as running:
        # python-xlib warns about the empty authority file on stderr, which the runtime returns as text.
        victim = texts(execute(running.endpoint, token, "victim", _VICTIM_WINDOW.format(marker=marker)))
        assert "window up" in victim, victim
        said = [
            text
            for text in texts(execute(running.endpoint, token, "attacker", _LOOK_FOR_THE_WINDOW.format(marker=marker)))
            if text.startswith(("held", "BREACH"))
        ]
        screen = texts(execute(running.endpoint, token, "attacker", "log(pyautogui.size())"))
    assert said and said[0].startswith("BREACH" if display_mode == "shared" else "held"), said
    if display_mode == "per-session":
        assert screen == ["Size(width=1440, height=900)"], "the session's own display is not usable"
