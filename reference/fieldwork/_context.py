"""A browser context for one Fieldwork driver: isolated, fixed viewport, no downloads, no service workers.

Service workers are blocked because requests they make would bypass the driver's context routing (its network
policy); downloads are refused because the form never offers any.
"""

from __future__ import annotations

from typing import Any


def context_options(viewport: tuple[int, int] = (1280, 720)) -> dict[str, Any]:
    width, height = viewport
    return {
        "viewport": {"width": width, "height": height},
        "accept_downloads": False,
        "service_workers": "block",
        "locale": "en-US",
    }
