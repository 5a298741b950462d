"""Shared helpers for the computer checks: action builders, screenshot decoding, event filters."""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass

from openai.types.responses import computer_action as actions
from PIL import Image, ImageChops

from conformance.assertions import not_implemented, precondition_failed, unverified
from conformance.harness.computer_environment import ComputerEnvironment, Event
from conformance.harness.computer_subject import ComputerSubject

# The input recorder page leaves the screen right of its typing area and below its help text free: from x=620
# and y=260 to a margin from the right and bottom edges. Checks pick their points as fractions of that area, so
# they land in the same places relative to the page on any supported screen (1024x768, 1280x800, larger).
FREE_LEFT, FREE_TOP, FREE_MARGIN = 620, 260, 40
# Four well-separated points, and a drag path that turns twice.
POINT_FRACTIONS = ((0.125, 0.12), (0.4375, 0.32), (0.75, 0.68), (0.21875, 0.88))
PATH_FRACTIONS = ((0.15625, 0.14), (0.375, 0.2), (0.5625, 0.52), (0.28125, 0.76))


def _at(screen_size: tuple[int, int], fractions: tuple[tuple[float, float], ...]) -> list[tuple[int, int]]:
    width, height = screen_size
    free_width, free_height = width - FREE_MARGIN // 2 - FREE_LEFT, height - FREE_MARGIN - FREE_TOP
    return [(FREE_LEFT + round(fx * free_width), FREE_TOP + round(fy * free_height)) for fx, fy in fractions]


def free_area_point(environment: ComputerEnvironment, fraction_x: float, fraction_y: float) -> tuple[int, int]:
    """The screen point at these fractions of the page's free area on this desktop's screen."""
    return _at(environment.screen_size, ((fraction_x, fraction_y),))[0]


def points(environment: ComputerEnvironment) -> list[tuple[int, int]]:
    """The pointer checks' four screen points on this desktop's screen."""
    return _at(environment.screen_size, POINT_FRACTIONS)


def drag_path(environment: ComputerEnvironment) -> list[tuple[int, int]]:
    """The drag check's path on this desktop's screen."""
    return _at(environment.screen_size, PATH_FRACTIONS)


@dataclass(frozen=True)
class Shot:
    """A decoded screenshot and where it shows the screen: the screen point its top-left pixel shows (a cropped
    screenshot starts inside the screen) and the factor from screen pixels to its pixels."""

    image: Image.Image
    scale_x: float
    scale_y: float
    left: float = 0.0
    top: float = 0.0

    def to_shot(self, x: float, y: float) -> tuple[int, int]:
        """The screenshot pixel that shows screen point (x, y)."""
        return int((x - self.left) * self.scale_x), int((y - self.top) * self.scale_y)

    def box(self, left: float, top: float, right: float, bottom: float) -> tuple[int, int, int, int] | None:
        """The screenshot pixels showing the screen rectangle, or None when the screenshot does not show all of it."""
        (x0, y0), (x1, y1) = self.to_shot(left, top), self.to_shot(right, bottom)
        inside = 0 <= x0 < x1 <= self.image.width and 0 <= y0 < y1 <= self.image.height
        return (x0, y0, x1, y1) if inside else None

    @property
    def tolerance(self) -> float:
        """How far (screen pixels) a point may land from the one asked for, given the rounding scale implies."""
        return max(1.0, 1.0 / min(self.scale_x, self.scale_y)) + 0.5


MAGENTA = (255, 0, 255)
CYAN = (0, 255, 255)


def centre_of(image: Image.Image, colour: tuple[int, int, int]) -> tuple[float, float] | None:
    """The centre (in pixel edges, as the page measures boxes) of the pixels close to a pure ``colour``, or None."""
    bands = image.convert("RGB").split()
    masks = [
        band.point(lambda value, wanted=wanted: 255 if (value >= 200 if wanted else value <= 60) else 0)
        for band, wanted in zip(bands, (channel == 255 for channel in colour), strict=True)
    ]
    box = ImageChops.multiply(ImageChops.multiply(masks[0], masks[1]), masks[2]).getbbox()
    if box is None:
        return None
    left, top, right, bottom = box
    return (left + right) / 2, (top + bottom) / 2


