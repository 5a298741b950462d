"""Images as the checks judge them: a data URL that decodes to an image, base64 image payloads hidden in text, and
small images the kit makes itself (noise, so their base64 is long and mixed like a real screenshot's)."""

from __future__ import annotations

import base64
import binascii
import io
import os
import re
from typing import Final

from PIL import Image, UnidentifiedImageError

_DATA_URL: Final = re.compile(r"data:image/[A-Za-z0-9.+-]+;base64,([A-Za-z0-9+/=]+)\Z")
# A run of base64 this long is no prose: 1,000 characters carry 750 bytes, a very small image.
_BASE64_RUN: Final = re.compile(r"[A-Za-z0-9+/]{1000,}")
_IMAGE_MAGIC: Final = (b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"RIFF")
_INLINE_DATA_URL: Final = re.compile(r"data:image/[A-Za-z0-9.+-]+;base64,[A-Za-z0-9+/]{100,}")


def decoded_image_size(image_url: str) -> tuple[int, int] | None:
    """The pixel size of the image a data URL holds, or None when it holds none."""
    match = _DATA_URL.match(image_url)
    if match is None:
        return None
    try:
        with Image.open(io.BytesIO(base64.b64decode(match.group(1), validate=True))) as image:
            width, height = image.size
            return int(width), int(height)
    except (binascii.Error, ValueError, UnidentifiedImageError, OSError):
        return None


def image_payload_in(text: str) -> str | None:
    """A description of the base64 image payload ``text`` carries (an image data URL, or a long base64 run that
    decodes to an image file), or None."""
    inline = _INLINE_DATA_URL.search(text)
    if inline:
        return f"an image data URL of {len(inline.group(0)):,} characters"
    for run in _BASE64_RUN.finditer(text):
        head = run.group(0)[:24]
        try:
            start = base64.b64decode(head)
        except (binascii.Error, ValueError):
            continue
        if start.startswith(_IMAGE_MAGIC):
            return f"{len(run.group(0)):,} characters of base64 that decode to an image file"
    return None


def noise_png(width: int, height: int) -> bytes:
    image = Image.frombytes("RGB", (width, height), os.urandom(width * height * 3))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()
