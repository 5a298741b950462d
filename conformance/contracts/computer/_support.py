"""Shared helpers for the computer checks: action builders, screenshot decoding, event filters."""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass

from openai.types.responses import computer_action as actions
from PIL import Image

from conformance.assertions import not_implemented
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


def points(environment: ComputerEnvironment) -> list[tuple[int, int]]:
    """The pointer checks' four screen points on this desktop's screen."""
    return _at(environment.screen_size, POINT_FRACTIONS)


def drag_path(environment: ComputerEnvironment) -> list[tuple[int, int]]:
    """The drag check's path on this desktop's screen."""
    return _at(environment.screen_size, PATH_FRACTIONS)


@dataclass(frozen=True)
class Shot:
    """A decoded screenshot and the factor from screen pixels to its pixels."""

    image: Image.Image
    scale_x: float
    scale_y: float

    def to_shot(self, x: float, y: float) -> tuple[int, int]:
        """The screenshot pixel that shows screen point (x, y)."""
        return int(x * self.scale_x), int(y * self.scale_y)

    @property
    def tolerance(self) -> float:
        """How far (screen pixels) a point may land from the one asked for, given the rounding scale implies."""
        return max(1.0, 1.0 / min(self.scale_x, self.scale_y)) + 0.5


def decode_image_url(url: str) -> Image.Image:
    header, _, payload = url.partition(",")
    if not header.startswith("data:image/") or ";base64" not in header:
        raise ValueError(f"not a base64 image data URL: {url[:40]!r}")
    image = Image.open(io.BytesIO(base64.b64decode(payload, validate=True)))
    image.load()
    return image


def take_shot(subject: ComputerSubject) -> Shot:
    """The driver's screenshot, decoded; checks that need pixels skip drivers that only return file IDs."""
    screenshot = subject.screenshot()
    url = screenshot.get("image_url") if isinstance(screenshot, dict) else None
    if not url or not str(url).startswith("data:"):
        not_implemented("screenshots as data URLs (the suite cannot fetch file IDs or remote images)")
    image = decode_image_url(str(url))
    width, height = subject.env.screen_size
    return Shot(image, image.width / width, image.height / height)


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
