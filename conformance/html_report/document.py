"""The page shell every HTML report shares: the template, the inlined stylesheet and script, escaping helpers."""

from __future__ import annotations

import html
from functools import cache
from importlib import resources
from string import Template

PACKAGE = "conformance.html_report"


@cache
def _asset(name: str) -> str:
    return resources.files(PACKAGE).joinpath(name).read_text("utf-8")


def page(title: str, body: str, *, script: bool = False) -> str:
    """A whole HTML document around ``body`` (already escaped HTML), with the shared stylesheet inlined and, when
    ``script`` is set, the filtering script."""
    return Template(_asset("page.html")).substitute(
        title=html.escape(title), css=_asset("report.css"), body=body, js=_asset("report.js") if script else ""
    )


def esc(value: object) -> str:
    """``value`` as text safe inside HTML elements and quoted attributes."""
    return html.escape(str(value), quote=True)
