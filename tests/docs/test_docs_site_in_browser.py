"""The built docs site, read in a browser: every page loads without a console error, every image on it loads, and
every internal link leads to a built page (and to its anchor, when the link names one).

The site is built as CI builds it (``mkdocs build --strict``), served over HTTP on 127.0.0.1 at a port the system
picks, and read in headless Chromium launched the way the reference driver launches it (``reference.browser``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urldefrag, urlsplit

import pytest

from reference.browser import launch
from tests.docs.site import build_site
from tools import docs_text

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser]


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The built site's address."""
    root = tmp_path_factory.mktemp("docs") / "site"
    build_site(root)
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_QuietHandler, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class _Reading:
    """What the browser found on one page."""

    errors: list[str] = field(default_factory=list)
    images: list[tuple[str, int]] = field(default_factory=list)  # (address, natural width)
    links: list[str] = field(default_factory=list)  # absolute addresses on the site's own origin
    anchors: set[str] = field(default_factory=set)  # every element ID on the page


def _read_every_page(site: str) -> dict[str, _Reading]:
    readings: dict[str, _Reading] = {}
    with launch() as process:
        context = process.browser.new_context()
        try:
            for name in docs_text.site_pages():
                reading = readings[name] = _Reading()
                page = context.new_page()
                page.on(
                    "console",
                    lambda message, r=reading: r.errors.append(message.text) if message.type == "error" else None,
                )
                page.on("pageerror", lambda error, r=reading: r.errors.append(str(error)))
                response = page.goto(f"{site}{name}.html", wait_until="load")
                assert response is not None and response.ok, f"{name}.html: {response and response.status}"
                seen = page.evaluate(
                    """() => ({
                        images: Array.from(document.images, (image) => [image.currentSrc, image.naturalWidth]),
                        links: Array.from(document.querySelectorAll("a[href]"), (link) => link.href),
                        anchors: Array.from(document.querySelectorAll("[id]"), (element) => element.id),
                    })"""
                )
                reading.images = [(address, width) for address, width in seen["images"]]
                reading.links = [link for link in seen["links"] if link.startswith(site)]
                reading.anchors = set(seen["anchors"])
                page.close()
        finally:
            context.close()
    return readings


def test_every_page_loads_its_images_and_links_resolve(site: str) -> None:
    readings = _read_every_page(site)
    errors = {name: reading.errors for name, reading in readings.items() if reading.errors}
    assert not errors, errors
    broken_images = [(name, address) for name, r in readings.items() for address, width in r.images if width <= 0]
    assert not broken_images, broken_images
    # The screenshots moved from the README are on the pages.
    assert sum(len(reading.images) for reading in readings.values()) >= 3

    unresolved = []
    for name, reading in readings.items():
        for link in reading.links:
            address, anchor = urldefrag(link)
            path = urlsplit(address).path.lstrip("/") or "index.html"
            target = path.removesuffix(".html")
            if target not in readings:
                unresolved.append(f"{name}: {link} (no such page)")
            elif anchor and anchor not in readings[target].anchors:
                unresolved.append(f"{name}: {link} (no #{anchor} on {path})")
    assert not unresolved, unresolved
    links = sum(len(reading.links) for reading in readings.values())
    images = sum(len(reading.images) for reading in readings.values())
    print(f"docs site in Chromium: {len(readings)} pages, {images} images, {links} internal links, all resolved")
