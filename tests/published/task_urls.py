"""The kit's task URLs for example drivers that keep an allow-list of exact URLs: every URL of its permitted origins.

The SDK's examples ask only ``url in allowed``. The kit's checks open its pages with query strings and its own
endpoints (a slow page, a redirect), all on the permitted origin, so the task's allowed URLs are that origin's;
any other origin stays refused, as the examples refuse it.
"""

from __future__ import annotations


class TaskUrls(dict[str, str]):
    """A mapping whose ``in`` holds for every URL on one of ``origins`` (the examples' own type is a dict)."""

    def __init__(self, origins: tuple[str, ...]) -> None:
        super().__init__()
        self.origins = tuple(f"{origin.rstrip('/')}/" for origin in origins)

    def __contains__(self, url: object) -> bool:
        return isinstance(url, str) and url.startswith(self.origins)
