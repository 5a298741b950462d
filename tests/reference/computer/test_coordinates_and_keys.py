"""The screenshot-to-screen mapping and the key name table, without a display."""

from __future__ import annotations

import pytest
from Xlib import XK

from reference.computer.coordinates import CoordinateMap, OffScreenError, Region
from reference.computer.keys import UnknownKeyError, char_keysym, key_keysym

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.desktop]


def test_native_scale_maps_points_unchanged() -> None:
    mapping = CoordinateMap(Region(0, 0, 1280, 800))
    assert mapping.screenshot_size == (1280, 800)
    assert mapping.to_screen(0, 0) == (0, 0)
    assert mapping.to_screen(1279, 799) == (1279, 799)


def test_half_scale_doubles_points_and_adds_the_region_offset() -> None:
    mapping = CoordinateMap(Region(100, 50, 1600, 1200), scale=0.5)
    assert mapping.screenshot_size == (800, 600)
    assert mapping.to_screen(0, 0) == (101, 51)
    assert mapping.to_screen(400, 300) == (100 + 801, 50 + 601)
    assert mapping.to_screen(799, 599) == (100 + 1599, 50 + 1199)


@pytest.mark.parametrize(("x", "y"), [(-1, 0), (0, -1), (800, 0), (0, 600)])
def test_points_off_the_screenshot_are_refused(x: int, y: int) -> None:
    with pytest.raises(OffScreenError, match="outside the 800x600 screenshot"):
        CoordinateMap(Region(0, 0, 1600, 1200), scale=0.5).to_screen(x, y)


@pytest.mark.parametrize("value", [True, 1.5, "3"])
def test_non_integer_coordinates_are_refused(value: object) -> None:
    with pytest.raises(TypeError):
        CoordinateMap(Region(0, 0, 10, 10)).to_screen(value, 1)  # type: ignore[arg-type]


@pytest.mark.parametrize("scale", [0, -0.5, 4.5])
def test_scale_must_be_positive_and_at_most_four(scale: float) -> None:
    with pytest.raises(ValueError, match="scale must be in"):
        CoordinateMap(Region(0, 0, 10, 10), scale=scale)


def test_an_enlarged_screenshot_maps_each_point_back() -> None:
    enlarged = CoordinateMap(Region(0, 0, 10, 10), scale=2.0)
    assert enlarged.screenshot_size == (20, 20)
    assert enlarged.to_screen(0, 0) == (0, 0) and enlarged.to_screen(19, 19) == (9, 9)


@pytest.mark.parametrize(
    ("name", "keysym_name"),
    [
        ("CTRL", "Control_L"),
        ("ctrl", "Control_L"),
        ("Enter", "Return"),
        ("ESC", "Escape"),
        ("ArrowLeft", "Left"),
        ("PAGE_DOWN", "Next"),
        ("cmd", "Super_L"),
        ("F12", "F12"),
        ("KP_Enter", "KP_Enter"),
        ("space", "space"),
    ],
)
def test_key_names(name: str, keysym_name: str) -> None:
    assert key_keysym(name) == XK.string_to_keysym(keysym_name)


def test_a_letter_in_a_combination_names_the_key_not_the_case() -> None:
    assert key_keysym("A") == key_keysym("a") == ord("a")


@pytest.mark.parametrize("name", ["NoSuchKey", "", "ctrl+alt"])
def test_unknown_key_names_raise(name: str) -> None:
    with pytest.raises(UnknownKeyError, match="unknown key name"):
        key_keysym(name)


def test_character_keysyms() -> None:
    assert char_keysym("a") == ord("a")
    assert char_keysym("ß") == 0xDF
    assert char_keysym("€") == 0x01000000 + 0x20AC
    assert char_keysym("\n") == XK.string_to_keysym("Return")
    with pytest.raises(ValueError, match="control character"):
        char_keysym("\x07")
