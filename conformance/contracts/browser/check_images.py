"""Screenshots and zoom: valid input_image results that show the current viewport, or exactly the asked region.

actions.html keeps a red and a blue swatch at fixed CSS positions (red 700..820 x 40..120, blue 860..980 x
40..120), so pixel colours prove that an image shows this page and where a zoom was cropped.
Clauses: BR-IMG-001..006.
"""

from __future__ import annotations

import pytest

from conformance.assertions import expect, unverified
from conformance.harness.environment import Environment
from conformance.harness.subject import BrowserSubject

from ._effects import await_effect, effect_with, expect_untouched, mark, page_viewport
from ._expectations import expect_done, expect_refused
from ._images import PERMITTED_IMAGE_KEYS, decode_image, share_of_colour
from ._tabs import active_tab

# Every check here starts on its fixture page; without it the start-page clause is blamed, in setup.
pytestmark = pytest.mark.usefixtures("shows_start_page")

RED = (255, 0, 0)
BLUE = (0, 0, 255)
RED_BOX = (700, 40, 820, 120)
BLUE_BOX = (860, 40, 980, 120)


@pytest.mark.page("actions.html")
@pytest.mark.clause("BR-IMG-001", "BR-IMG-002", "BR-IMG-003", "BR-IMG-006")
def test_screenshot_shows_the_current_viewport(subject: BrowserSubject, env: Environment) -> None:
    subject.require("screenshot")
    width, height = page_viewport(subject, "actions.html")
    tab = active_tab(subject.state())
    position = mark(subject)
    outcome = subject.call("screenshot", tab_id=tab["id"] if tab else None)

    expect_done(outcome, "BR-IMG-001")
    image = outcome.raw
    expect(
        isinstance(image, dict) and image.get("type") == "input_image",
        "BR-IMG-001",
        f"screenshot returned {str(image)[:120]!r}, not an input_image dict",
    )
    extra = set(image) - PERMITTED_IMAGE_KEYS
    expect(not extra, "BR-IMG-001", f"the image carries keys the documents do not permit: {sorted(extra)}")
    picture = decode_image(image, "BR-IMG-001")
    expect(
        picture.size == (width, height),
        "BR-IMG-002",
        f"the screenshot is {picture.width}x{picture.height} px; the page's CSS viewport is {width}x{height}",
    )
    for name, colour, box in (("red", RED, RED_BOX), ("blue", BLUE, BLUE_BOX)):
        inner = (box[0] + 10, box[1] + 10, box[2] - 10, box[3] - 10)
        share = share_of_colour(picture, colour, inner)
        expect(share > 0.9, "BR-IMG-003", f"the {name} swatch is not where the page draws it ({share:.0%} match)")
    subject.env.settle()
    expect_untouched(env, position, "BR-IMG-006", "screenshot")
    outcome.expect_sdk_accepted()


@pytest.mark.page("actions.html")
@pytest.mark.clause("BR-IMG-004", "BR-IMG-006")
def test_zoom_returns_exactly_the_requested_region(subject: BrowserSubject, env: Environment) -> None:
    subject.require("zoom")
    page_viewport(subject, "actions.html")
    position = mark(subject)
    # A region spanning both swatches: red must fill its left part and blue its right part, whatever scale
    # the driver returns the crop at.
    left, top, right, bottom = 700, 40, 980, 120
    outcome = subject.call("zoom", tab_id=None, region=[left, top, right, bottom])
    expect_done(outcome, "BR-IMG-004")
    expect(
        isinstance(outcome.raw, dict) and outcome.raw.get("type") == "input_image",
        "BR-IMG-004",
        f"zoom returned {str(outcome.raw)[:120]!r}, not an input_image dict",
    )
    extra = set(outcome.raw) - PERMITTED_IMAGE_KEYS
    expect(not extra, "BR-IMG-004", f"the image carries keys the documents do not permit: {sorted(extra)}")
    picture = decode_image(outcome.raw, "BR-IMG-004", "zoom")
    ratio = (picture.width / picture.height) / ((right - left) / (bottom - top))
    expect(
        0.95 <= ratio <= 1.05,
        "BR-IMG-004",
        f"the zoom image is {picture.width}x{picture.height}, not the shape of a {right - left}x{bottom - top} region",
    )

    def part(x0: float, x1: float) -> tuple[int, int, int, int]:  # CSS x range inside the region -> image box
        scale = picture.width / (right - left)
        return (
            int((x0 - left) * scale),
            int(picture.height * 0.2),
            int((x1 - left) * scale),
            int(picture.height * 0.8),
        )

    red_share = share_of_colour(picture, RED, part(710, 810))
    blue_share = share_of_colour(picture, BLUE, part(870, 970))
    gap_share = share_of_colour(picture, RED, part(830, 850)) + share_of_colour(picture, BLUE, part(830, 850))
    expect(
        red_share > 0.9 and blue_share > 0.9 and gap_share < 0.1,
        "BR-IMG-004",
        f"the zoom image is not the requested region (red {red_share:.0%}, blue {blue_share:.0%}, "
        f"gap coloured {gap_share:.0%})",
    )
    subject.env.settle()
    expect_untouched(env, position, "BR-IMG-006", "zoom")
    outcome.expect_sdk_accepted()


