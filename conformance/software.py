"""What software the driver under test runs on: its own package, its automation library and its browser.

A certificate records these, not the kit's own libraries: a driver built on Selenium must not be stamped with the
kit's Playwright. Everything here is read from the driver object and the modules loaded into the process; what
cannot be found is reported as unknown rather than guessed.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from functools import cache
from importlib import metadata
from types import ModuleType
from typing import Any, Final

# Libraries a driver automates a browser or a desktop with, by import name.
AUTOMATION_LIBRARIES: Final = (
    "playwright",
    "selenium",
    "pyppeteer",
    "undetected_chromedriver",
    "nodriver",
    "zendriver",
    "pydoll",
    "botasaurus",
    "splinter",
    "helium",
    "DrissionPage",
    "pyautogui",
    "pynput",
    "Xlib",
    "mss",
)


@cache
def _distributions() -> Mapping[str, list[str]]:
    return metadata.packages_distributions()


def distribution_of(module_name: str) -> tuple[str, str] | None:
    """``(distribution, version)`` of the installed distribution that provides ``module_name``, if any."""
    top = module_name.split(".", 1)[0]
    for name in _distributions().get(top, []):
        try:
            return name, metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return None


def _attributes(value: object, depth: int) -> Iterator[object]:
    """``value`` and the objects its attributes hold, ``depth`` levels down (no properties are evaluated)."""
    yield value
    if depth == 0:
        return
    try:
        fields = vars(value)
    except TypeError:
        return
    for item in list(fields.values()):
        if isinstance(item, (str, bytes, int, float, bool, type(None))):
            continue
        yield from _attributes(item, depth - 1)


def _browser_version(driver: object) -> str | None:
    """The version of the browser the driver launched, when an attribute holds one (Playwright, Selenium)."""
    for item in _attributes(driver, 3):
        module, name = type(item).__module__, type(item).__name__
        if module.startswith("playwright.") and name in ("Browser", "BrowserContext", "Page"):
            try:
                # Plain properties kept from the browser's handshake: reading them sends nothing to the browser.
                held: Any = item
                browser: Any = held.context.browser if name == "Page" else held.browser if name != "Browser" else held
                if browser is None:
                    continue
                return f"{browser.browser_type.name} {browser.version}"
            except Exception:
                continue
        if module.startswith("selenium.") and hasattr(item, "capabilities"):
            capabilities: Any = getattr(item, "capabilities", {}) or {}
            if isinstance(capabilities, dict) and capabilities.get("browserVersion"):
                return f"{capabilities.get('browserName', 'browser')} {capabilities['browserVersion']}"
    return None


def libraries_used(module_name: str) -> set[str]:
    """The automation libraries that the modules of the driver's own package refer to.

    The package is the one the driver's class module sits in (``mypkg.drivers`` for ``mypkg.drivers.core``), so
    libraries the kit itself loads (it drives the desktop's X server for its own input barrier) do not count.
    """
    package = module_name.rsplit(".", 1)[0] if "." in module_name else module_name
    used: set[str] = set()
    for name, module in list(sys.modules.items()):
        if module is None or not (name == package or name.startswith(package + ".")):
            continue
        for value in list(vars(module).values()):
            origin = value.__name__ if isinstance(value, ModuleType) else getattr(value, "__module__", None)
            root = origin.split(".", 1)[0] if isinstance(origin, str) else None
            if root in AUTOMATION_LIBRARIES:
                used.add(root)
    return used


def describe(driver: object) -> dict[str, str]:
    """Name and version of the driver's class, its package, the automation libraries loaded, and its browser.

    Call it on the thread that runs the driver's code: a sync Playwright object must not be touched elsewhere.
    """
    kind = type(driver)
    found = {"driver class": f"{kind.__module__}.{kind.__qualname__}"}
    owner = distribution_of(kind.__module__)
    found["driver package"] = f"{owner[0]} {owner[1]}" if owner else f"{kind.__module__} (not an installed package)"
    for library in sorted(libraries_used(kind.__module__)):
        provided = distribution_of(library)
        found[library] = provided[1] if provided else "loaded (version unknown)"
    found["browser"] = _browser_version(driver) or "unknown (the driver holds no browser object the kit can read)"
    return found
