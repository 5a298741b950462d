"""Shared helpers for the computer checks: action builders, screenshot decoding, event filters."""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from typing import Any

from openai.types.responses import computer_action as actions
from PIL import Image

from conformance.assertions import not_implemented
from conformance.computer_harness import ComputerEnvironment, Event, call

# Screen points the pointer checks use: right of the typing area, clear of the page text.
POINTS = ((700, 320), (900, 420), (1100, 600), (760, 700))


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


def take_shot(driver: Any, environment: ComputerEnvironment) -> Shot:
    """The driver's screenshot, decoded; checks that need pixels skip drivers that only return file IDs."""
    screenshot = call(driver, "screenshot")
    url = screenshot.get("image_url") if isinstance(screenshot, dict) else None
    if not url or not str(url).startswith("data:"):
        not_implemented("screenshots as data URLs (the suite cannot fetch file IDs or remote images)")
    image = decode_image_url(str(url))
    width, height = environment.screen_size
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
