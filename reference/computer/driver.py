"""The reference synchronous computer driver: native computer actions on an X display (Xvfb) via XTEST.

Every method takes the SDK's generated action object (modern ``computer_action`` or legacy
``response_computer_tool_call`` models; plain dicts with the same fields work too) and either performs the whole
action or raises. Points are screenshot pixels (see :mod:`.coordinates`). Methods accept the SDK's optional
``cancelled`` probe and check it during long work (typing, drags, waits) and before screenshots; whatever was
pressed is released again when an action stops early.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Final, Self, TypedDict

from openai.lib.computer import Screenshot

from .capture import DEFAULT_PNG_LEVEL, ScreenCapture
from .coordinates import CoordinateMap, Region
from .keys import MODIFIER_KEYSYMS, char_keysym, key_keysym
from .x11_input import InputCancelled, X11Input

Cancelled = Callable[[], bool] | None

# X core pointer buttons for the computer tool's button names (8 and 9 are the side buttons browsers map to
# back and forward).
BUTTONS: Final[dict[str, int]] = {"left": 1, "wheel": 2, "right": 3, "back": 8, "forward": 9}
# Wheel buttons: 4 up, 5 down, 6 left, 7 right.
WHEEL_UP, WHEEL_DOWN, WHEEL_LEFT, WHEEL_RIGHT = 4, 5, 6, 7

DEFAULT_WAIT_SECONDS = 1.0
# Chromium and Firefox on X scroll about this many CSS pixels per wheel notch; scroll distances are converted to
# whole notches with it.
DEFAULT_PIXELS_PER_NOTCH = 120
DEFAULT_DRAG_STEP_SECONDS = 0.02
# Chromium reports a button event it handles late at the pointer position current when it handles it, and under
# load it can handle a press before the motion sent just ahead of it. So the pointer stays put this long after a
# release before it moves to another point (leaving at once can turn a click into a drag in the page's eyes), and
# this long after arriving at a new point before anything is pressed there.
DEFAULT_POINTER_SETTLE_SECONDS = 0.05
# The longest sleep between two checks of the cancellation probe during a wait.
_CANCEL_POLL_SECONDS = 0.02


class ActionCancelled(RuntimeError):
    """The action stopped because the caller's cancellation probe turned true."""


def field(action: Any, name: str) -> Any:
    """A field of a generated action model or of a plain dict; a missing field is an error, not a default."""
    if isinstance(action, dict):
        if name not in action:
            raise ValueError(f"{action.get('type', 'action')} action has no {name!r} field")
        return action[name]
    if not hasattr(action, name):
        raise ValueError(f"{getattr(action, 'type', 'action')} action has no {name!r} field")
    return getattr(action, name)


def optional_field(action: Any, name: str) -> Any:
    return action.get(name) if isinstance(action, dict) else getattr(action, name, None)


def _check(cancelled: Cancelled) -> None:
    if cancelled is not None and cancelled():
        raise ActionCancelled("the computer action was cancelled")


class XvfbOptions(TypedDict, total=False):
    """The driver's keyword options (see :class:`XvfbComputerDriver`), which the async driver takes as they are."""

    scale: float
    region: Region | None
    wait_seconds: float
    pixels_per_notch: int
    png_level: int
    drag_step_seconds: float


