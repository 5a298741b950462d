"""Images: the image a screenshot or zoom returns, decoded and measured."""

from __future__ import annotations

import base64
import binascii
import io
from collections.abc import Mapping
from typing import Any, NoReturn

from PIL import Image

from conformance.assertions import precondition_failed, unverified, violation

PERMITTED_IMAGE_KEYS = frozenset({"type", "image_url", "file_id", "detail", "prompt_cache_breakpoint"})


# The clause that judges each image member's result itself; other checks stand on it to read the picture.
FORMAT_CLAUSES = {"screenshot": "BR-IMG-001", "zoom": "BR-IMG-004"}


def decode_image(image: Any, clause: str, member: str = "screenshot") -> Image.Image:
    """The pixels of an input_image's data URL; a file_id or an http(s) URL is valid but cannot be inspected here.

    Such an image leaves ``member`` unverified: it is valid, but the kit cannot see what it shows. An image that
    is not valid at all fails ``clause`` when that is the member's own format clause, and otherwise blocks the
    check on it: a picture that cannot be read says nothing about what it shows.
    """
    own = FORMAT_CLAUSES.get(member, clause)

    def bad(detail: str) -> NoReturn:
        if own == clause:
            violation(clause, detail)
        precondition_failed(own, detail)

    if not isinstance(image, Mapping):
        bad(f"the image result is {type(image).__name__}, not a dict")
    url = image.get("image_url")
    if not isinstance(url, str) or not url:
        if image.get("file_id"):
            unverified(member, "the kit can only inspect images returned as a data-URL image_url, not a file_id")
        bad("the image has neither image_url nor file_id")
    if url[:8].lower().startswith(("http://", "https://")):
        unverified(member, "the kit can only inspect images returned as a data-URL image_url (it fetches no URLs)")
    if not url.startswith("data:"):
        bad(f"image_url is neither a data URL nor an http(s) URL (it starts {url[:24]!r})")
    header, _, payload = url.partition(",")
    if ";base64" not in header:
        bad(f"the data URL is not base64 ({header[:40]!r})")
    try:
        data = base64.b64decode(payload, validate=True)
        picture = Image.open(io.BytesIO(data))
        picture.load()
    except (binascii.Error, ValueError, OSError) as error:
        bad(f"the data URL does not decode to an image: {type(error).__name__}")
    return picture.convert("RGB")


def share_of_colour(
    picture: Image.Image,
    colour: tuple[int, int, int],
    box: tuple[int, int, int, int] | None = None,
    tolerance: int = 60,
) -> float:
    """The share of pixels in ``box`` (default: all) within ``tolerance`` of ``colour`` on every channel."""
    region = picture.crop(box) if box else picture
    small = region.resize((max(1, region.width // 4), max(1, region.height // 4)))
    raw = small.convert("RGB").tobytes()  # portable across Pillow versions (getdata is deprecated)
    pixels = [raw[index : index + 3] for index in range(0, len(raw), 3)]
    if not pixels:
        return 0.0
    close = sum(1 for pixel in pixels if all(abs(int(a) - b) <= tolerance for a, b in zip(pixel, colour, strict=True)))
    return close / len(pixels)
