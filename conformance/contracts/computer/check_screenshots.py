"""Screenshots: a valid image of the whole, current screen, in the coordinate space actions use."""

from __future__ import annotations

from typing import Any

import pytest
from openai.types.responses import computer_action as actions
from PIL import ImageChops

from conformance.assertions import expect, not_implemented, unverified
from conformance.harness.computer_subject import ComputerSubject

from ._support import calibrated, click, decode_image_url, describe, of_type, one_factor, take_shot, whole_screen

TARGET_RED = (255, 0, 0)


@pytest.mark.clause("CO-SHOT-001")
def test_screenshot_is_a_computer_screenshot(computer_subject: ComputerSubject) -> None:
    screenshot = computer_subject.screenshot()
    expect(
        isinstance(screenshot, dict) and screenshot.get("type") == "computer_screenshot",
        "CO-SHOT-001",
        f"screenshot returned {type(screenshot).__name__} {str(screenshot)[:80]!r}",
    )
    sources = [screenshot.get(key) for key in ("image_url", "file_id")]
    expect(
        any(isinstance(source, str) and source.strip() for source in sources),
        "CO-SHOT-001",
        "screenshot has neither a nonempty image_url nor a nonempty file_id",
    )


@pytest.mark.clause("CO-SHOT-002")
def test_screenshot_decodes_at_the_screen_size_or_one_scale(computer_subject: ComputerSubject) -> None:
    screenshot = computer_subject.screenshot()
    url = screenshot.get("image_url") or ""
    if not url.startswith("data:"):
        not_implemented("screenshots as data URLs (the suite cannot fetch file IDs or remote images)")
    try:
        image = decode_image_url(url)
    except Exception as error:
        expect(False, "CO-SHOT-002", f"image_url does not decode as an image: {error}")
    width, height = computer_subject.env.screen_size
    whole = whole_screen(image, (width, height))
    placed = None if whole else calibrated(image, computer_subject.env)
    if placed is None:
        # A whole-screen picture (or one the page's calibration marks cannot place) is judged by its size.
        scale_x, scale_y = image.width / width, image.height / height
        unplaced = "" if whole else ", and it does not show the page's calibration marks that would place a crop"
        # One factor both ways; the documents set no bound on it (an enlarged screenshot shares the actions'
        # coordinate space as well as a reduced one does).
        expect(
            scale_x > 0 and abs(scale_x - scale_y) <= 2 / min(image.width, image.height),
            "CO-SHOT-002",
            f"a {image.width}x{image.height} screenshot of a {width}x{height} screen is scaled {scale_x:.3f}x "
            f"horizontally and {scale_y:.3f}x vertically, not by one factor{unplaced}",
        )
        return
    # The marks say where the picture shows the screen: whole or cropped, one factor both ways, nothing beyond it.
    scale_x, scale_y = placed.scale_x, placed.scale_y
    expect(
        one_factor(placed),
        "CO-SHOT-002",
        f"the {image.width}x{image.height} screenshot shows the screen at {scale_x:.3f}x horizontally and "
        f"{scale_y:.3f}x vertically, not one factor",
    )
    right, bottom = placed.left + image.width / scale_x, placed.top + image.height / scale_y
    expect(
        placed.left >= -2 and placed.top >= -2 and right <= width + 2 and bottom <= height + 2,
        "CO-SHOT-002",
        f"the screenshot shows screen pixels {placed.left:.0f},{placed.top:.0f} to {right:.0f},{bottom:.0f}, "
        f"beyond the {width}x{height} screen",
    )


@pytest.mark.clause("CO-SHOT-003")
def test_screenshot_shows_the_current_screen(computer_subject: ComputerSubject) -> None:
    before = take_shot(computer_subject)
    mark = computer_subject.env.mark()
    computer_subject.act(actions.Type(type="type", text="WWWWWWWWWWWWWWWWWWWW"))
    computer_subject.env.wait_for(mark, lambda seen: len(of_type(seen, "input")) >= 20)
    after = take_shot(computer_subject)
    # Twenty Ws change the typing area (screen pixels 40..560 x 40..180) and the count the page echoes beside
    # its free area: whichever the screenshot shows (a cropped one may leave the typing area out).
    echo = computer_subject.env.ready_event().get("echo") or (0, 0, 0, 0)
    shown = [box for box in (before.box(40, 40, 560, 180), before.box(*echo)) if box is not None]
    if not shown:
        unverified("screenshot", "the cropped screenshot shows neither the typing area nor the page's typed count")
    box = shown[0]
    difference = ImageChops.difference(before.image.convert("RGB").crop(box), after.image.convert("RGB").crop(box))
    expect(
        difference.getbbox() is not None,
        "CO-SHOT-003",
        "the screenshot after typing into the text area is identical there to the one before",
    )


def _find_target(image: Any) -> tuple[int, int] | None:
    """Centre of the pure red square in a screenshot (scaled images blend its edges, so match loosely)."""
    rgb = image.convert("RGB")
    red, green, blue = rgb.split()
    strong_red = red.point(lambda value: 255 if value >= 200 else 0)
    no_green = green.point(lambda value: 255 if value <= 60 else 0)
    no_blue = blue.point(lambda value: 255 if value <= 60 else 0)
    hits = ImageChops.multiply(ImageChops.multiply(strong_red, no_green), no_blue).getbbox()
    if hits is None:
        return None
    left, top, right, bottom = hits
    return (left + right - 1) // 2, (top + bottom - 1) // 2


@pytest.mark.clause("CO-COORD-001")
def test_clicking_what_the_screenshot_shows_hits_it(computer_subject: ComputerSubject) -> None:
    shot = take_shot(computer_subject)
    centre = _find_target(shot.image)
    expect(centre is not None, "CO-COORD-001", "the red target the page draws is not in the screenshot")
    assert centre is not None
    mark = computer_subject.env.mark()
    computer_subject.act(click(*centre))
    events = computer_subject.env.wait_for(mark, lambda seen: bool(of_type(seen, "click")))
    hits = [event.get("target") for event in of_type(events, "click")]
    target = computer_subject.env.target()
    expect(
        hits == ["target"],
        "CO-COORD-001",
        f"clicked screenshot pixel {centre}, the target is at page ({target.left}, {target.top}) "
        f"size {target.width}; the page saw {describe(of_type(events, 'click'))}",
    )
