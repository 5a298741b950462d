"""The desktop stack on this host: Xvfb, openbox and kiosk Chromium, for machines without Docker.

Xvfb picks its own free display with ``-displayfd``: it claims the number with the standard lock file, so
parallel desktops (pytest-xdist workers) never share a display. Every process is started in its own session
and stopped by its process group, so Chromium's helper processes go with it; a lifeline stops those groups and
removes the scratch folder if the process that started them ends without stopping them (killed, crashed).
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from conformance.harness.process_lifetime import Lifeline

from .base import Desktop
from .displays import ensure_socket_dir
from .page_server import RecordingPageServer
from .settings import DesktopSettings, chromium_arguments
from .x11_wait import DesktopStartError, wait_for_display, wait_for_fullscreen_window

CHROMIUM = "/usr/lib/chromium/chromium"
_STOP_GRACE_SECONDS = 3.0


def _require(executable: str) -> str:
    found = shutil.which(executable) or (executable if os.access(executable, os.X_OK) else None)
    if found is None:
        raise DesktopStartError(f"{executable} is not installed (apt-get install xvfb openbox chromium)")
    return found


class LocalDesktop(Desktop):
    """Starts Xvfb, openbox, the optional page server and Chromium; stops all of them on exit."""

    def __init__(self, settings: DesktopSettings | None = None) -> None:
        super().__init__(settings)
        self._processes: list[subprocess.Popen[bytes]] = []
        self._scratch: tempfile.TemporaryDirectory[str] | None = None
        self._server: RecordingPageServer | None = None
        self._lifeline: Lifeline | None = None

    def _started(self, process: subprocess.Popen[bytes]) -> subprocess.Popen[bytes]:
        self._processes.append(process)
        assert self._lifeline is not None
        self._lifeline.guard_group(process.pid)
        return process

    def _spawn(self, argv: list[str], log_name: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        assert self._scratch is not None
        with open(Path(self._scratch.name) / log_name, "wb") as log:
            process = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env, start_new_session=True
            )
        return self._started(process)

    def _failure(self, process: subprocess.Popen[bytes], what: str, log_name: str) -> str | None:
        if process.poll() is None:
            return None
        assert self._scratch is not None
        log = (Path(self._scratch.name) / log_name).read_text(errors="replace")[-2000:]
        return f"{what} exited with status {process.returncode}: {log}"

    def start(self) -> None:
        settings = self.settings
        deadline = time.monotonic() + settings.startup_timeout
        self._scratch = tempfile.TemporaryDirectory(prefix="kit-desktop-")
        scratch = Path(self._scratch.name)
        self._lifeline = Lifeline()
        self._lifeline.guard_folder(scratch)
        ensure_socket_dir()

        read_end, write_end = os.pipe()
        try:
            xvfb_argv = [_require("Xvfb"), "-displayfd", str(write_end), "-screen", "0", f"{settings.screen}x24"]
            with open(scratch / "xvfb.log", "wb") as xvfb_log:
                xvfb = subprocess.Popen(
                    [*xvfb_argv, "-nolisten", "tcp", "-noreset"],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=xvfb_log,
                    pass_fds=(write_end,),
                    start_new_session=True,
                )
            self._started(xvfb)
            os.close(write_end)
            write_end = -1
            number = self._read_display_number(read_end, xvfb, deadline)
        finally:
            os.close(read_end)
            if write_end >= 0:
                os.close(write_end)
        self._display = f":{number}"
        wait_for_display(self._display, deadline, lambda: self._failure(xvfb, "Xvfb", "xvfb.log"))

        env = {**os.environ, "DISPLAY": self._display}
        self._spawn([_require("openbox")], "openbox.log", env)

        url = settings.start_url
        if settings.site_dir is not None:
            self._events_path = scratch / "events.jsonl"
            self._server = RecordingPageServer(settings.site_dir, self._events_path).start()
            url = self._server.base_url + settings.start_path
        self._page_url = url
        browser = self._spawn(
            [_require(CHROMIUM), *chromium_arguments(settings, scratch / "profile", url)], "chromium.log", env
        )
        wait_for_fullscreen_window(
            self._display,
            settings.width,
            settings.height,
            deadline,
            lambda: self._failure(browser, "Chromium", "chromium.log"),
        )

    @staticmethod
    def _read_display_number(read_end: int, xvfb: subprocess.Popen[bytes], deadline: float) -> int:
        received = b""
        while not received.endswith(b"\n"):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise DesktopStartError("Xvfb did not report its display number in time")
            ready, _, _ = select.select([read_end], [], [], min(remaining, 0.1))
            if ready:
                chunk = os.read(read_end, 32)
                if not chunk:
                    raise DesktopStartError(f"Xvfb exited before choosing a display (status {xvfb.poll()})")
                received += chunk
            elif xvfb.poll() is not None:
                raise DesktopStartError(f"Xvfb exited before choosing a display (status {xvfb.returncode})")
        return int(received.strip())

    def stop(self) -> None:
        # Browser first, X server last: clients exit cleanly instead of dying on a lost display.
        for process in reversed(self._processes):
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(_STOP_GRACE_SECONDS)
                except subprocess.TimeoutExpired:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
        self._processes.clear()
        if self._server is not None:
            self._server.stop()
            self._server = None
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None
        if self._lifeline is not None:
            self._lifeline.release()
            self._lifeline = None
        self._display = None
        self._page_url = None
        self._events_path = None


__all__ = ["LocalDesktop"]
