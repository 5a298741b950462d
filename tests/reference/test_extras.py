"""Opt-in members: file transfer through grants, bounded diagnostics, scripts, pointer input and images."""

from __future__ import annotations

import base64
import io
import json
import time

import pytest
from openai.lib.browser import BrowserError
from PIL import Image
from rdk_helpers import element, read

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser]


def test_upload_uses_a_grant_once(open_driver, env) -> None:
    driver = open_driver("files.html")
    open_driver.grants.issue(
        "up-1",
        kind="upload",
        owner=driver.owner,
        file_name="notes.txt",
        content=b"hello grant",
        max_bytes=100,
        expires_in_s=30,
    )
    done = driver.upload_file({"grant_id": "up-1"})
    assert done == {"version": 1, "status": "completed", "effect": "completed", "cleanup": "completed"}
    chosen = env.wait_for_effect("file_chosen")
    assert chosen["name"] == "notes.txt" and chosen["size"] == len(b"hello grant")
    again = driver.upload_file({"grant_id": "up-1"})
    assert (again["status"], again["effect"]) == ("refused", "none")
    assert driver.upload_file({"grant_id": "never-issued"})["status"] == "refused"


def test_downloads_are_blocked_unless_granted(open_driver, env) -> None:
    driver = open_driver("files.html")
    driver.click({"target": element(read(driver), "Download report.txt")["ref"], "tab_id": None})
    time.sleep(0.3)
    changes = driver.state()["observation"]["changes"]
    assert {"type": "download", "status": "blocked"}.items() <= changes[-1].items()
    open_driver.grants.issue(
        "down-1", kind="download", owner=driver.owner, file_name="report.txt", max_bytes=1000, expires_in_s=30
    )
    result = driver.download_file({"grant_id": "down-1"})
    assert (result["status"], result["effect"]) == ("completed", "completed")
    assert open_driver.grants.received("down-1") == b"fixture download report.txt\n"
    assert driver.download_file({"grant_id": "down-1"})["status"] == "refused"


def test_file_calls_cancelled_before_start_are_interrupted_without_effect(open_driver, env) -> None:
    driver = open_driver("files.html")
    open_driver.grants.issue(
        "up-2", kind="upload", owner=driver.owner, file_name="a.txt", content=b"a", max_bytes=10, expires_in_s=30
    )
    result = driver.upload_file({"grant_id": "up-2"}, cancelled=lambda: True)
    assert (result["status"], result["effect"]) == ("interrupted", "none")
    assert not open_driver.grants.is_used("up-2")


def test_diagnostics_summarise_without_secrets(open_driver, env) -> None:
    driver = open_driver("diagnostics.html")
    env.wait_for_effect("diagnostics_ready")
    console = driver.read_diagnostics({"source": "console", "limit": 100, "tab_id": None})
    network = driver.read_diagnostics({"source": "network", "limit": 5, "tab_id": None})
    dumped = json.dumps([console, network])
    for secret in ("hunter2", "sk-kit-SECRET", "SECRET-TOKEN", "SECRET-BEARER", "kit_secret", "Cookie"):
        assert secret not in dumped
    assert console["elements"] == [] and "console.error" in console["text"]
    assert len(network["text"].splitlines()) == 5 and "report_limit" in network["omitted"]


def test_scripts_run_only_in_permitted_pages_with_a_timeout(open_driver, env) -> None:
    driver = open_driver("script.html")
    assert driver.run_script({"source": "bump('m1')", "timeout_ms": 2000, "tab_id": None}) == "bumped 1"
    assert driver.run_script({"source": "({a: 1})", "timeout_ms": 2000, "tab_id": None}) == '{"a":1}'
    assert driver.run_script({"source": "undefined", "timeout_ms": 2000, "tab_id": None}) == ""
    started = time.monotonic()
    with pytest.raises(BrowserError, match="timeout"):
        driver.run_script({"source": "new Promise(() => {})", "timeout_ms": 300, "tab_id": None})
    assert time.monotonic() - started < 3
    with pytest.raises(BrowserError) as failed:
        driver.run_script({"source": "throw new Error('secret-detail')", "timeout_ms": 1000, "tab_id": None})
    assert "secret-detail" not in str(failed.value)
    driver.new_tab({"url": None})
    with pytest.raises(BrowserError, match="permitted"):
        driver.run_script({"source": "1", "timeout_ms": 1000, "tab_id": None})


def _image_size(image: dict) -> tuple[int, int]:
    data = base64.b64decode(image["image_url"].split(",", 1)[1])
    return Image.open(io.BytesIO(data)).size


def test_screenshot_and_zoom_are_viewport_pngs(open_driver, env) -> None:
    driver = open_driver("forms.html")
    shot = driver.screenshot({"tab_id": None})
    assert set(shot) == {"type", "image_url"} and shot["image_url"].startswith("data:image/png;base64,")
    assert _image_size(shot) == (1280, 720)
    assert _image_size(driver.zoom({"region": [10, 20, 110, 70], "tab_id": None})) == (100, 50)
    with pytest.raises(BrowserError):
        driver.zoom({"region": [0, 0, 1281, 10], "tab_id": None})


def test_pointer_members_use_full_viewport_coordinates(open_driver, env) -> None:
    driver = open_driver("forms.html")
    driver.zoom({"region": [500, 300, 700, 400], "tab_id": None})
    driver.click_at({"x": 5, "y": 5, "button": "right", "click_count": 1, "keys": ["Shift"], "tab_id": None})
    menu = env.wait_for_effect("contextmenu")
    assert (menu["x"], menu["y"]) == (5, 5) and menu["modifiers"] == ["Shift"]
    with pytest.raises(BrowserError):
        driver.click_at({"x": 1280, "y": 5, "button": "left", "click_count": 1, "keys": [], "tab_id": None})
    driver.drag_path({"path": [{"x": 10, "y": 10}, {"x": 40, "y": 40}], "keys": [], "tab_id": None})
    assert env.wait_for_effect("mouseup", lambda effect: effect["x"] == 40)["y"] == 40
    # click_at's Shift was released too; only a key-up recorded after this point can come from hold_keys.
    held_at = time.monotonic()
    driver.hold_keys({"keys": ["Shift"], "duration_ms": 50, "tab_id": None})
    assert env.wait_for_effect("keyup", lambda effect: effect["received"] > held_at)["key"] == "Shift"
