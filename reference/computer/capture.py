"""Screenshots of an X display, held in memory and returned as PNG data URLs (no temporary files)."""

from __future__ import annotations

import base64
import io

import mss
import mss.tools
from PIL import Image

from .coordinates import CoordinateMap

# zlib level 1 encodes a 1280x800 desktop several times faster than the default 6 for a modestly larger PNG;
# the screenshot is sent at once, so encode time matters more than bytes.
DEFAULT_PNG_LEVEL = 1


class ScreenCapture:
    """Grabs one region of a display with mss (XShm when the server shares memory, else XGetImage)."""

    def __init__(self, display_name: str, mapping: CoordinateMap, png_level: int = DEFAULT_PNG_LEVEL) -> None:
        if not 0 <= png_level <= 9:
            raise ValueError(f"png_level must be 0..9, got {png_level}")
        self._mapping = mapping
        self._png_level = png_level
        self._grabber = mss.MSS(display=display_name)

    def png(self) -> bytes:
        region = self._mapping.region
        shot = self._grabber.grab(
            {"left": region.left, "top": region.top, "width": region.width, "height": region.height}
        )
        target = self._mapping.screenshot_size
        if target == (shot.width, shot.height):
            encoded = mss.tools.to_png(shot.rgb, shot.size, level=self._png_level)
            assert encoded is not None  # to_png returns bytes when no output path is given
            return encoded
        image = Image.frombytes("RGB", shot.size, shot.rgb).resize(target, Image.Resampling.BILINEAR)
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", compress_level=self._png_level)
        return buffer.getvalue()

    def data_url(self) -> str:
        return "data:image/png;base64," + base64.b64encode(self.png()).decode("ascii")

    def close(self) -> None:
        self._grabber.close()


__all__ = ["DEFAULT_PNG_LEVEL", "ScreenCapture"]
