"""Reference driver behaviour checked through X itself (pointer, keymap, button state), not through a page."""

from __future__ import annotations

import asyncio
import base64
import io
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from openai.types.responses import computer_action as actions
from PIL import Image

from conformance.harness.desktops import LocalDesktop
from conformance.harness.desktops.x11_connection import open_display
from reference.computer import (
    ActionCancelled,
    AsyncXvfbComputerDriver,
    OffScreenError,
    Region,
    UnknownKeyError,
    XvfbComputerDriver,
)
from tests.desktops import needs_x

pytestmark = [needs_x, pytest.mark.desktop]


def _png(url: str) -> Image.Image:
    assert url.startswith("data:image/png;base64,")
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))


def _pointer(display_name: str) -> tuple[int, int, int]:
    connection = open_display(display_name)
    try:
        reply = connection.screen().root.query_pointer()
        return int(reply.root_x), int(reply.root_y), int(reply.mask)
    finally:
        connection.close()


def _pressed_keycodes(display_name: str) -> list[int]:
    connection = open_display(display_name)
    try:
        keymap = connection.query_keymap()
    finally:
        connection.close()
    return [index * 8 + bit for index, byte in enumerate(keymap) for bit in range(8) if byte & (1 << bit)]


def _eventually(condition: Callable[[], bool], timeout: float = 3.0) -> bool:
    """The window manager freezes the pointer during its click-to-focus grab, so a release can show up late."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_screenshots_are_png_at_native_scale_half_scale_and_region(recorder_desktop: LocalDesktop) -> None:
    with XvfbComputerDriver(recorder_desktop.display) as driver:
        shot = driver.screenshot()
        assert shot["type"] == "computer_screenshot"
        assert _png(shot["image_url"]).size == (1280, 800)
    with XvfbComputerDriver(recorder_desktop.display, scale=0.5) as driver:
        assert _png(driver.screenshot()["image_url"]).size == (640, 400)
    with XvfbComputerDriver(recorder_desktop.display, region=Region(100, 100, 300, 200)) as driver:
        assert _png(driver.screenshot()["image_url"]).size == (300, 200)
        driver.move(actions.Move(type="move", x=0, y=0))
        assert _pointer(recorder_desktop.display)[:2] == (100, 100)


def test_a_region_off_the_screen_is_refused(recorder_desktop: LocalDesktop) -> None:
    with pytest.raises(ValueError, match="does not fit"):
        XvfbComputerDriver(recorder_desktop.display, region=Region(1200, 0, 200, 100))


def test_move_and_scaled_move_land_on_the_screen_point(recorder_desktop: LocalDesktop) -> None:
    with XvfbComputerDriver(recorder_desktop.display) as driver:
        driver.move(actions.Move(type="move", x=640, y=500))
        assert _pointer(recorder_desktop.display)[:2] == (640, 500)
    with XvfbComputerDriver(recorder_desktop.display, scale=0.5) as driver:
        driver.move(actions.Move(type="move", x=100, y=50))
        assert _pointer(recorder_desktop.display)[:2] == (201, 101)


def test_refused_actions_leave_pointer_and_keys_alone(recorder_desktop: LocalDesktop) -> None:
    with XvfbComputerDriver(recorder_desktop.display) as driver:
        driver.move(actions.Move(type="move", x=700, y=500))
        with pytest.raises(OffScreenError):
            driver.click(actions.Click(type="click", x=1280, y=10, button="left"))
        with pytest.raises(UnknownKeyError):
            driver.keypress(actions.Keypress(type="keypress", keys=["ctrl", "Hyperdrive"]))
        with pytest.raises(ValueError, match="at least two"):
            driver.drag(actions.Drag(type="drag", path=[{"x": 1, "y": 1}]))  # type: ignore[list-item]
        with pytest.raises(ValueError, match="at least one key"):
            driver.keypress(actions.Keypress(type="keypress", keys=[]))
        assert _pointer(recorder_desktop.display) == (700, 500, 0)
        assert _pressed_keycodes(recorder_desktop.display) == []


def test_cancelled_actions_raise_and_release_everything(recorder_desktop: LocalDesktop) -> None:
    calls = [0]

    def cancel_after_two_checks() -> bool:
        calls[0] += 1
        return calls[0] > 2

    with XvfbComputerDriver(recorder_desktop.display, wait_seconds=5) as driver:
        with pytest.raises(ActionCancelled):
            driver.type(actions.Type(type="type", text="x" * 100), cancelled=cancel_after_two_checks)
        calls[0] = 0
        with pytest.raises(ActionCancelled):
            driver.drag(
                actions.Drag(type="drag", path=[{"x": 700, "y": 500}, {"x": 710, "y": 510}, {"x": 720, "y": 520}]),  # type: ignore[list-item]
                cancelled=cancel_after_two_checks,
            )
        with pytest.raises(ActionCancelled):
            driver.wait(actions.Wait(type="wait"), cancelled=lambda: True)
        assert _eventually(lambda: _pointer(recorder_desktop.display)[2] & 0x1F00 == 0)  # no button held
        assert _pressed_keycodes(recorder_desktop.display) == []


def test_spare_keycodes_are_restored_when_the_driver_closes(recorder_desktop: LocalDesktop) -> None:
    connection = open_display(recorder_desktop.display)
    try:
        first = connection.display.info.min_keycode
        count = connection.display.info.max_keycode - first + 1
        before = connection.get_keyboard_mapping(first, count)
        with XvfbComputerDriver(recorder_desktop.display) as driver:
            driver.type(actions.Type(type="type", text="ñ日"))
            during = connection.get_keyboard_mapping(first, count)
            assert during != before
        assert connection.get_keyboard_mapping(first, count) == before
    finally:
        connection.close()


def test_the_async_driver_runs_actions_off_the_event_loop(recorder_desktop: LocalDesktop) -> None:
    async def scenario() -> tuple[tuple[int, int, int], str]:
        driver = AsyncXvfbComputerDriver(recorder_desktop.display, wait_seconds=0.05)
        try:
            await driver.move(actions.Move(type="move", x=333, y=444))
            await driver.wait(actions.Wait(type="wait"))
            shot = await driver.screenshot()
            return _pointer(recorder_desktop.display), shot["image_url"]
        finally:
            await driver.aclose()

    pointer, url = asyncio.run(scenario())
    assert pointer[:2] == (333, 444)
    assert _png(url).size == (1280, 800)


def test_connecting_without_any_xauthority_file(
    recorder_desktop: LocalDesktop, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XAUTHORITY", raising=False)
    connection = open_display(recorder_desktop.display)
    try:
        assert connection.screen().width_in_pixels == 1280
    finally:
        connection.close()
    assert "xauth" not in capsys.readouterr().out
