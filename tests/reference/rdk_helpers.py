"""Small helpers shared by the reference driver tests."""

from __future__ import annotations

from typing import Any

from openai.lib.browser import BrowserReadV1


def element(report: BrowserReadV1, label: str) -> dict[str, Any]:
    """The reported element with exactly this label (fails the test when absent or ambiguous)."""
    found = [item for item in report["elements"] if item["label"] == label]
    assert len(found) == 1, f"expected one element labelled {label!r}, got {[e['label'] for e in report['elements']]}"
    return dict(found[0])


def read(driver: Any, filter: str = "all") -> BrowserReadV1:
    result = driver.read_page({"filter": filter, "tab_id": None})
    assert isinstance(result, dict)
    return result