def calibrated(image: Image.Image, environment: ComputerEnvironment) -> Shot | None:
    """Where ``image`` shows the screen, from the two calibration marks the page draws; None if either is missing.

    The documents let a driver send a scaled or a cropped screenshot as long as it maps points back (scale, then
    the crop's offset), so the kit judges where a point lands the way the screenshot itself shows the screen.
    """
    ready = environment.ready_event()
    mark_a, mark_b = ready.get("markA"), ready.get("markB")
    seen_a, seen_b = centre_of(image, MAGENTA), centre_of(image, CYAN)
    if not (isinstance(mark_a, list) and isinstance(mark_b, list) and seen_a and seen_b):
        return None
    (ax, ay), (bx, by) = (float(mark_a[0]), float(mark_a[1])), (float(mark_b[0]), float(mark_b[1]))
    (sax, say), (sbx, sby) = seen_a, seen_b
    if sbx <= sax or sby <= say:
        return None
    scale_x, scale_y = (sbx - sax) / (bx - ax), (sby - say) / (by - ay)
    return Shot(image, scale_x, scale_y, ax - sax / scale_x, ay - say / scale_y)


def decode_image_url(url: str) -> Image.Image:
    header, _, payload = url.partition(",")
    if not header.startswith("data:image/") or ";base64" not in header:
        raise ValueError(f"not a base64 image data URL: {url[:40]!r}")
    image = Image.open(io.BytesIO(base64.b64decode(payload, validate=True)))
    image.load()
    return image


def take_shot(subject: ComputerSubject) -> Shot:
    """The driver's screenshot, decoded and placed on the screen.

    A screenshot with the screen's proportions shows the whole screen at its scale; a cropped one is placed by the
    page's two calibration marks, and one that does not show them cannot be placed, so the check cannot aim and
    says so. Checks that need pixels skip drivers that only return file IDs.
    """
    return placed_shot(subject.screenshot(), subject.env)


def placed_shot(screenshot: object, environment: ComputerEnvironment) -> Shot:
    """What :func:`take_shot` makes of a screenshot the driver returned, however it was taken."""
    url = screenshot.get("image_url") if isinstance(screenshot, dict) else None
    if not url or not str(url).startswith("data:"):
        not_implemented("screenshots as data URLs (the suite cannot fetch file IDs or remote images)")
    image = decode_image_url(str(url))
    width, height = environment.screen_size
    if whole_screen(image, environment.screen_size):
        return Shot(image, image.width / width, image.height / height)
    placed = calibrated(image, environment)
    if placed is None:
        unverified(
            "screenshot",
            f"a {image.width}x{image.height} screenshot of a {width}x{height} screen is cropped, and it does not "
            "show the page's two calibration marks, so the kit cannot tell which screen point a pixel shows",
        )
    if not one_factor(placed):
        # Points on a picture scaled two ways cannot be aimed at: checks that aim stand on the screenshot's scale.
        precondition_failed(
            "CO-SHOT-002",
            f"the {image.width}x{image.height} screenshot shows the screen at {placed.scale_x:.3f}x horizontally and "
            f"{placed.scale_y:.3f}x vertically, so no point on it can be aimed at",
        )
    return placed


def one_factor(placed: Shot) -> bool:
    """Whether a placed screenshot shows the screen at one scale both ways (to the marks' rounding)."""
    slack = 3 / min(placed.image.width, placed.image.height)
    scale_x, scale_y = placed.scale_x, placed.scale_y
    return min(scale_x, scale_y) > 0 and abs(scale_x - scale_y) <= slack * max(1.0, scale_x, scale_y)


def whole_screen(image: Image.Image, screen_size: tuple[int, int]) -> bool:
    """Whether ``image`` has the screen's proportions (to a pixel of rounding), as a whole-screen picture has."""
    width, height = screen_size
    return abs(image.width / width - image.height / height) <= 2 / min(image.width, image.height)


def click(x: int, y: int, button: str = "left", keys: list[str] | None = None) -> actions.Click:
    return actions.Click(type="click", x=x, y=y, button=button, keys=keys)  # type: ignore[arg-type]


def of_type(events: list[Event], *types: str) -> list[Event]:
    return [event for event in events if event.get("type") in types]


def near(event: Event, x: float, y: float, tolerance: float) -> bool:
    return abs(float(event["x"]) - x) <= tolerance and abs(float(event["y"]) - y) <= tolerance


def describe(events: list[Event]) -> str:
    """A short, readable event list for failure messages."""
    parts = []
    for event in events[:30]:
        fields = [str(event.get("type"))]
        for key in ("x", "y", "button", "detail", "key", "data", "deltaX", "deltaY"):
            if event.get(key) not in (None, ""):
                fields.append(f"{key}={event[key]}")
        parts.append(" ".join(fields))
    more = f" ... (+{len(events) - 30})" if len(events) > 30 else ""
    return "[" + "; ".join(parts) + more + "]"
