"""The page shell every HTML report shares: the template, the inlined stylesheet and script, escaping helpers.

The page's Content-Security-Policy lets nothing be fetched and runs only the stylesheet and script the kit
inlined, named by their SHA-256 hashes: should a driver's text ever slip past escaping, a ``<script>`` or
``<style>`` it made would not match a hash and would not run.
"""

from __future__ import annotations

import base64
import hashlib
from functools import cache
from importlib import resources
from string import Template

from conformance._safe_text import for_html

PACKAGE = "conformance.html_report"


@cache
def _asset(name: str) -> str:
    return resources.files(PACKAGE).joinpath(name).read_text("utf-8")


def source_hash(text: str) -> str:
    """The CSP source expression (``'sha256-...'``) that allows an inline element whose content is ``text``."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def page(title: str, body: str, *, script: bool = False) -> str:
    """A whole HTML document around ``body`` (already escaped HTML), with the shared stylesheet inlined and, when
    ``script`` is set, the filtering script."""
    css = _asset("report.css")
    js = _asset("report.js") if script else None
    scripts = source_hash(js) if js is not None else "'none'"
    # base-uri and form-action: default-src does not cover them, and a <base> or a form could send a reader away.
    policy = (
        f"default-src 'none'; img-src data:; style-src {source_hash(css)}; "
        f"script-src {scripts}; base-uri 'none'; form-action 'none'"
    )
    return Template(_asset("page.html")).substitute(
        policy=policy,
        title=esc(title),
        css=css,
        body=body,
        script="" if js is None else f"<script>{js}</script>",
    )


def esc(value: object) -> str:
    """``value`` as text safe inside HTML elements and quoted attributes (see conformance._safe_text)."""
    return for_html(value)
