"""``driverkit doctor``: what this machine can certify, and the one command that adds each missing piece.

Each line is one piece the kit uses: the Python packages it runs on, a Chromium Playwright can drive (browser
drivers), Xvfb, the X tools and a window manager (computer drivers on the local desktop), a Docker engine with
the desktop image (``--desktop=docker``), and Node with the npm ``openai`` (JavaScript drivers, ``node:...``). A
missing piece is named with the Debian/Ubuntu command that adds it; the summary says which kinds of
certification work here.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Final

SUPPORTED_PYTHON: Final = (3, 11)
DESKTOP_IMAGE: Final = os.environ.get("KIT_DESKTOP_IMAGE", "kit/desktop:latest")
DEBIAN_CHROMIUM: Final = "/usr/bin/chromium"
DEBIAN_HEADLESS_SHELL: Final = "/usr/bin/chromium-headless-shell"
SHELL_HINT: Final = "apt-get install -y chromium-headless-shell: headless checks in about a third of the CPU"
# The npm openai release the kit's Node checks were written against (its known deviations are for it).
NPM_OPENAI: Final = "7.55.0"
# Playwright for Node refuses older Node; the kit itself runs on 18 (conformance.node.bridge).
PLAYWRIGHT_NODE_MAJOR: Final = 20


@dataclass(frozen=True)
class Finding:
    """One piece: found (``detail`` says what and where) or missing (``fix`` is the command that adds it)."""

    area: str
    name: str
    found: bool
    detail: str
    fix: str = ""

    def render(self) -> str:
        mark = "ok     " if self.found else "MISSING"
        line = f"{mark} {self.name}: {self.detail}"
        return f"{line}\n        fix: {self.fix}" if self.fix and not self.found else line


def _package(name: str, fix: str) -> Finding:
    try:
        return Finding("python", name, True, metadata.version(name))
    except metadata.PackageNotFoundError:
        return Finding("python", name, False, "not installed", fix)


def _python() -> Finding:
    version = platform.python_version()
    supported = sys.version_info[:2] >= SUPPORTED_PYTHON
    wanted = ".".join(map(str, SUPPORTED_PYTHON))
    return Finding("python", "Python", supported, f"{version} at {sys.executable}", f"use Python {wanted} or newer")


def _playwright_chromium() -> Finding:
    name = "Chromium for Playwright"
    if os.environ.get("OPENAI_EXAMPLE_BROWSER_CHANNEL") == "chrome":
        chrome = shutil.which("google-chrome") or shutil.which("google-chrome-stable")
        if chrome:
            return Finding("browser", name, True, f"Google Chrome at {chrome} (OPENAI_EXAMPLE_BROWSER_CHANNEL)")
    named = os.environ.get("DRIVERKIT_CHROMIUM", "")
    if named:
        usable = os.path.isfile(named) and os.access(named, os.X_OK)
        detail = f"DRIVERKIT_CHROMIUM={named}" + ("" if usable else " is not an executable file")
        return Finding("browser", name, usable, detail, "unset DRIVERKIT_CHROMIUM or name a Chromium executable")
    shell = os.access(DEBIAN_HEADLESS_SHELL, os.X_OK)
    if os.access(DEBIAN_CHROMIUM, os.X_OK):
        headless = f"Debian's headless shell at {DEBIAN_HEADLESS_SHELL}" if shell else f"the same ({SHELL_HINT})"
        return Finding("browser", name, True, f"Debian's Chromium at {DEBIAN_CHROMIUM}; headless: {headless}")
    if shell:
        headed = "headless only: a headed browser needs apt-get install -y chromium"
        return Finding("browser", name, True, f"Debian's headless shell at {DEBIAN_HEADLESS_SHELL} ({headed})")
    bundled = _bundled_chromium()
    if bundled:
        return Finding("browser", name, True, f"Playwright's own Chromium at {bundled}")
    return Finding(
        "browser",
        name,
        False,
        "neither Debian's Chromium nor Playwright's own",
        "apt-get install -y chromium chromium-headless-shell",
    )


def _bundled_chromium() -> str | None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    try:
        with sync_playwright() as playwright:
            path = playwright.chromium.executable_path
    except Exception:  # no driver, no browser: nothing to report but "not found"
        return None
    return path if os.access(path, os.X_OK) else None


def _executable(area: str, name: str, executables: Sequence[str], package: str) -> Finding:
    found = [shutil.which(executable) for executable in executables]
    missing = [executable for executable, path in zip(executables, found, strict=True) if path is None]
    if missing:
        return Finding(area, name, False, f"{', '.join(missing)} not found", f"apt-get install -y {package}")
    return Finding(area, name, True, ", ".join(path for path in found if path))


def checkout() -> Path | None:
    """The kit's source checkout when it runs from one (its setup script beside the package), or None when it
    was installed from a wheel: the advice differs, a wheel user has no scripts/setup.sh to run."""
    root = Path(__file__).resolve().parents[1]
    return root if (root / "scripts" / "setup.sh").is_file() and (root / "pyproject.toml").is_file() else None


def _docker_engine() -> tuple[Finding, Finding]:
    engine = "Docker engine"
    image = f"desktop image {DESKTOP_IMAGE}"
    if shutil.which("docker") is None:
        fix = "apt-get install -y docker.io"
        return (
            Finding("docker", engine, False, "no docker command", fix),
            Finding("docker", image, False, "needs the engine", "driverkit desktop build"),
        )
    version = _run(["docker", "version", "--format", "{{.Server.Version}}"])
    if version is None:
        source = checkout()
        start = (
            f"bash {source / 'containers' / 'start-dockerd.sh'}" if source else "service docker start (or dockerd &)"
        )
        return (
            Finding("docker", engine, False, "no engine answers", start),
            Finding("docker", image, False, "needs the engine", "driverkit desktop build"),
        )
    image_id = _run(["docker", "image", "inspect", DESKTOP_IMAGE, "--format", "{{.Id}}"])
    return (
        Finding("docker", engine, True, f"server {version}"),
        Finding("docker", image, image_id is not None, image_id or "not built", "driverkit desktop build"),
    )


def _run(argv: list[str]) -> str | None:
    try:
        completed = subprocess.run(argv, capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return completed.stdout.strip() or None if completed.returncode == 0 else None


def _node() -> Finding:
    """The ``node`` the kit would start for JavaScript drivers (``DRIVERKIT_NODE`` or PATH), and whether it will do."""
    from conformance.node.bridge import NODE_INSTALL_HINT, NodeHostError, find_node, node_version

    try:
        node = find_node()
        major, minor = node_version(node)
    except (NodeHostError, OSError, subprocess.SubprocessError, ValueError) as error:
        return Finding("node", "node", False, str(error), NODE_INSTALL_HINT)
    detail = f"Node {major}.{minor} at {node}"
    if major < PLAYWRIGHT_NODE_MAJOR:
        detail += f" (Playwright for Node, so the reference Node browser driver, needs Node {PLAYWRIGHT_NODE_MAJOR}+)"
    return Finding("node", "node", True, detail)


def _npm_openai() -> Finding:
    """The Node SDK (npm ``openai``) the kit falls back to when a driver's own folder has none."""
    from conformance.node.bridge import host_script

    for folder in host_script().parents:
        manifest = folder / "node_modules" / "openai" / "package.json"
        if manifest.is_file():
            version = json.loads(manifest.read_text("utf-8")).get("version", "unknown version")
            return Finding("node", "npm openai", True, f"{version} at {manifest.parent}")
    source = checkout()
    fix = (
        f"bash {source / 'scripts' / 'setup.sh'}"
        if source
        else f"npm install openai@{NPM_OPENAI} in the driver's project (or point DRIVERKIT_NODE_OPENAI at one)"
    )
    return Finding(
        "node", "npm openai", False, "not installed next to the kit (a JavaScript driver may still bring its own)", fix
    )


