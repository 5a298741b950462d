"""What a desktop shows and how big it is, shared by the local and the Docker desktop."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

# Inside the container the page server always listens here; on the host the port is picked at run time.
CONTAINER_SERVE_PORT: Final = 8000
# Screen sizes real computer drivers hard-code; any size from MIN_SCREEN up works.
DEFAULT_SCREEN: Final = (1280, 800)
COMMON_SCREENS: Final = ((1024, 768), (1280, 800))
MIN_SCREEN: Final = (1024, 768)


def parse_screen_size(text: str) -> tuple[int, int]:
    """``"1024x768"`` as ``(1024, 768)``; ValueError naming the problem for anything else or anything too small."""
    width_text, separator, height_text = text.strip().lower().partition("x")
    if not separator or not width_text.isdigit() or not height_text.isdigit():
        raise ValueError(f"expected WIDTHxHEIGHT in pixels, like 1024x768, got {text!r}")
    width, height = int(width_text), int(height_text)
    if width < MIN_SCREEN[0] or height < MIN_SCREEN[1] or width > 8192 or height > 8192:
        raise ValueError(
            f"{width}x{height} is outside the supported screen sizes ({MIN_SCREEN[0]}x{MIN_SCREEN[1]} up to 8192x8192)"
        )
    return width, height


@dataclass(frozen=True)
class DesktopSettings:
    """A ``width`` x ``height`` screen with Chromium in kiosk mode.

    With ``site_dir`` the desktop serves that directory on a loopback port next to the browser, records the
    events its pages post (see :mod:`conformance.harness.desktops.page_server`) and opens ``start_path`` on it. Without
    ``site_dir``, Chromium opens ``start_url`` as given.
    """

    width: int = DEFAULT_SCREEN[0]
    height: int = DEFAULT_SCREEN[1]
    site_dir: Path | None = None
    start_path: str = "index.html"
    start_url: str = "about:blank"
    startup_timeout: float = 30.0

    def __post_init__(self) -> None:
        if not (64 <= self.width <= 8192 and 64 <= self.height <= 8192):
            raise ValueError(f"screen size {self.width}x{self.height} is outside 64..8192 pixels per side")
        if self.site_dir is not None and not self.site_dir.is_dir():
            raise NotADirectoryError(f"site directory {self.site_dir} does not exist")
        if self.start_path.startswith("/") or "://" in self.start_path:
            raise ValueError(f"start_path must be relative to the site, got {self.start_path!r}")

    @property
    def screen(self) -> str:
        return f"{self.width}x{self.height}"


def chromium_arguments(settings: DesktopSettings, profile_dir: Path, url: str) -> list[str]:
    """Kiosk Chromium that stays off the internet: every host name resolves to nothing except loopback.

    ``--no-sandbox`` is needed because the host runs it as root (and Docker's seccomp profile blocks the sandbox
    in the container); the isolation comes from the desktop around it. ``--test-type`` hides the warning bar
    that flag would show, which would push the page down and break screen-to-page coordinates.
    """
    return [
        "--no-sandbox",
        "--test-type",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-default-apps",
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        "--password-store=basic",
        "--noerrdialogs",
        "--disable-session-crashed-bubble",
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
        f"--user-data-dir={profile_dir}",
        "--kiosk",
        "--window-position=0,0",
        f"--window-size={settings.width},{settings.height}",
        url,
    ]


__all__ = [
    "COMMON_SCREENS",
    "CONTAINER_SERVE_PORT",
    "DEFAULT_SCREEN",
    "DesktopSettings",
    "chromium_arguments",
    "parse_screen_size",
]
