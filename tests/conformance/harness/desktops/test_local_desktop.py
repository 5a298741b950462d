"""The local desktop starts its stack, gives each instance its own display, and cleans up on every path."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.harness.desktops import DesktopNotRunningError, DesktopSettings, DesktopStartError, LocalDesktop, local
from conformance.harness.desktops.displays import lock_path, socket_path
from tests.desktops import PAGES, needs_x
from tests.host_processes import alive, gone_soon

pytestmark = [needs_x, pytest.mark.desktop]


def test_two_desktops_get_separate_displays_and_leave_nothing_behind() -> None:
    settings = DesktopSettings(width=640, height=480)
    with LocalDesktop(settings) as first, LocalDesktop(settings) as second:
        assert first.display != second.display
        numbers = [int(desktop.display[1:]) for desktop in (first, second)]
        pids = [process.pid for desktop in (first, second) for process in desktop._processes]
        assert all(alive(pid) for pid in pids)
        assert first.screen_size == (640, 480)
    assert not any(alive(pid) for pid in pids)
    for number in numbers:
        assert not socket_path(number).exists()
        assert not lock_path(number).exists()


def test_served_site_records_events_and_scratch_is_removed() -> None:
    with LocalDesktop(DesktopSettings(site_dir=PAGES, start_path="input-recorder.html")) as desktop:
        assert desktop.page_url.startswith("http://127.0.0.1:")
        events_file = desktop.events_path
        assert events_file.exists()
        scratch = events_file.parent
    assert not scratch.exists()
    with pytest.raises(DesktopNotRunningError):
        _ = desktop.display


def test_a_failed_start_stops_what_was_started(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[LocalDesktop] = []

    def browser_never_appears(*args: object, **kwargs: object) -> None:
        raise DesktopStartError("simulated: no browser window")

    monkeypatch.setattr(local, "wait_for_fullscreen_window", browser_never_appears)
    desktop = LocalDesktop(DesktopSettings(width=320, height=240))
    original_spawn = desktop._spawn

    def spawn_and_remember(*args: object, **kwargs: object) -> object:
        started.append(desktop)
        return original_spawn(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(desktop, "_spawn", spawn_and_remember)
    with pytest.raises(DesktopStartError, match="simulated"), desktop:
        pass
    assert started, "the failure should come after processes were started"
    assert desktop._processes == []
    assert desktop._scratch is None


def test_settings_refuse_bad_input(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"outside 64\.\.8192"):
        DesktopSettings(width=10)
    with pytest.raises(NotADirectoryError):
        DesktopSettings(site_dir=tmp_path / "missing")
    with pytest.raises(ValueError, match="relative"):
        DesktopSettings(site_dir=tmp_path, start_path="/etc/passwd")


# A run that is killed runs no teardown: its desktop must still go (a shared machine kept four such desktops, with
# their Chromiums, busy for hours).
_HOLD_A_DESKTOP = """
import json, sys, time
from conformance.harness.desktops import DesktopSettings, LocalDesktop
desktop = LocalDesktop(DesktopSettings(width=320, height=240))
desktop.start()
scratch = desktop._scratch.name
print(json.dumps({"pids": [p.pid for p in desktop._processes], "scratch": scratch}), flush=True)
time.sleep(600)
"""


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_a_killed_owner_leaves_no_desktop_behind(signum: int) -> None:
    owner = subprocess.Popen([sys.executable, "-c", _HOLD_A_DESKTOP], stdout=subprocess.PIPE, text=True)
    try:
        assert owner.stdout is not None
        started = json.loads(owner.stdout.readline())
        assert started["pids"] and all(alive(pid) for pid in started["pids"])
    finally:
        owner.send_signal(signum)
        owner.wait()
    scratch = Path(started["scratch"])
    gone_soon(lambda: [pid for pid in started["pids"] if alive(pid)] or scratch.exists(), within_s=15)
    survivors = [pid for pid in started["pids"] if alive(pid)]
    assert not survivors, f"desktop processes outlived their killed owner: {survivors}"
    assert not scratch.exists(), "the killed desktop's scratch folder was left behind"