def findings() -> list[Finding]:
    """Everything doctor looks at, in the order it reports it."""
    pip = f"{sys.executable} -m pip install"
    return [
        _python(),
        _package("openai", f"{pip} 'openai>=3.31'"),
        _package("playwright", f"{pip} playwright"),
        _package("pytest", f"{pip} pytest"),
        _package("python-xlib", f"{pip} 'responses-driver-kit[desktop]'"),
        _playwright_chromium(),
        _executable("desktop", "Xvfb", ["Xvfb"], "xvfb"),
        _executable("desktop", "X tools", ["xauth", "xdotool", "xdpyinfo"], "xauth xdotool x11-utils"),
        _executable("desktop", "window manager", ["openbox"], "openbox"),
        *_docker_engine(),
        _node(),
        _npm_openai(),
    ]


@dataclass(frozen=True)
class Capability:
    """A kind of certification: its ``--for`` name, how the summary names it, and the pieces it needs."""

    key: str
    what: str
    needs: frozenset[str]


_BASE: Final = frozenset({"Python", "openai", "pytest"})
CAPABILITIES: Final[tuple[Capability, ...]] = (
    Capability("browser", "browser drivers (--driver)", _BASE | {"playwright", "browser"}),
    Capability("sdk", "the installed SDK (--sdk)", _BASE),
    Capability(
        "computer", "computer drivers on this host (--computer-driver)", _BASE | {"python-xlib", "browser", "desktop"}
    ),
    Capability("docker", "computer drivers in Docker (--desktop=docker)", _BASE | {"python-xlib", "docker"}),
    Capability("node", "JavaScript drivers (node:PATH#EXPORT)", _BASE | {"node", "npm openai"}),
    Capability("node-sdk", "the npm openai (--sdk=node)", _BASE | {"node", "npm openai"}),
)
# What doctor answers for when not told: the README's main job.
DEFAULT_FOR: Final = "browser"


def _present(results: Sequence[Finding]) -> set[str]:
    ok = {result.name for result in results if result.found}
    areas = {result.area for result in results}
    return ok | {area for area in areas if all(r.found for r in results if r.area == area)}


def summary(results: Sequence[Finding]) -> list[str]:
    """One line per kind of certification: whether this machine can run it."""
    ok = _present(results)
    return [f"{'can' if capability.needs <= ok else 'cannot'} certify {capability.what}" for capability in CAPABILITIES]


def run(wanted: Sequence[str] = (DEFAULT_FOR,)) -> int:
    """Print every finding and the summary; 0 when every kind of certification in ``wanted`` can run here, 1 when
    one cannot (a missing piece that only other kinds need does not fail it)."""
    results = findings()
    source = checkout()
    print(f"kit: responses-driver-kit {_version()} from {'its checkout at ' + str(source) if source else 'a wheel'}")
    for result in results:
        print(result.render())
    print()
    for line in summary(results):
        print(line)
    ok = _present(results)
    blocked = [capability for capability in CAPABILITIES if capability.key in wanted and not capability.needs <= ok]
    if blocked:
        print(f"cannot run what was asked for: {', '.join(capability.what for capability in blocked)}")
    return 1 if blocked else 0


def _version() -> str:
    try:
        return metadata.version("responses-driver-kit")
    except metadata.PackageNotFoundError:
        return "(not installed)"


__all__ = ["CAPABILITIES", "DEFAULT_FOR", "Capability", "Finding", "checkout", "findings", "run", "summary"]
