"""The JavaScript runtime (``language: "javascript"``): Playwright's browser, context and page in a persistent Node
runtime, top-level await, console.log and display, globalThis kept between calls, and errors and the deadline
answered as tool output that says whether the session survived."""

from __future__ import annotations

import base64
import dataclasses
import io
import json
import os
from collections.abc import Iterator

import pytest
from PIL import Image

from reference.execution import ExecutionService, execute_in_sandbox
from reference.execution.node import NodeUnavailable, node_binary
from tests.host_processes import gone_soon, pids_of_uid

from ._http import Reply, execute, texts
from .conftest import TEST_LIMITS

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser, pytest.mark.desktop, pytest.mark.container]

try:
    node_binary()
except NodeUnavailable as missing:
    pytest.skip(f"blocked: {missing}", allow_module_level=True)

SURVIVED = "still running"


def js(service: ExecutionService, token: str, session: str, code: str) -> Reply:
    reply = execute(service.endpoint, token, session, code, language="javascript")
    assert reply.status == 200, reply.body
    return reply


def test_globalthis_persists_within_a_session_only(service: ExecutionService, token: str) -> None:
    assert texts(js(service, token, "keep", "globalThis.counter = 40; console.log('set')")) == ["set\n"]
    assert texts(js(service, token, "keep", "counter += 2; console.log(counter)")) == ["42\n"]
    assert texts(js(service, token, "elsewhere", "console.log(typeof counter)")) == ["undefined\n"]


def test_top_level_await_and_the_browser_objects(service: ExecutionService, token: str) -> None:
    code = (
        "await page.setContent('<title>kit</title><p id=p>hello</p>');\n"
        "const text = await page.textContent('#p');\n"
        "console.log(await page.title(), text, browser.isConnected(), context.pages().length);"
    )
    assert texts(js(service, token, "await", code)) == ["kit hello true 1\n"]


def test_viewport_is_1440_by_900_as_the_page_sees_it(service: ExecutionService, token: str) -> None:
    code = "console.log(JSON.stringify(await page.evaluate(() => [window.innerWidth, window.innerHeight])))"
    assert texts(js(service, token, "viewport", code)) == ["[1440,900]\n"]


def test_console_log_formats_values_as_text(service: ExecutionService, token: str) -> None:
    reply = js(service, token, "log", "console.log('a', 1, {b: [2]}); console.log(null)")
    assert reply.body["output"] == [
        {"type": "input_text", "text": "a 1 { b: [ 2 ] }\n"},
        {"type": "input_text", "text": "null\n"},
    ]


def test_display_returns_a_screenshot_as_an_original_detail_image(service: ExecutionService, token: str) -> None:
    code = (
        "await page.setContent('<body style=\"margin:0;background:rgb(255,0,0)\"></body>');\n"
        "display((await page.screenshot()).toString('base64'));"
    )
    [item] = js(service, token, "shot", code).body["output"]
    assert item["type"] == "input_image" and item["detail"] == "original"
    prefix = "data:image/png;base64,"
    assert item["image_url"].startswith(prefix)
    image = Image.open(io.BytesIO(base64.b64decode(item["image_url"][len(prefix) :]))).convert("RGB")
    assert image.size == (1440, 900)
    assert image.getpixel((720, 450)) == (255, 0, 0)


def test_display_refuses_what_is_not_an_image(service: ExecutionService, token: str) -> None:
    [error, survived] = texts(js(service, token, "notimage", "display('aGVsbG8=')"))
    assert error.startswith("TypeError: display() takes a PNG or JPEG image")
    assert SURVIVED in survived


def test_image_data_in_text_is_kept_out(service: ExecutionService, token: str) -> None:
    code = "console.log('data:image/png;base64,' + (await page.screenshot()).toString('base64'))"
    [text] = texts(js(service, token, "b64", code))
    assert "image data removed" in text and len(text) < 200


def test_syntax_error_names_the_line_and_the_session_survives(service: ExecutionService, token: str) -> None:
    js(service, token, "syntax", "globalThis.kept = 'yes'")
    [error, survived] = texts(js(service, token, "syntax", "let a = 1;\na +* 2"))
    assert error.startswith("<exec_js>:2\na +* 2") and "SyntaxError: Unexpected token '*'" in error
    assert SURVIVED in survived
    assert texts(js(service, token, "syntax", "console.log(kept)")) == ["yes\n"]


def test_awaited_rejection_is_reported_with_the_callers_line(service: ExecutionService, token: str) -> None:
    [error, survived] = texts(js(service, token, "reject", "\nawait Promise.reject(new RangeError('too far'))"))
    assert error.splitlines()[0] == "RangeError: too far"
    assert "<exec_js>:2:" in error
    assert SURVIVED in survived


def test_unawaited_rejection_does_not_end_the_runtime(service: ExecutionService, token: str) -> None:
    js(service, token, "loose", "globalThis.kept = 7")
    [error, survived] = texts(js(service, token, "loose", "Promise.reject(new Error('nobody waited'))"))
    assert error.startswith("Unhandled promise rejection: Error: nobody waited")
    assert SURVIVED in survived
    assert texts(js(service, token, "loose", "console.log(kept)")) == ["7\n"]


def test_exception_from_an_awaited_playwright_call(service: ExecutionService, token: str) -> None:
    code = "await page.setContent('<p>empty</p>');\nawait page.click('#missing', {timeout: 300});"
    [error, survived] = texts(js(service, token, "click", code))
    assert error.startswith("TimeoutError: page.click: Timeout 300ms exceeded.")
    assert "<exec_js>:2:" in error and "node_modules" not in error
    assert SURVIVED in survived


