"""What a failed or unverified check saw, kept so a driver author can look instead of reading one line of text.

A subject (browser or computer) logs every call a check makes through it in an :class:`EvidenceLog`. Nothing
else happens while checks pass: the log holds references the subject records anyway, and no screenshot is
taken. When a check ends failed or unverified, the plugin asks :func:`gather` for the check's evidence while
its driver is still alive:

- each call the check made: the member (or computer action), its arguments, what the driver itself returned
  (trimmed; images are replaced by their type and size), what the SDK made of it, and when and how long;
- what the fixture page recorded (the last :data:`EFFECT_LIMIT` effects), for browser checks;
- a screenshot before the failing step and one after it, taken by the kit from the driver's own ``screenshot``
  member; a driver without one, or one that fails, gets a note saying why instead. The point the failing step
  aimed at (``x``/``y`` of a pointer call) is drawn on both. The "before" picture is the one the log's
  :attr:`EvidenceLog.camera` took right before the step, when the check ran in evidence mode (the rerun of
  :mod:`conformance.evidence.rerun`); otherwise the last screenshot the check itself took before it, if any.

Screenshots are downscaled and JPEG-encoded (:func:`thumbnail`) so a certificate of many failures stays small.
The evidence travels from an xdist worker to the controller as one JSON user property (:data:`PROPERTY`).
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from PIL import Image, ImageDraw, UnidentifiedImageError

from conformance.harness.calls import CallRecord, RecordedCalls
from conformance.harness.errors import DriverTimeout, bounded, describe_error

PROPERTY = "driverkit-evidence"
# How much of each value the evidence keeps: enough to see what went wrong, bounded so a 10 MB driver answer
# cannot make a 10 MB certificate.
VALUE_LIMIT = 2_000
EFFECT_LIMIT = 40
CALL_LIMIT = 40
# Screenshots are shrunk to this width (never enlarged) and JPEG-encoded at this quality.
THUMBNAIL_WIDTH = 640
JPEG_QUALITY = 70
NO_BEFORE = "the check took no screenshot before its failing step (the kit takes none while checks pass)"
POINT_MEMBERS = frozenset({"click_at", "hover_at", "click", "double_click", "move", "drag", "scroll"})


@dataclass
class LoggedCall:
    """One call a check made through its subject, with what the SDK made of it (``sdk_view``).

    ``before`` is what the log's camera returned right before the call (a screenshot result), or the note saying
    why it has none; both stay None when no camera was set (every ordinary run).
    """

    recorded: RecordedCalls
    arguments: Any
    sdk_view: Callable[[], Any]
    started: float = field(default_factory=time.monotonic)
    before: Any = None
    before_note: str | None = None


class EvidenceLog:
    """Every call one check made through its subject, in order; cheap to keep, read only when the check fails.

    ``camera`` is None in an ordinary run, so a passing check never pays for a picture. The evidence rerun sets it
    to a function that takes a screenshot with the driver's own member; the log then calls it before every step
    (except a screenshot step, which is its own picture), so whichever step fails has a picture from just before.
    Every step, not only those that act: a read can fail because of what the page showed when it ran.
    """

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.calls: list[LoggedCall] = []
        self.camera: Callable[[], Any] | None = None
        self._picturing = False

    def add(self, recorded: RecordedCalls, arguments: Any, sdk_view: Callable[[], Any]) -> None:
        if self._picturing:
            # The camera's own screenshot call (made through the subject's direct path) is no step of the check.
            return
        logged = LoggedCall(recorded, arguments, sdk_view)
        if self.camera is not None and recorded.member != "screenshot":
            logged.before, logged.before_note = self._picture_now(self.camera)
        logged.started = time.monotonic()
        self.calls.append(logged)

    def _picture_now(self, camera: Callable[[], Any]) -> tuple[Any, str | None]:
        self._picturing = True
        try:
            return camera(), None
        except Exception as error:  # the driver is under test: its failing screenshot is only a note here
            # A DriverTimeout (a BaseException) is not caught: the driver hung, and the check ends as a hang.
            return None, f"the kit's screenshot before this step failed: {bounded(describe_error(error), 200)}"
        finally:
            self._picturing = False

    def pictured_before_last_step(self) -> tuple[str | None, str | None] | None:
        """The camera's picture before the last step (data URL, or None and why), or None when there was no camera
        picture to take there (no camera, no step, or a screenshot step)."""
        if not self.calls:
            return None
        last = self.calls[-1]
        if last.before is None and last.before_note is None:
            return None
        url = image_url(last.before)
        if url is None and last.before_note is None:
            return None, "the driver's screenshot before this step returned no image data URL"
        return url, last.before_note

    def last_point(self) -> tuple[float, float] | None:
        """Where the last pointer call aimed (its ``x``/``y``), to draw on the screenshots."""
        for logged in reversed(self.calls):
            arguments = logged.arguments if isinstance(logged.arguments, Mapping) else {}
            x, y = arguments.get("x"), arguments.get("y")
            if logged.recorded.member in POINT_MEMBERS and isinstance(x, int | float) and isinstance(y, int | float):
                return float(x), float(y)
        return None

    def last_screenshot(self) -> str | None:
        """The data URL of the last screenshot taken before the last step began, if any (the cheap "before").

        Screenshots the last step itself caused (the SDK's computer toolset ends every action with one) came
        after it, so they are not "before" pictures.
        """
        for position, logged in enumerate(reversed(self.calls)):
            records = logged.recorded.calls
            if position == 0:
                step = logged.recorded.member_call
                records = records[: records.index(step)] if step is not None and step.member != "screenshot" else []
            for record in reversed(records):
                url = image_url(record.returned) if record.member == "screenshot" and record.raised is None else None
                if url:
                    return url
        return None

    def to_json(self) -> list[dict[str, Any]]:
        return [_call_json(logged, self.started) for logged in self.calls[-CALL_LIMIT:]]


def _call_json(logged: LoggedCall, origin: float) -> dict[str, Any]:
    member_call = logged.recorded.member_call
    record: CallRecord | None = member_call
    return {
        "member": logged.recorded.member,
        "arguments": trimmed(logged.arguments),
        "at_s": round(logged.started - origin, 3),
        "seconds": round(record.seconds, 3) if record is not None and record.seconds is not None else None,
        "driver_calls": [call.member for call in logged.recorded.calls],
        "raw": None if record is None else trimmed(record.returned),
        "raised": None if record is None or record.raised is None else describe_error(record.raised),
        "sdk": trimmed(logged.sdk_view()),
    }


def image_url(value: Any) -> str | None:
    """The image data URL inside a screenshot result (a dict with ``image_url``, or the URL itself)."""
    if isinstance(value, Mapping):
        value = value.get("image_url")
    return value if isinstance(value, str) and value.startswith("data:image/") else None


def _without_images(value: Any) -> Any:
    if isinstance(value, str) and value.startswith("data:image/") and ";base64," in value:
        kind = value[len("data:") : value.index(";")]
        return f"<{kind}, {len(value):,} characters of base64>"
    if isinstance(value, Mapping):
        return {str(key): _without_images(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_without_images(item) for item in value]
    return value


def trimmed(value: Any, limit: int = VALUE_LIMIT) -> str:
    """``value`` as bounded text: JSON when it is JSON data, its repr otherwise; images shown by size only."""
    if isinstance(value, BaseException):
        return bounded(describe_error(value), limit)
    cleaned = _without_images(value)
    try:
        text = json.dumps(cleaned, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):
        text = repr(cleaned)
    return bounded(text, limit)


def thumbnail(data_url: str, point: tuple[float, float] | None = None, viewport: tuple[int, int] | None = None) -> str:
    """A small JPEG data URL of the image in ``data_url``, with ``point`` drawn on it.

    ``point`` is in the coordinates the driver was called with; ``viewport`` is their extent (CSS pixels of a
    page that may be screenshotted at another scale), so the mark lands where the call aimed. Raises
    ValueError when ``data_url`` holds no readable image.
    """
    try:
        encoded = data_url.split(",", 1)[1]
        image = Image.open(io.BytesIO(base64.b64decode(encoded, validate=True)))
        image.load()
    except (IndexError, binascii.Error) as error:
        raise ValueError(f"not base64 image data ({error})") from None
    except UnidentifiedImageError:
        raise ValueError("not an image format Pillow can read") from None
    except OSError as error:
        raise ValueError(f"a damaged image ({error})") from None
    original = image.size
    picture = image.convert("RGB")
    if picture.width > THUMBNAIL_WIDTH:
        picture = picture.resize((THUMBNAIL_WIDTH, max(1, round(picture.height * THUMBNAIL_WIDTH / picture.width))))
    if point is not None:
        extent = viewport or original
        x = point[0] * picture.width / max(1, extent[0])
        y = point[1] * picture.height / max(1, extent[1])
        draw = ImageDraw.Draw(picture)
        for radius, colour in ((9, "white"), (7, "red")):
            draw.ellipse((x - radius, y - radius, x + radius, y + radius), outline=colour, width=3)
        draw.line((x - 13, y, x + 13, y), fill="red", width=1)
        draw.line((x, y - 13, x, y + 13), fill="red", width=1)
    out = io.BytesIO()
    picture.save(out, "JPEG", quality=JPEG_QUALITY, optimize=True)
    return "data:image/jpeg;base64," + base64.b64encode(out.getvalue()).decode("ascii")


@dataclass(frozen=True)
class Picture:
    """A screenshot for the evidence, or why there is none."""

    image: str | None
    note: str

    def to_json(self) -> dict[str, Any]:
        return {"image": self.image, "note": self.note}


def picture(
    take: Callable[[], Any] | None,
    point: tuple[float, float] | None,
    viewport: tuple[int, int] | None,
    unavailable: str,
) -> Picture:
    """A thumbnail of what ``take()`` returns, or a note saying why there is none (``unavailable`` if no ``take``)."""
    if take is None:
        return Picture(None, unavailable)
    try:
        url = image_url(take())
    except DriverTimeout as timeout:
        # The harness has abandoned the driver (the check's teardown knows); the report must still be made.
        return Picture(None, f"the screenshot failed: {timeout}")
    except Exception as error:  # the driver is under test: any failure of its screenshot is only a note here
        return Picture(None, f"the screenshot failed: {bounded(describe_error(error), 200)}")
    if url is None:
        return Picture(None, "the driver's screenshot returned no image data URL")
    try:
        return Picture(thumbnail(url, point, viewport), "")
    except ValueError as error:
        return Picture(None, f"the driver's screenshot is {error}")


def gather(
    log: EvidenceLog,
    *,
    effects: Sequence[Mapping[str, Any]] | None,
    take_screenshot: Callable[[], Any] | None,
    no_screenshot: str,
    viewport: tuple[int, int] | None = None,
) -> dict[str, Any]:
    """The evidence of one check that did not pass (see the module docstring for what it holds).

    ``take_screenshot`` takes one with the driver's own member (None when the driver has none, ``no_screenshot``
    saying why); ``effects`` is what the fixture page recorded (None when the subject has no page record).
    """
    # Read before the kit's own screenshot call, which is no step of the check.
    calls, omitted = log.to_json(), max(0, len(log.calls) - CALL_LIMIT)
    point = log.last_point()
    pictured = log.pictured_before_last_step()
    if pictured is not None:
        url, note = pictured
        before = picture(lambda: url, point, viewport, "") if url else Picture(None, note or NO_BEFORE)
    else:
        before_url = log.last_screenshot()
        before = picture(lambda: before_url, point, viewport, "") if before_url else Picture(None, NO_BEFORE)
    after = picture(take_screenshot, point, viewport, no_screenshot)
    return {
        "calls": calls,
        "omitted_calls": omitted,
        "effects": None if effects is None else [trimmed(effect, 400) for effect in list(effects)[-EFFECT_LIMIT:]],
        "omitted_effects": 0 if effects is None else max(0, len(effects) - EFFECT_LIMIT),
        "point": None if point is None else list(point),
        "before": before.to_json(),
        "after": after.to_json(),
    }


def to_property(evidence: Mapping[str, Any]) -> str:
    return json.dumps(evidence, ensure_ascii=False)


def from_property(text: str) -> dict[str, Any]:
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("evidence is not a JSON object")
    return data
