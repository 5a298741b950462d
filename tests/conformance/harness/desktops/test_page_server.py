"""The page server serves files and appends posted events, and refuses malformed posts."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conformance.harness.desktops.page_server import RecordingPageServer


def _post(url: str, body: bytes) -> int:
    request = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def test_serves_pages_and_records_events(tmp_path: Path) -> None:
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "page.html").write_text("<p>hi</p>")
    events = tmp_path / "events.jsonl"
    with RecordingPageServer(tmp_path / "site", events) as server:
        with urllib.request.urlopen(server.base_url + "page.html", timeout=5) as response:
            assert response.read() == b"<p>hi</p>"
            assert response.headers["Cache-Control"] == "no-store"
        assert _post(server.base_url + "events", json.dumps([{"seq": 1}, {"seq": 2, "key": "ü"}]).encode()) == 204
        assert _post(server.base_url + "events", json.dumps({"seq": 3}).encode()) == 204
    lines = [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()]
    assert lines == [{"seq": 1}, {"seq": 2, "key": "ü"}, {"seq": 3}]


@pytest.mark.parametrize("body", [b"not json", b"[1, 2]", b'"text"'])
def test_malformed_events_are_refused_and_not_recorded(tmp_path: Path, body: bytes) -> None:
    events = tmp_path / "events.jsonl"
    with RecordingPageServer(tmp_path, events) as server:
        assert _post(server.base_url + "events", body) == 400
        assert _post(server.base_url + "other", b"{}") == 404
    assert events.read_text() == ""


def test_a_missing_site_directory_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(NotADirectoryError, match="does not exist"):
        RecordingPageServer(tmp_path / "missing", tmp_path / "events.jsonl")
