"""The request and reply the guide defines: a request is run and answered with ``{output: [...]}`` of input_text
and input_image items, images carry detail "original", text is bounded and never carries an image payload, and a
screenshot comes back as an image."""

from __future__ import annotations

import base64
import secrets

import pytest

from conformance.assertions import expect, precondition, violation
from conformance.harness.execution_service import ExecutionEndpoint, Reply, new_session_id

from ._images import decoded_image_size, image_payload_in, noise_png
from ._runtimes import Runtime

# A script writes this much text for the bound check; the guide names no limit, so the kit asks only that the reply
# hold far less (a quarter) of it: a runtime that returns whatever a script writes has no bound at all.
WRITTEN_TEXT_CHARACTERS = 4_000_000
BOUNDED_REPLY_CHARACTERS = WRITTEN_TEXT_CHARACTERS // 4


def _screenshot_code(runtime: Runtime) -> str:
    if runtime.language == "python":
        return "display(pyautogui.screenshot())"
    return "display((await page.screenshot()).toString('base64'))"


def _item_problem(position: int, item: object) -> str | None:
    if not isinstance(item, dict):
        return f"output item {position} is not an object: {item!r:.80}"
    if item.get("type") == "input_text":
        return None if isinstance(item.get("text"), str) else f"input_text item {position} has no text string"
    if item.get("type") == "input_image":
        return None if isinstance(item.get("image_url"), str) else f"input_image item {position} has no image_url"
    return f"output item {position} is of type {item.get('type')!r}, neither input_text nor input_image"


def judge_reply_shape(reply: Reply) -> None:
    """Fail EX-REPLY-001 unless the reply is an object with a nonempty list of well-formed output items."""
    output = reply.output
    expect(output, "EX-REPLY-001", f"the reply holds no nonempty output list: {reply.describe()}")
    assert output is not None
    for position, item in enumerate(output):
        problem = _item_problem(position, item)
        expect(problem is None, "EX-REPLY-001", f"{problem}: {reply.describe()}")


@pytest.mark.clause("EX-REQ-001", "EX-REPLY-001")
def test_a_request_is_run_and_answered_with_output_items(service: ExecutionEndpoint, offered: tuple[str, ...]) -> None:
    for language in offered:
        marker = f"driverkit-{secrets.token_hex(6)}"
        runtime = Runtime(language, service)
        reply = runtime.run(new_session_id("request"), runtime.log_code(marker))
        expect(reply.status == 200, "EX-REQ-001", f"a well-formed {language} request was not run: {reply.describe()}")
        judge_reply_shape(reply)
        expect(
            marker in reply.text(),
            "EX-REPLY-001",
            f"the {language} script returned {marker!r} but the reply's text lacks it: {reply.describe()}",
        )


@pytest.mark.clause("EX-IMAGE-001")
def test_a_screenshot_comes_back_as_an_image_item(runtime: Runtime) -> None:
    reply = runtime.run(new_session_id("screenshot"), _screenshot_code(runtime))
    images = reply.images()
    expect(
        images,
        "EX-IMAGE-001",
        f"a {runtime.language} screenshot passed to display() came back as no image: {reply.describe()}",
    )
    size = decoded_image_size(str(images[0].get("image_url", "")))
    expect(size, "EX-IMAGE-001", "the image item's image_url is no data URL of a decodable image")


@pytest.mark.clause("EX-REPLY-002")
def test_every_image_item_has_original_detail(runtime: Runtime) -> None:
    reply = runtime.run(new_session_id("detail"), _screenshot_code(runtime))
    images = reply.images()
    precondition(images, "EX-IMAGE-001", f"no image came back to judge: {reply.describe()}")
    for position, image in enumerate(images):
        expect(
            image.get("detail") == "original",
            "EX-REPLY-002",
            f"image item {position} has detail {image.get('detail', '<missing>')!r}, not 'original'",
        )


@pytest.mark.clause("EX-TEXT-001")
def test_text_output_is_bounded(runtime: Runtime) -> None:
    if runtime.language == "python":
        code = f"log('a' * {WRITTEN_TEXT_CHARACTERS})"
    else:
        code = f"console.log('a'.repeat({WRITTEN_TEXT_CHARACTERS}))"
    reply = runtime.run(new_session_id("bounded"), code)
    returned = sum(len(text) for text in reply.texts())
    expect(
        returned < BOUNDED_REPLY_CHARACTERS and len(reply.raw) < BOUNDED_REPLY_CHARACTERS * 2,
        "EX-TEXT-001",
        f"a script wrote {WRITTEN_TEXT_CHARACTERS:,} characters and the reply's text holds {returned:,} of them "
        f"({len(reply.raw):,} characters in all)",
    )


@pytest.mark.clause("EX-TEXT-002")
def test_text_items_carry_no_image_payload(runtime: Runtime) -> None:
    # The script displays an image and also prints its base64, bare and as a data URL: the image must come back
    # only as an image item.
    encoded = base64.b64encode(noise_png(48, 48)).decode("ascii")
    if runtime.language == "python":
        code = (
            f"import base64, io\nfrom PIL import Image as _Image\ndata = {encoded!r}\n"
            "display(_Image.open(io.BytesIO(base64.b64decode(data))))\n"
            "log(data)\nlog('data:image/png;base64,' + data)"
        )
    else:
        code = (
            f"const data = {encoded!r};\ndisplay(data);\n"
            "console.log(data);\nconsole.log('data:image/png;base64,' + data);"
        )
    reply = runtime.run(new_session_id("payload"), code)
    for position, text in enumerate(reply.texts()):
        found = image_payload_in(text)
        if found:
            violation("EX-TEXT-002", f"text item {position} carries {found}")
