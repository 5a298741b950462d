"""What the runtime does with code: a persistent namespace per session, desktop helpers on the display, and
limits that hold (deadline, memory, output size, network)."""

from __future__ import annotations

import base64
import io
import os
import socket
import threading
import time
from pathlib import Path

import pytest
from PIL import Image
from Xlib import display as xdisplay

from reference.execution import ExecutionService
from tests.host_processes import gone_soon, pids_of_uid

from ._http import execute, texts
from .conftest import TEST_LIMITS

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.desktop, pytest.mark.container]


def test_namespace_persists_within_a_session_only(service: ExecutionService, token: str) -> None:
    assert execute(service.endpoint, token, "keep", "counter = 40").status == 200
    assert texts(execute(service.endpoint, token, "keep", "counter += 2\nlog(counter)")) == ["42"]
    other = texts(execute(service.endpoint, token, "elsewhere", "log(counter)"))
    assert any("NameError" in text for text in other)


def test_namespace_offers_the_documented_helpers(service: ExecutionService, token: str) -> None:
    code = "log(sorted(n for n in ('pyautogui', 'PIL', 'Image', 'time', 'log', 'display') if n in globals()))"
    assert texts(execute(service.endpoint, token, "helpers", code)) == [
        "['Image', 'PIL', 'display', 'log', 'pyautogui', 'time']"
    ]
    assert texts(execute(service.endpoint, token, "helpers", "log(pyautogui.FAILSAFE)")) == ["True"]


def test_display_returns_an_original_detail_png_of_the_desktop(service: ExecutionService, token: str) -> None:
    reply = execute(service.endpoint, token, "shot", "display(pyautogui.screenshot())")
    assert reply.status == 200
    [item] = reply.body["output"]
    assert item["type"] == "input_image" and item["detail"] == "original"
    prefix = "data:image/png;base64,"
    assert item["image_url"].startswith(prefix)
    image = Image.open(io.BytesIO(base64.b64decode(item["image_url"][len(prefix) :])))
    assert image.size == (640, 480)


def test_pyautogui_drives_the_services_display(
    service: ExecutionService, token: str, x_display: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Checked from outside the runtime: the X server's own pointer position. (python-xlib insists on an
    # authority file even when the server needs none.)
    authority = tmp_path / "Xauthority"
    authority.touch()
    monkeypatch.setenv("XAUTHORITY", str(authority))
    execute(service.endpoint, token, "pointer", "pyautogui.moveTo(123, 45)")
    connection = xdisplay.Display(x_display)
    try:
        pointer = connection.screen().root.query_pointer()
        assert (pointer.root_x, pointer.root_y) == (123, 45)
    finally:
        connection.close()


def test_images_never_come_back_as_base64_text(service: ExecutionService, token: str) -> None:
    code = (
        "import base64, io\n"
        "buffer = io.BytesIO(); pyautogui.screenshot().save(buffer, 'PNG')\n"
        "print('data:image/png;base64,' + base64.b64encode(buffer.getvalue()).decode())\n"
        "log(pyautogui.screenshot())"
    )
    output = texts(execute(service.endpoint, token, "b64", code))
    assert all(len(text) < 200 for text in output)
    assert any("display(image)" in text for text in output)


def test_deadline_kills_the_runtime_and_retires_the_session(service: ExecutionService, token: str) -> None:
    execute(service.endpoint, token, "slow", "state = 'kept'")
    runtime = service.pool.runtime("slow")
    assert runtime is not None
    started = time.monotonic()
    reply = execute(service.endpoint, token, "slow", "while True:\n    pass")
    elapsed = time.monotonic() - started
    assert reply.status == 200
    assert "deadline" in texts(reply)[0]
    assert elapsed < service.limits.deadline_s + 3
    assert "slow" not in service.pool.live_sessions()
    assert runtime.process.poll() is not None
    assert os.geteuid() != 0 or gone_soon(pids_of_uid, runtime.uid)
    after = texts(execute(service.endpoint, token, "slow", "log(state)"))
    assert "retired" in after[0]
    assert any("NameError" in text for text in after[1:])


def test_text_output_is_bounded(service: ExecutionService, token: str) -> None:
    output = texts(execute(service.endpoint, token, "chatty", "log('y' * 50_000)"))
    limit = service.limits.max_text_bytes
    assert len(output[0].encode()) == limit
    assert "truncated" in output[-1]


def test_image_count_is_bounded(service: ExecutionService, token: str) -> None:
    reply = execute(service.endpoint, token, "gallery", "for _ in range(5):\n    display(Image.new('RGB', (4, 4)))")
    images = [item for item in reply.body["output"] if item["type"] == "input_image"]
    assert len(images) == service.limits.max_images
    assert any("maximum number of images" in text for text in texts(reply))


def test_memory_limit_holds_and_the_session_survives(service: ExecutionService, token: str) -> None:
    execute(service.endpoint, token, "hungry", "survivor = 7")
    output = texts(execute(service.endpoint, token, "hungry", "hoard = bytearray(2 * 1024 ** 3)"))
    assert any("memory limit" in text for text in output)
    assert texts(execute(service.endpoint, token, "hungry", "log(survivor)")) == ["7"]


def test_runtime_has_no_network(service: ExecutionService, token: str) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    try:
        code = (
            "import socket\n"
            f"try:\n    socket.create_connection(('127.0.0.1', {port}), timeout=2)\n    log('connected')\n"
            "except OSError as error:\n    log('refused: ' + type(error).__name__)"
        )
        assert service.network_isolated
        assert texts(execute(service.endpoint, token, "offline", code))[0].startswith("refused")
    finally:
        listener.close()


def test_one_call_at_a_time_per_session(service: ExecutionService, token: str) -> None:
    first: list[int] = []
    worker = threading.Thread(
        target=lambda: first.append(execute(service.endpoint, token, "busy", "time.sleep(1)").status)
    )
    worker.start()
    time.sleep(0.4)
    second = execute(service.endpoint, token, "busy", "log(1)")
    worker.join()
    assert second.status == 409
    assert first == [200]


def test_errors_in_code_are_reported_as_text(service: ExecutionService, token: str) -> None:
    output = texts(execute(service.endpoint, token, "oops", "print('before')\n1 / 0"))
    assert output[0] == "before\n"
    assert "ZeroDivisionError" in output[1] and "runtime.py" not in output[1]


def test_stopping_the_service_stops_its_runtimes(x_display: str, token: str) -> None:
    with ExecutionService(token, display=x_display, limits=TEST_LIMITS) as running:
        execute(running.endpoint, token, "owned", "log(1)")
        runtime = running.pool.runtime("owned")
        assert runtime is not None
    assert runtime.process.poll() is not None
    assert os.geteuid() != 0 or gone_soon(pids_of_uid, runtime.uid)