class XvfbComputerDriver:
    """Implements the SDK's ``ComputerDriver`` over one X display.

    ``scale`` is screenshot pixels per screen pixel (1.0 sends native pixels); ``region`` limits screenshots
    (and the points actions may name) to part of the screen. ``wait_seconds`` is how long a ``wait`` action
    pauses. Use as a context manager, or call :meth:`close`, to release the X connections.
    """

    def __init__(
        self,
        display: str,
        *,
        scale: float = 1.0,
        region: Region | None = None,
        wait_seconds: float = DEFAULT_WAIT_SECONDS,
        pixels_per_notch: int = DEFAULT_PIXELS_PER_NOTCH,
        png_level: int = DEFAULT_PNG_LEVEL,
        drag_step_seconds: float = DEFAULT_DRAG_STEP_SECONDS,
    ) -> None:
        if wait_seconds < 0 or drag_step_seconds < 0:
            raise ValueError(f"waits must be >= 0 seconds, got {wait_seconds} and {drag_step_seconds}")
        if pixels_per_notch <= 0:
            raise ValueError(f"pixels_per_notch must be positive, got {pixels_per_notch}")
        self._input = X11Input(display)
        try:
            screen = Region(0, 0, self._input.width, self._input.height)
            region = region or screen
            if (
                region.left < 0
                or region.top < 0
                or region.left + region.width > screen.width
                or region.top + region.height > screen.height
            ):
                raise ValueError(f"capture region {region} does not fit the {screen.width}x{screen.height} screen")
            self.coordinates = CoordinateMap(region, scale)
            self._capture = ScreenCapture(display, self.coordinates, png_level)
        except BaseException:
            self._input.close()
            raise
        self.display = display
        self.wait_seconds = wait_seconds
        self.pixels_per_notch = pixels_per_notch
        self.drag_step_seconds = drag_step_seconds
        self.pointer_settle_seconds = DEFAULT_POINTER_SETTLE_SECONDS
        self._last_release_point: tuple[int, int] | None = None
        self._last_release_time = 0.0
        self._pointer: tuple[int, int] | None = None

    # -- helpers ---------------------------------------------------------------------------------------------

    def _point(self, action: Any) -> tuple[int, int]:
        return self.coordinates.to_screen(field(action, "x"), field(action, "y"))

    def _move_pointer(self, x: int, y: int) -> None:
        """Move the pointer, first letting a release that just happened elsewhere settle, then letting the arrival
        settle before anything is pressed at the new point (see above)."""
        if (x, y) != self._last_release_point:
            remaining = self._last_release_time + self.pointer_settle_seconds - time.monotonic()
            if remaining > 0:
                time.sleep(remaining)
        self._input.move(x, y)
        if (x, y) != self._pointer:
            self._pointer = (x, y)
            time.sleep(self.pointer_settle_seconds)

    def _released(self, x: int, y: int) -> None:
        self._last_release_point = (x, y)
        self._last_release_time = time.monotonic()

    @contextmanager
    def _held(self, keys: Sequence[str] | None, cancelled: Cancelled) -> Iterator[None]:
        """Hold ``keys`` (modifiers or any other key) around the body; release them whatever happens."""
        keysyms = [key_keysym(name) for name in keys or ()]
        missing = [name for name, keysym in zip(keys or (), keysyms, strict=True) if not self._input.has_key(keysym)]
        if missing:
            raise ValueError(f"keys {missing!r} cannot be held: no key on this keyboard produces them")
        try:
            for keysym in keysyms:
                _check(cancelled)
                self._input.key_down(keysym)
            yield
        finally:
            self._input.release_all()

    def _run(self, body: Callable[[], None]) -> None:
        """Run one action; on any failure release what it pressed, and map input cancellation to ours."""
        try:
            body()
        except InputCancelled as error:
            raise ActionCancelled(str(error)) from error
        finally:
            self._input.release_all()

    def _at_point(self, action: Any, x: int, y: int, cancelled: Cancelled, then: Callable[[], None]) -> None:
        """Run a pointer action: hold the action's ``keys``, move the pointer to (x, y), then ``then`` there."""

        def body() -> None:
            with self._held(optional_field(action, "keys"), cancelled):
                self._move_pointer(x, y)
                then()

        self._run(body)

    def _click(self, action: Any, button: int, count: int, cancelled: Cancelled) -> None:
        x, y = self._point(action)
        _check(cancelled)

        def press() -> None:
            self._input.click(button, count=count)
            self._released(x, y)

        self._at_point(action, x, y, cancelled, press)

    # -- the nine driver methods -----------------------------------------------------------------------------

    def click(self, action: Any, *, cancelled: Cancelled = None) -> None:
        button_name = field(action, "button")
        if button_name not in BUTTONS:
            raise ValueError(f"unsupported mouse button {button_name!r}; expected one of {sorted(BUTTONS)}")
        self._click(action, BUTTONS[button_name], 1, cancelled)

    def double_click(self, action: Any, *, cancelled: Cancelled = None) -> None:
        self._click(action, BUTTONS["left"], 2, cancelled)

    def drag(self, action: Any, *, cancelled: Cancelled = None) -> None:
        path = field(action, "path")
        if len(path) < 2:
            raise ValueError(f"a drag needs at least two path points, got {len(path)}")
        points = [self.coordinates.to_screen(field(point, "x"), field(point, "y")) for point in path]
        _check(cancelled)

        def body() -> None:
            with self._held(optional_field(action, "keys"), cancelled):
                self._move_pointer(*points[0])
                self._input.button_down(BUTTONS["left"])
                for point in points[1:]:
                    _check(cancelled)
                    # Browsers on X merge motion events that are already queued, so a path sent in one burst
                    # arrives as its end point only; a short pause per point keeps every point.
                    time.sleep(self.drag_step_seconds)
                    self._input.move(*point)
                self._input.button_up(BUTTONS["left"])
                self._released(*points[-1])

        self._run(body)

    def keypress(self, action: Any, *, cancelled: Cancelled = None) -> None:
        keys = field(action, "keys")
        if not keys:
            raise ValueError("a keypress needs at least one key")
        keysyms = [key_keysym(name) for name in keys]
        _check(cancelled)
        if len(keysyms) == 1 and keysyms[0] not in MODIFIER_KEYSYMS and not self._input.has_key(keysyms[0]):
            # A lone symbol the keyboard lacks (keypress ["é"]): type it through a remapped key.
            self._run(lambda: self._input.type_keysyms(keysyms, cancelled))
            return
        missing = [name for name, keysym in zip(keys, keysyms, strict=True) if not self._input.has_key(keysym)]
        if missing:
            raise ValueError(f"keys {missing!r} cannot be combined: no key on this keyboard produces them")

        def body() -> None:
            # A combination: press in order, release in reverse (ctrl down, c down, c up, ctrl up).
            for keysym in keysyms:
                self._input.key_down(keysym)
            for keysym in reversed(keysyms):
                self._input.key_up(keysym)

        self._run(body)

    def move(self, action: Any, *, cancelled: Cancelled = None) -> None:
        x, y = self._point(action)
        _check(cancelled)
        self._at_point(action, x, y, cancelled, lambda: None)

    def scroll(self, action: Any, *, cancelled: Cancelled = None) -> None:
        x, y = self._point(action)
        scroll_x, scroll_y = field(action, "scroll_x"), field(action, "scroll_y")
        for name, value in (("scroll_x", scroll_x), ("scroll_y", scroll_y)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{name} must be an integer, got {value!r}")
        _check(cancelled)
        notches = [
            (WHEEL_DOWN if scroll_y > 0 else WHEEL_UP, self._notches(scroll_y)),
            (WHEEL_RIGHT if scroll_x > 0 else WHEEL_LEFT, self._notches(scroll_x)),
        ]

        def wheel() -> None:
            for button, count in notches:
                for _ in range(count):
                    _check(cancelled)
                    self._input.click(button)

        self._at_point(action, x, y, cancelled, wheel)

    def _notches(self, pixels: int) -> int:
        """Whole wheel notches for a distance in screenshot pixels; any nonzero distance is at least one notch."""
        if pixels == 0:
            return 0
        screen_pixels = abs(pixels) / self.coordinates.scale
        return max(1, round(screen_pixels / self.pixels_per_notch))

    def type(self, action: Any, *, cancelled: Cancelled = None) -> None:
        text = field(action, "text")
        if not isinstance(text, str):
            raise TypeError(f"type text must be a string, got {type(text).__name__}")
        keysyms = [char_keysym(char) for char in text]
        _check(cancelled)
        self._run(lambda: self._input.type_keysyms(keysyms, cancelled))

    def wait(self, action: Any = None, *, cancelled: Cancelled = None) -> None:
        deadline = time.monotonic() + self.wait_seconds
        while True:
            _check(cancelled)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            time.sleep(min(remaining, _CANCEL_POLL_SECONDS))

    def screenshot(self, *, cancelled: Cancelled = None) -> Screenshot:
        _check(cancelled)
        return {"type": "computer_screenshot", "image_url": self._capture.data_url()}

    # -- lifecycle -------------------------------------------------------------------------------------------

    @property
    def screen_size(self) -> tuple[int, int]:
        return self._input.width, self._input.height

    def close(self) -> None:
        try:
            self._capture.close()
        finally:
            self._input.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


__all__ = ["BUTTONS", "ActionCancelled", "XvfbComputerDriver", "field", "optional_field"]
