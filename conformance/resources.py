"""Where the kit's run-time files are: the one place that finds them, installed from a wheel or in a checkout.

The fixture pages, the cassettes under ``fixtures/streams`` and the container build contexts are package data of
``conformance._data`` (setup.py maps the repository's ``fixtures/`` and ``containers/`` folders there), so
:mod:`importlib.resources` finds them the same way in a wheel, an sdist install and an editable checkout.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path
from typing import Final

FIXTURES_PACKAGE: Final = "conformance._data.fixtures"
CONTAINERS_PACKAGE: Final = "conformance._data.containers"


class ResourceError(FileNotFoundError):
    """A run-time file of the kit is missing from this installation; the message names it and the fix."""


def _root(package: str) -> Path:
    try:
        root = importlib.resources.files(package)
    except ModuleNotFoundError:
        raise ResourceError(
            f"the kit's data package {package} is not installed; reinstall responses-driver-kit from its wheel"
        ) from None
    # Servers, Docker and shell scripts need real folders: a kit imported from a zip file cannot give them.
    if not isinstance(root, Path):
        raise ResourceError(f"{package} is not a folder on disk ({root!r}); install the kit unzipped")
    return root


def fixtures(*parts: str) -> Path:
    """A path under the fixtures folder (``fixtures("pages", "forms.html")``); the folder itself with no parts."""
    return _root(FIXTURES_PACKAGE).joinpath(*parts)


def pages(*parts: str) -> Path:
    """A path under the fixture pages (``pages("desktop")`` is the local desktop's site)."""
    return fixtures("pages", *parts)


def streams(*parts: str) -> Path:
    """A path under the bundled cassettes (``streams("examples")``, ``streams("plain_text.jsonl")``)."""
    return fixtures("streams", *parts)


def containers(*parts: str) -> Path:
    """A path under the container build contexts (``containers("build-desktop-image.sh")``)."""
    return _root(CONTAINERS_PACKAGE).joinpath(*parts)


__all__ = ["ResourceError", "containers", "fixtures", "pages", "streams"]
