"""One session's Python runtime: a process that keeps a namespace alive between calls.

Run as ``python -I runtime.py --memory BYTES ...`` by the service (never imported by it): the file depends only on
the standard library, Pillow and PyAutoGUI, so it can be copied into a desktop container as is.

Protocol: each request and reply is a 4-byte big-endian length and a UTF-8 JSON object, on the process's original
stdin and stdout. Those descriptors are moved aside at start-up and fds 0-2 are pointed at /dev/null, so nothing the
executed code or a C library prints can corrupt the protocol; ``print`` output is captured and returned as text.

The namespace holds PyAutoGUI (fail-safe left on), Pillow (``PIL``, ``Image``), ``time``, ``log(value)`` and
``display(image)`` (spec/003). ``pyautogui.screenshot`` grabs the X display in memory with Pillow, so no ``scrot``
or temporary files are needed.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import io
import json
import os
import re
import resource
import struct
import sys
import traceback
from typing import Any, BinaryIO

_HEADER = struct.Struct(">I")
_CODE_NAME = "<exec_py>"
_DATA_URL = re.compile(r"data:image/[A-Za-z0-9.+-]+;base64,[A-Za-z0-9+/=\s]{64,}")
_LONG_BASE64 = re.compile(r"[A-Za-z0-9+/=]{2000,}")


def read_frame(stream: BinaryIO) -> dict[str, Any] | None:
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (length,) = _HEADER.unpack(header)
    payload = stream.read(length)
    value = json.loads(payload)
    return value if isinstance(value, dict) else None


def write_frame(stream: BinaryIO, value: dict[str, Any]) -> None:
    payload = json.dumps(value).encode("utf-8", "surrogatepass")
    stream.write(_HEADER.pack(len(payload)) + payload)
    stream.flush()


def _looks_encoded(run: re.Match[str]) -> str:
    # A long run of one letter is ordinary (if silly) text; encoded binary mixes cases and digits.
    chunk = run.group(0)
    mixed = any(c.isupper() for c in chunk) and any(c.islower() for c in chunk) and any(c.isdigit() for c in chunk)
    return "[long base64 text removed]" if mixed else chunk


def scrub(text: str) -> str:
    """Keep image payloads out of text: the model gets images through display(), not as base64 prose."""
    text = _DATA_URL.sub("[image data removed; use display(image) to return an image]", text)
    return _LONG_BASE64.sub(_looks_encoded, text)


class Outputs:
    """What one call returns, in order, within the call's text and image budgets."""

    def __init__(self, max_text_bytes: int, max_images: int, max_image_bytes: int) -> None:
        self.items: list[dict[str, str]] = []
        self._text_left = max_text_bytes
        self._images_left = max_images
        self._max_image_bytes = max_image_bytes
        self._truncated = 0

    def text(self, text: str) -> None:
        text = scrub(text)
        encoded = text.encode("utf-8", "surrogatepass")
        if len(encoded) > self._text_left:
            self._truncated += len(encoded) - self._text_left
            text = encoded[: self._text_left].decode("utf-8", "ignore")
            self._text_left = 0
        else:
            self._text_left -= len(encoded)
        if text:
            self.items.append({"type": "input_text", "text": text})

    def image(self, image: Any) -> None:
        from PIL import Image

        if not isinstance(image, Image.Image):
            raise TypeError(f"display() takes a PIL image, not {type(image).__name__}")
        if self._images_left <= 0:
            self.note("display() ignored: this call already returned the maximum number of images.")
            return
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        png = buffer.getvalue()
        if len(png) > self._max_image_bytes:
            self.note(
                f"display() ignored: the PNG is {len(png)} bytes, over the {self._max_image_bytes}-byte limit; "
                "crop or resize it first."
            )
            return
        self._images_left -= 1
        url = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        self.items.append({"type": "input_image", "image_url": url, "detail": "original"})

    def note(self, text: str) -> None:
        # Notes from the runtime itself are not charged to the caller's text budget.
        self.items.append({"type": "input_text", "text": text})

    def finish(self) -> list[dict[str, str]]:
        if self._truncated:
            self.note(f"[text output truncated: {self._truncated} more bytes were not returned]")
        if not self.items:
            self.note("Finished with no output.")
        return self.items


def _x11_screenshot(image_filename: str | None = None, region: tuple[int, int, int, int] | None = None) -> Any:
    """pyautogui.screenshot over Pillow's X11 grab: in memory, on this process's DISPLAY."""
    from PIL import ImageGrab

    bbox = None if region is None else (region[0], region[1], region[0] + region[2], region[1] + region[3])
    image = ImageGrab.grab(bbox=bbox, xdisplay=os.environ.get("DISPLAY"))
    if image_filename is not None:
        image.save(image_filename)
    return image