@pytest.mark.page("actions.html")
@pytest.mark.clause("BR-IMG-005")
def test_zoom_refuses_regions_outside_the_viewport(subject: BrowserSubject, env: Environment) -> None:
    subject.require("zoom")
    width, height = page_viewport(subject, "actions.html")
    for region in ([0, 0, width + 200, height], [0, 0, width, height + 200], [width + 10, 0, width + 60, 50]):
        outcome = subject.call("zoom", tab_id=None, region=region)
        expect_refused(outcome, "BR-IMG-005", f"the region {region} leaves the {width}x{height} viewport")
        outcome.expect_sdk_accepted()


def _red_share(subject: BrowserSubject, tab_id: str | None, clause: str, viewport: tuple[int, int]) -> float:
    """How much of the red swatch's place the screenshot shows red, found where the picture's own scale puts it.

    Whether the picture has the viewport's size is BR-IMG-002's business; whether it shows the page is judged
    here the way the driver's own picture maps the page, so a rescaled screenshot is one finding, not two.
    """
    outcome = subject.call("screenshot", tab_id=tab_id)
    expect_done(outcome, clause)
    picture = decode_image(outcome.raw, clause)
    across, down = picture.width / viewport[0], picture.height / viewport[1]
    left, top, right, bottom = RED_BOX
    box = (round(left * across), round(top * down), round(right * across), round(bottom * down))
    return share_of_colour(picture, RED, box)


@pytest.mark.page("actions.html")
@pytest.mark.clause("BR-IMG-003")
def test_a_screenshot_follows_the_page_it_shows(subject: BrowserSubject, env: Environment) -> None:
    subject.require("screenshot")
    viewport = page_viewport(subject, "actions.html")
    first = _red_share(subject, None, "BR-IMG-003", viewport)
    expect(first > 0.9, "BR-IMG-003", f"the first screenshot does not show the red swatch ({first:.0%} match)")
    # Show another page (blank.html draws nothing red); an image of the earlier page is not "the current tab".
    position = mark(subject)
    if subject.implements("navigate"):
        expect_done(subject.call("navigate", url=env.url("blank.html"), tab_id=None), "BR-IMG-003")
        tab_id = None
    elif subject.implements("new_tab"):
        before = {tab["id"] for tab in subject.state()["tabs"]}
        expect_done(subject.call("new_tab", url=env.url("blank.html")), "BR-IMG-003")
        added = [tab["id"] for tab in subject.state()["tabs"] if tab["id"] not in before]
        tab_id = added[0] if added else None
    else:
        unverified("screenshot", "the kit needs navigate or new_tab to show a second page and screenshot it again")
    await_effect(
        subject, "BR-IMG-003", "load", effect_with(page="blank.html"), what="blank.html loading", after=position
    )
    subject.env.settle()
    second = _red_share(subject, tab_id, "BR-IMG-003", viewport)
    expect(
        second < 0.5,
        "BR-IMG-003",
        f"after blank.html replaced actions.html the screenshot still shows its red swatch ({second:.0%} match)",
    )
