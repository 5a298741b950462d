"""The one coordinate space a driver shares with the model: screenshot pixels.

The model picks points on the screenshot it was sent, so every action point is in screenshot pixels. When the
screenshot is scaled (a 1600x1200 screen sent as 800x600) or shows only a region of the screen, the driver maps
each point back: divide by the scale, then add the region's offset. A point outside the screenshot is refused,
because clamping it would click somewhere the model did not choose.
"""

from __future__ import annotations

from dataclasses import dataclass


class OffScreenError(ValueError):
    """An action named a point outside the screenshot the model was shown."""


@dataclass(frozen=True)
class Region:
    """A rectangle of the screen in screen pixels."""

    left: int
    top: int
    width: int
    height: int


MAX_SCALE = 4.0


@dataclass(frozen=True)
class CoordinateMap:
    """Maps screenshot pixels to screen pixels for one screen ``region`` shown at ``scale``.

    ``scale`` is screenshot pixels per screen pixel: 0.5 sends a 1600x1200 region as 800x600. Above 1 the
    screenshot is enlarged (at most 4x): the documents ask only that screenshots and actions share one coordinate
    space, so a consumer that wants more pixels than the screen has may have them.
    """

    region: Region
    scale: float = 1.0

    def __post_init__(self) -> None:
        if not 0 < self.scale <= MAX_SCALE:
            raise ValueError(
                f"scale must be in (0, {MAX_SCALE:g}] (screenshot pixels per screen pixel), got {self.scale}"
            )
        if self.region.width <= 0 or self.region.height <= 0:
            raise ValueError(f"capture region must have a positive size, got {self.region}")

    @property
    def screenshot_size(self) -> tuple[int, int]:
        return (
            max(1, round(self.region.width * self.scale)),
            max(1, round(self.region.height * self.scale)),
        )

    def to_screen(self, x: int, y: int) -> tuple[int, int]:
        """The screen pixel for screenshot pixel (x, y); raises :class:`OffScreenError` off the screenshot."""
        width, height = self.screenshot_size
        if isinstance(x, bool) or isinstance(y, bool) or not isinstance(x, int) or not isinstance(y, int):
            raise TypeError(f"coordinates must be integers, got ({x!r}, {y!r})")
        if not (0 <= x < width and 0 <= y < height):
            raise OffScreenError(f"point ({x}, {y}) is outside the {width}x{height} screenshot")
        # Map the screenshot pixel's centre so a 0.5 scale lands mid-way in the 2x2 block it covers.
        screen_x = self.region.left + min(self.region.width - 1, int((x + 0.5) / self.scale))
        screen_y = self.region.top + min(self.region.height - 1, int((y + 0.5) / self.scale))
        return screen_x, screen_y


__all__ = ["CoordinateMap", "OffScreenError", "Region"]
