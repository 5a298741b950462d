"""The evidence a failing check keeps: bounded values, images shown by size, small JPEG screenshots with the
aimed point drawn, and a note (never an exception) when no picture can be had."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from conformance import evidence
from conformance.harness.calls import CallRecord, RecordedCalls
from conformance.harness.errors import DriverTimeout


def _png(width: int, height: int, colour: str = "white") -> str:
    out = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(out, "PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


def _decoded(data_url: str) -> Image.Image:
    assert data_url.startswith("data:image/jpeg;base64,")
    return Image.open(io.BytesIO(base64.b64decode(data_url.split(",", 1)[1])))


def _logged(log: evidence.EvidenceLog, member: str, arguments: object, returned: object) -> None:
    record = CallRecord(member, arguments, False, returned=returned, finished=True)
    record.ended = record.started + 0.25
    log.add(RecordedCalls(member, [record]), arguments, lambda: {"ok": True})


def test_values_are_bounded_and_images_replaced_by_their_size() -> None:
    text = evidence.trimmed({"image_url": _png(4, 4), "title": "x" * 10_000})
    assert "<image/png, " in text and "characters of base64>" in text
    assert "iVBOR" not in text  # no base64 image data leaks into the text
    assert len(text) < evidence.VALUE_LIMIT + 100 and "characters in all" in text


def test_a_screenshot_becomes_a_small_jpeg_with_the_point_drawn_where_the_call_aimed() -> None:
    # A 2x screenshot of a 1280x720 viewport: the point (640, 360) in CSS pixels is the picture's centre.
    url = evidence.thumbnail(_png(2560, 1440), point=(640, 360), viewport=(1280, 720))
    picture = _decoded(url).convert("RGB")
    assert picture.width == evidence.THUMBNAIL_WIDTH and picture.height == 360
    centre_ring = picture.getpixel((320 + 7, 180))  # on the red ring around the centre
    corner = picture.getpixel((5, 5))
    assert isinstance(centre_ring, tuple) and centre_ring[0] > 150 and centre_ring[1] < 100, centre_ring
    assert isinstance(corner, tuple) and min(corner) > 240, corner  # the rest of the picture is untouched


def test_an_unreadable_image_is_a_note_not_an_error() -> None:
    def broken() -> object:
        return {"image_url": "data:image/png;base64,AAAA"}

    def raises() -> object:
        raise RuntimeError("the page crashed")

    assert evidence.picture(broken, None, None, "").note == (
        "the driver's screenshot is not an image format Pillow can read"
    )
    assert evidence.picture(raises, None, None, "").note == "the screenshot failed: RuntimeError: the page crashed"
    assert evidence.picture(lambda: "plain text", None, None, "").note.endswith("returned no image data URL")
    assert evidence.picture(None, None, None, "no screenshot member").note == "no screenshot member"


def test_gather_keeps_calls_in_order_the_last_point_and_the_checks_own_screenshot_as_before() -> None:
    log = evidence.EvidenceLog()
    _logged(log, "screenshot", {"tab_id": None}, {"type": "input_image", "image_url": _png(100, 50)})
    _logged(log, "click_at", {"tab_id": None, "x": 10, "y": 20}, "Clicked.")
    taken: list[str] = []

    def after() -> object:
        taken.append("after")
        return {"image_url": _png(100, 50, "black")}

    found = evidence.gather(log, effects=[{"kind": "click", "x": 19}], take_screenshot=after, no_screenshot="")
    assert [call["member"] for call in found["calls"]] == ["screenshot", "click_at"]
    assert found["calls"][1]["seconds"] == 0.25 and found["calls"][1]["sdk"] == '{"ok": true}'
    assert "<image/png" in found["calls"][0]["raw"]
    assert found["point"] == [10.0, 20.0] and taken == ["after"]
    assert _decoded(found["before"]["image"]).getpixel((2, 2)) != _decoded(found["after"]["image"]).getpixel((2, 2))
    assert found["effects"] == ['{"kind": "click", "x": 19}']


def test_without_a_screenshot_of_its_own_the_before_picture_says_why() -> None:
    found = evidence.gather(evidence.EvidenceLog(), effects=None, take_screenshot=None, no_screenshot="no member")
    assert found["before"] == {"image": None, "note": evidence.NO_BEFORE}
    assert found["after"] == {"image": None, "note": "no member"}
    assert found["effects"] is None and found["point"] is None


def test_only_the_last_calls_are_kept() -> None:
    log = evidence.EvidenceLog()
    for number in range(evidence.CALL_LIMIT + 5):
        _logged(log, "state", None, {"n": number})
    found = evidence.gather(log, effects=[], take_screenshot=None, no_screenshot="")
    assert len(found["calls"]) == evidence.CALL_LIMIT and found["omitted_calls"] == 5
    assert found["calls"][-1]["raw"] == '{"n": 44}'


@pytest.mark.parametrize("text", ["[]", "not json"])
def test_evidence_that_is_not_an_object_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        evidence.from_property(text)


def test_a_screenshot_the_failing_step_itself_caused_is_not_a_before_picture() -> None:
    # The SDK's computer toolset ends every action with a screenshot: that one shows the state after the step.
    log = evidence.EvidenceLog()
    step = RecordedCalls("click")
    step.calls += [
        CallRecord("click", {"x": 5, "y": 5}, False, finished=True),
        CallRecord("screenshot", None, False, returned={"image_url": _png(8, 8)}, finished=True),
    ]
    log.add(step, {"type": "click", "x": 5, "y": 5}, lambda: None)
    assert log.last_screenshot() is None
    _logged(log, "screenshot", None, {"image_url": _png(8, 8, "black")})
    _logged(log, "click", {"x": 1, "y": 1}, None)
    assert log.last_screenshot() == _png(8, 8, "black")


def test_a_screenshot_that_hangs_is_a_note_and_the_report_is_still_made() -> None:
    def hangs() -> object:
        raise DriverTimeout("screenshot", 60.0)

    assert evidence.picture(hangs, None, None, "").note.startswith("the screenshot failed: ")


def test_a_camera_pictures_the_page_before_each_step_and_its_own_calls_are_no_steps() -> None:
    # The evidence rerun's camera: called before every step but a screenshot step, through a path that logs too.
    log = evidence.EvidenceLog()
    colours = iter(["red", "blue"])

    def camera() -> object:
        _logged(log, "screenshot", {"tab_id": None}, None)  # the subject's direct path logs what it calls
        return {"image_url": _png(20, 10, next(colours))}

    log.camera = camera
    _logged(log, "screenshot", {"tab_id": None}, {"image_url": _png(20, 10, "black")})
    _logged(log, "click_at", {"tab_id": None, "x": 4, "y": 4}, "Clicked.")
    _logged(log, "read_page", {"tab_id": None}, "text")
    assert [logged.recorded.member for logged in log.calls] == ["screenshot", "click_at", "read_page"]
    assert log.calls[0].before is None  # a screenshot step is its own picture
    found = evidence.gather(log, effects=None, take_screenshot=None, no_screenshot="")
    # The picture before the failing (last) step is the camera's second one, not the check's own black one.
    pixel = _decoded(found["before"]["image"]).convert("RGB").getpixel((15, 8))
    assert isinstance(pixel, tuple) and pixel[2] > 200 and pixel[0] < 60, pixel


def test_a_camera_that_fails_leaves_a_note_before_that_step() -> None:
    log = evidence.EvidenceLog()

    def camera() -> object:
        raise RuntimeError("no page")

    log.camera = camera
    _logged(log, "click_at", {"tab_id": None, "x": 4, "y": 4}, "Clicked.")
    found = evidence.gather(log, effects=None, take_screenshot=None, no_screenshot="")
    assert found["before"] == {
        "image": None,
        "note": "the kit's screenshot before this step failed: RuntimeError: no page",
    }


def test_a_camera_whose_driver_hangs_ends_the_check() -> None:
    log = evidence.EvidenceLog()

    def camera() -> object:
        raise DriverTimeout("screenshot", 5.0)

    log.camera = camera
    with pytest.raises(DriverTimeout):
        _logged(log, "click_at", {"tab_id": None, "x": 4, "y": 4}, "Clicked.")
