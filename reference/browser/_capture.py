"""Image members: screenshot and zoom, both PNG data URLs of the visible viewport in CSS pixels."""

from __future__ import annotations

import base64

from openai.lib.browser import BrowserError, TabInput, ZoomInput
from openai.types.responses import ResponseInputImageContentParam

from reference.flows import Flow, call

from ._pointer import viewport
from ._session import BrowserSession, Cancelled, check_cancelled


def _image(png: bytes) -> ResponseInputImageContentParam:
    return {"type": "input_image", "image_url": "data:image/png;base64," + base64.b64encode(png).decode("ascii")}


def screenshot(session: BrowserSession, action: TabInput, cancelled: Cancelled) -> Flow[ResponseInputImageContentParam]:
    check_cancelled(cancelled)
    tab = session.tab(action["tab_id"])
    png = yield call(tab.page, "screenshot", type="png", animations="allow", caret="initial")
    return _image(png)


def zoom(session: BrowserSession, action: ZoomInput, cancelled: Cancelled) -> Flow[ResponseInputImageContentParam]:
    """Crop a region given in full-viewport coordinates; the driver's coordinates stay full-viewport after."""
    check_cancelled(cancelled)
    tab = session.tab(action["tab_id"])
    region = action["region"]
    if len(region) != 4:
        raise BrowserError("A zoom region is [left, top, right, bottom].")
    left, top, right, bottom = region
    width, height = yield from viewport(tab)
    if not (0 <= left < right <= width and 0 <= top < bottom <= height):
        raise BrowserError("The zoom region must lie inside the current viewport.")
    clip = {"x": left, "y": top, "width": right - left, "height": bottom - top}
    png = yield call(tab.page, "screenshot", type="png", clip=clip, animations="allow", caret="initial")
    return _image(png)
