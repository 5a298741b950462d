"""Small helpers shared by the reference driver tests."""

from __future__ import annotations

import os
from typing import Any

import pytest
from openai.lib.browser import BrowserReadV1

from reference.browser import serve


def element(report: BrowserReadV1, label: str) -> dict[str, Any]:
    """The reported element with exactly this label (fails the test when absent or ambiguous)."""
    found = [item for item in report["elements"] if item["label"] == label]
    assert len(found) == 1, f"expected one element labelled {label!r}, got {[e['label'] for e in report['elements']]}"
    return dict(found[0])


def read(driver: Any, filter: str = "all") -> BrowserReadV1:
    result = driver.read_page({"filter": filter, "tab_id": None})
    assert isinstance(result, dict)
    return result


def desktop_image_or_skip() -> None:
    """Skip unless a Docker engine answers and has the desktop image."""
    try:
        serve._docker("image", "inspect", os.environ.get("KIT_DESKTOP_IMAGE") or "kit/desktop:latest")
    except serve.ServeError as error:
        pytest.skip(f"needs a Docker engine and the kit/desktop image (containers/build-desktop-image.sh): {error}")
