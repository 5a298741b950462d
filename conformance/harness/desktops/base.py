"""What every desktop offers once it runs: a display to drive, its size, the page it shows, its event log."""

from __future__ import annotations

import abc
import json
from pathlib import Path
from typing import Any, Self

from .settings import DesktopSettings


class DesktopNotRunningError(RuntimeError):
    """A running desktop's property was read before ``__enter__`` or after ``__exit__``."""


class Desktop(abc.ABC):
    """A screen with Chromium in kiosk mode. Enter to start, exit to stop; exit cleans up even after failures."""

    def __init__(self, settings: DesktopSettings | None = None) -> None:
        self.settings = settings or DesktopSettings()
        self._display: str | None = None
        self._events_path: Path | None = None
        self._page_url: str | None = None

    @property
    def display(self) -> str:
        """The X display name (``:N``) a driver on this host connects to."""
        if self._display is None:
            raise DesktopNotRunningError("the desktop is not running")
        return self._display

    @property
    def screen_size(self) -> tuple[int, int]:
        return self.settings.width, self.settings.height

    @property
    def page_url(self) -> str:
        """The URL the browser opened, as the browser sees it (inside the container for Docker)."""
        if self._page_url is None:
            raise DesktopNotRunningError("the desktop is not running")
        return self._page_url

    @property
    def events_path(self) -> Path:
        """The file the served pages' events are appended to (only with ``site_dir``)."""
        if self._events_path is None:
            raise DesktopNotRunningError("the desktop is not running or serves no site")
        return self._events_path

    def read_events(self) -> list[dict[str, Any]]:
        """Every event recorded so far; a line still being written is left for the next read."""
        records: list[dict[str, Any]] = []
        with self.events_path.open(encoding="utf-8") as stream:
            for line in stream:
                if not line.endswith("\n"):
                    break
                records.append(json.loads(line))
        return records

    @abc.abstractmethod
    def start(self) -> None: ...

    @abc.abstractmethod
    def stop(self) -> None: ...

    def __enter__(self) -> Self:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


__all__ = ["Desktop", "DesktopNotRunningError"]