def start_own_display(geometry: str) -> str:
    """Start an X server for this session alone and return its display name (``:N``).

    It listens only on its socket file in this sandbox's private ``/tmp``: no TCP, and no abstract socket (which
    lives in the network namespace, shared with the host under ``--allow-network``). It is a child of this
    process, in this sandbox's PID namespace, so it ends with the session.
    """
    import subprocess
    import time

    ready_read, ready_write = os.pipe()
    subprocess.Popen(
        ["Xvfb", "-displayfd", str(ready_write), "-screen", "0", geometry, "-nolisten", "tcp", "-nolisten", "local"],
        pass_fds=(ready_write,),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(ready_write)
    number = b""
    deadline = time.monotonic() + 15
    while not number.endswith(b"\n") and time.monotonic() < deadline:
        chunk = os.read(ready_read, 16)
        if not chunk:
            break
        number += chunk
    os.close(ready_read)
    if not number.strip().isdigit():
        raise RuntimeError("the session's own X server did not start")
    return f":{number.strip().decode()}"


def build_namespace(current: list[Outputs]) -> tuple[dict[str, Any], str | None]:
    """The persistent namespace, and a note when the desktop helpers are unavailable (no display)."""
    import time

    import PIL
    from PIL import Image

    namespace: dict[str, Any] = {"__name__": "__exec_py__", "time": time, "PIL": PIL, "Image": Image}

    def log(value: object) -> None:
        if isinstance(value, Image.Image):
            current[0].note("log() received an image; use display(image) to return it.")
            return
        current[0].text(value if isinstance(value, str) else repr(value))

    def display(image: object) -> None:
        current[0].image(image)

    namespace["log"] = log
    namespace["display"] = display
    # No X display or PyAutoGUI missing: say so instead of failing every call. SystemExit too: PyAutoGUI imports
    # MouseInfo, which calls sys.exit() when tkinter is not installed.
    try:
        # Neither package ships type information (the lead may add a mypy override for them instead).
        import pyautogui
        import pyscreeze
    except (Exception, SystemExit) as error:
        return namespace, f"PyAutoGUI is unavailable in this runtime ({type(error).__name__})."
    pyscreeze.screenshot = _x11_screenshot
    pyautogui.screenshot = _x11_screenshot
    pyautogui.FAILSAFE = True
    namespace["pyautogui"] = pyautogui
    return namespace, None


def _user_traceback(error: BaseException) -> str:
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename == _CODE_NAME]
    lines = ["Traceback (most recent call last):\n", *traceback.format_list(frames)]
    lines.extend(traceback.format_exception_only(type(error), error))
    return "".join(lines).rstrip()


def run(code: str, namespace: dict[str, Any], outputs: Outputs) -> None:
    printed = io.StringIO()
    try:
        compiled = compile(code, _CODE_NAME, "exec")
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            exec(compiled, namespace)
    except MemoryError:
        outputs.text(printed.getvalue())
        outputs.note("Error: the code exceeded this runtime's memory limit.")
        return
    except BaseException as error:  # the caller's code may raise anything, SystemExit included
        outputs.text(printed.getvalue())
        outputs.note(_user_traceback(error))
        return
    outputs.text(printed.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--memory", type=int, required=True)
    parser.add_argument("--max-text-bytes", type=int, required=True)
    parser.add_argument("--max-images", type=int, required=True)
    parser.add_argument("--max-image-bytes", type=int, required=True)
    options = parser.parse_args()

    # The sandbox already set this limit before the interpreter started; set again for a runtime run without it.
    resource.setrlimit(resource.RLIMIT_AS, (options.memory, options.memory))
    with contextlib.suppress(OSError):
        os.chdir(os.environ.get("HOME", "."))  # the session's scratch folder, its only writable place
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    sys.stdout = sys.stderr = io.TextIOWrapper(io.BufferedWriter(io.FileIO(null, "w", closefd=False)))

    own_display = os.environ.pop("KIT_OWN_DISPLAY", None)
    display_note: str | None = None
    if own_display:
        try:
            os.environ["DISPLAY"] = start_own_display(own_display)
        except (OSError, RuntimeError) as error:
            display_note = f"This session's own X display could not be started ({error})."
    current = [Outputs(0, 0, 0)]
    namespace, unavailable = build_namespace(current)
    unavailable = unavailable or display_note
    write_frame(replies, {"ready": True, "note": unavailable})
    while (request := read_frame(requests)) is not None:
        outputs = Outputs(options.max_text_bytes, options.max_images, options.max_image_bytes)
        current[0] = outputs
        if unavailable and "pyautogui" in request.get("code", ""):
            outputs.note(unavailable)
        run(str(request.get("code", "")), namespace, outputs)
        # The call number goes back with the reply, so the service can tell this reply from one the code forged.
        write_frame(replies, {"call": request.get("call"), "output": outputs.finish()})


if __name__ == "__main__":
    main()
