"""What the Fieldwork driver owns: one form page on one origin. Everything else is refused or blocked."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from openai.lib.browser import BrowserError


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}:{parts.port or (443 if parts.scheme == 'https' else 80)}"


@dataclass(frozen=True)
class FormScope:
    """The owned form: its URL (compared by origin and path) and the origin its subresources may come from."""

    form_url: str

    def __post_init__(self) -> None:
        if urlsplit(self.form_url).scheme not in ("http", "https"):
            raise ValueError(f"the Fieldwork form must be served over HTTP(S), got {self.form_url!r}")

    @property
    def origin(self) -> str:
        return _origin(self.form_url)

    def allows_request(self, url: str) -> bool:
        """Network policy: only the form's own origin (pages, scripts, the effect record); data: URLs are inert."""
        return url.startswith("data:") or _origin(url) == self.origin

    def shows_form(self, url: str) -> bool:
        current, owned = urlsplit(url), urlsplit(self.form_url)
        return _origin(url) == self.origin and current.path == owned.path

    def require_form(self, url: str) -> None:
        if not self.shows_form(url):
            raise BrowserError("Fieldwork works only on its own reservation form.")


def check_tab(tab_id: str | None) -> None:
    if tab_id not in (None, "fieldwork"):
        raise BrowserError("Unknown tab.")