def test_deadline_stops_the_runtime_and_the_session_says_it_did_not_survive(
    service: ExecutionService, token: str
) -> None:
    js(service, token, "spin", "globalThis.kept = 1")
    runtime = service.pool.runtime("spin")
    assert runtime is not None
    [stopped] = texts(js(service, token, "spin", "while (true) {}"))
    assert f"ran past the {TEST_LIMITS.deadline_s:g}-second deadline" in stopped
    assert "variables are gone" in stopped
    assert runtime.process.poll() is not None
    # Chromium and every other process of the runtime went with it.
    assert os.geteuid() != 0 or gone_soon(pids_of_uid, runtime.uid)
    [notice, value] = texts(js(service, token, "spin", "console.log(typeof kept)"))
    assert "previous runtime was retired (it exceeded the deadline)" in notice
    assert value == "undefined\n"


def test_an_awaited_promise_that_never_settles_meets_the_deadline(service: ExecutionService, token: str) -> None:
    [stopped] = texts(js(service, token, "hang", "await new Promise(() => {})"))
    assert "deadline" in stopped


def test_output_limit_applies_to_console_log(service: ExecutionService, token: str) -> None:
    output = texts(js(service, token, "flood", "for (let i = 0; i < 1000; i++) console.log('x'.repeat(50))"))
    assert sum(len(text.encode()) for text in output[:-1]) == TEST_LIMITS.max_text_bytes
    assert output[-1].startswith("[text output truncated:")


def test_image_count_limit_applies_to_display(service: ExecutionService, token: str) -> None:
    code = "const shot = (await page.screenshot()).toString('base64');\nfor (let i = 0; i < 4; i++) display(shot);"
    items = js(service, token, "images", code).body["output"]
    assert [item["type"] for item in items].count("input_image") == TEST_LIMITS.max_images
    assert "maximum number of images" in json.dumps(items)


def test_a_session_keeps_its_language(service: ExecutionService, token: str) -> None:
    js(service, token, "mixed", "globalThis.a = 1")
    reply = execute(service.endpoint, token, "mixed", "log(1)")
    assert reply.status == 409 and "runs javascript" in reply.body["error"]


def test_client_adapter_sends_javascript(service: ExecutionService, token: str) -> None:
    items = execute_in_sandbox(
        "console.log(typeof page.goto)",
        "adapter",
        service.endpoint,
        approve=lambda _: True,
        token=token,
        language="javascript",
    )
    assert items == [{"type": "input_text", "text": "function\n"}]


def test_the_runtime_and_its_browser_run_in_the_sandbox(service: ExecutionService, token: str) -> None:
    # Node's own APIs, not only a child process (the attack suite's route), meet the sandbox.
    code = (
        "const fs = require('node:fs');\n"
        "let shadow = 'held';\n"
        "try { fs.readFileSync('/etc/shadow'); shadow = 'BREACH'; } catch (error) { shadow = error.code; }\n"
        "const chromium = fs.readdirSync('/proc').filter((p) => /^\\d+$/.test(p))\n"
        "  .filter((p) => { try { return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('chromium'); }"
        " catch { return false; } });\n"
        "console.log(process.pid, shadow, require('node:os').hostname(), chromium.length > 0, process.getuid());"
    )
    [line] = texts(js(service, token, "where", code))
    pid, shadow, hostname, sees_chromium, uid = line.split()
    assert (shadow, hostname, sees_chromium) == ("EACCES", "sandbox", "true")
    assert int(pid) < 20  # its own PID namespace
    runtime = service.pool.runtime("where")
    assert runtime is not None and int(uid) == runtime.uid != 0


@pytest.fixture
def roomy_service(x_display: str, token: str) -> Iterator[ExecutionService]:
    # A long deadline, so the memory limit (not the deadline) is what stops the code even on a loaded machine.
    limits = dataclasses.replace(TEST_LIMITS, deadline_s=60.0)
    with ExecutionService(token, display=x_display, limits=limits) as running:
        yield running


CRASHED = "the runtime exited unexpectedly (possibly over its memory limit)"


def test_node_heap_is_bounded(roomy_service: ExecutionService, token: str) -> None:
    limit_code = "console.log(require('node:v8').getHeapStatistics().heap_size_limit)"
    [limit] = texts(js(roomy_service, token, "heap", limit_code))
    # Half the memory limit, plus V8's young generation (a few MiB).
    assert int(limit) <= TEST_LIMITS.memory_bytes // 2 + (64 << 20)
    code = "globalThis.keep = [];\nwhile (true) keep.push('x'.repeat(1 << 20) + Math.random());"
    assert CRASHED in texts(js(roomy_service, token, "heap", code))[0]


@pytest.mark.skipif(os.geteuid() != 0, reason="blocked: only a root service gives runtimes a memory cgroup")
def test_memory_outside_the_heap_is_bounded_by_the_cgroup(roomy_service: ExecutionService, token: str) -> None:
    # Buffers live outside Node's heap; 2.5 GiB of them is far over the 768 MiB the runtime's cgroup allows.
    code = "globalThis.keep = [];\nfor (let i = 0; i < 40; i++) keep.push(Buffer.alloc(64 << 20, 1));"
    assert CRASHED in texts(js(roomy_service, token, "buffers", code))[0]
    [notice, *_] = texts(js(roomy_service, token, "buffers", "console.log(typeof keep)"))
    assert "previous runtime was retired (it exited)" in notice
