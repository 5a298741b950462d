"""The JavaScript runtime: Playwright's browser, context and page with top-level await, a 1440x900 viewport,
console.log for text, display(base64Image) for images, and globalThis kept between calls."""

from __future__ import annotations

import base64
import json
import secrets

import pytest

from conformance.assertions import expect, precondition
from conformance.harness.execution_service import new_session_id

from ._images import decoded_image_size, noise_png
from ._runtimes import Runtime, json_item

# An odd size no screenshot has, so the image that comes back is the one the script was given.
_IMAGE_SIZE = (37, 23)


@pytest.mark.clause("EX-JS-001")
def test_browser_context_and_page_with_top_level_await(javascript: Runtime) -> None:
    marker = f"driverkit-{secrets.token_hex(6)}"
    code = (
        f"await page.setContent('<p id=driverkit>{marker}</p>');\n"
        "console.log(typeof browser.newContext, typeof context.newPage, await page.textContent('#driverkit'));"
    )
    reply = javascript.run(new_session_id("objects"), code)
    expect(
        f"function function {marker}" in reply.text(),
        "EX-JS-001",
        f"browser, context and page with top-level await did not work: {reply.describe()}",
    )


@pytest.mark.clause("EX-JS-002")
def test_the_viewport_is_1440_by_900(javascript: Runtime) -> None:
    code = "console.log(JSON.stringify([page.viewportSize(), await page.evaluate(() => [innerWidth, innerHeight])]))"
    reply = javascript.run(new_session_id("viewport"), code)
    sizes = json_item(reply)
    declared, seen = sizes if isinstance(sizes, list) and len(sizes) == 2 else (None, None)
    precondition(seen is not None, "EX-JS-001", f"the page could not be asked its size: {reply.describe()}")
    expect(
        seen == [1440, 900] and declared == {"width": 1440, "height": 900},
        "EX-JS-002",
        f"the context's viewport is {declared}, the page sees {seen}, not 1440x900",
    )


@pytest.mark.clause("EX-JS-003")
def test_console_log_returns_text(javascript: Runtime) -> None:
    marker = f"driverkit-{secrets.token_hex(6)}"
    reply = javascript.run(new_session_id("console"), f"console.log({json.dumps(marker)}, 42)")
    expect(
        any(marker in text and "42" in text for text in reply.texts()),
        "EX-JS-003",
        f"console.log's value did not come back as an input_text item: {reply.describe()}",
    )


@pytest.mark.clause("EX-JS-004")
def test_display_returns_the_image(javascript: Runtime) -> None:
    encoded = base64.b64encode(noise_png(*_IMAGE_SIZE)).decode("ascii")
    reply = javascript.run(new_session_id("display"), f"display({json.dumps(encoded)})")
    sizes = [decoded_image_size(str(image.get("image_url", ""))) for image in reply.images()]
    expect(
        _IMAGE_SIZE in sizes,
        "EX-JS-004",
        f"display() of a {_IMAGE_SIZE[0]}x{_IMAGE_SIZE[1]} PNG returned images of sizes {sizes}: {reply.describe()}",
    )


@pytest.mark.clause("EX-JS-005")
def test_globalthis_survives_between_calls(javascript: Runtime) -> None:
    session, value = new_session_id("global"), secrets.token_hex(8)
    javascript.run(session, javascript.set_code("driverkitKept", value))
    later = javascript.run(session, javascript.read_code("driverkitKept"))
    expect(
        value in later.text(),
        "EX-JS-005",
        f"a value assigned to globalThis is gone in the next call of the session: {later.describe()}",
    )
