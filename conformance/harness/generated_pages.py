"""Fixture pages too large to keep as files, built on request by the fixture server.

They are deterministic: the same name and query always give the same page, so a check can compute where a
marker sits or how many controls exist without reading the page.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from html import escape

from conformance.harness import page_layout

FOLDER = "gen/"  # where the fixture server serves them, beside the page files

LARGE_FORM_CONTROLS = 2000
LONG_PAGE_SIZE = (4000, 6000)  # CSS width, height
LONG_PAGE_MARKERS = ((0, 0), (1000, 2400), (3000, 5200))


def _page(name: str, title: str, body: str, head_extras: str = "") -> str:
    """The page in the fixture pages' one layout, as if it were a page file in :data:`FOLDER`."""
    return page_layout.compose(f"<title>{escape(title)}</title>{head_extras}", body, FOLDER + name)


def _int(query: Mapping[str, list[str]], name: str, default: int, low: int, high: int) -> int:
    try:
        value = int(query.get(name, [str(default)])[0])
    except ValueError:
        return default
    return max(low, min(high, value))


def large_form(query: Mapping[str, list[str]]) -> str:
    """2,000 labelled controls in four kinds, as in a long administrative form."""
    count = _int(query, "controls", LARGE_FORM_CONTROLS, 1, 20_000)
    parts = ["<h1>Large form</h1><form>"]
    for index in range(count):
        kind = index % 4
        if kind == 0:
            parts.append(f'<label>Field {index} <input name="f{index}" value="v{index}"></label>')
        elif kind == 1:
            parts.append(f'<label><input type="checkbox" name="c{index}"> Option {index}</label>')
        elif kind == 2:
            parts.append(
                f'<label>Choice {index} <select name="s{index}"><option value="a">Alpha</option>'
                f'<option value="b">Beta</option></select></label>'
            )
        else:
            parts.append(f'<button type="button" data-probe="b{index}">Action {index}</button>')
        if index % 8 == 7:
            parts.append("<br>")
    parts.append("</form>")
    return _page("large-form.html", "Large form", "".join(parts))


def huge(query: Mapping[str, list[str]]) -> str:
    """A page with ``nodes`` elements (default 50,000) of nested text, to prove reads stay bounded."""
    nodes = _int(query, "nodes", 50_000, 1, 500_000)
    parts = ["<h1>Huge page</h1>"]
    for index in range(nodes // 2):
        parts.append(f"<div><span>Row {index}</span></div>")
    parts.append('<button type="button" data-probe="end">End of huge page</button>')
    return _page("huge.html", "Huge page", "".join(parts))


def long(query: Mapping[str, list[str]]) -> str:
    """A page several viewports tall and wide with buttons at known document offsets."""
    width, height = LONG_PAGE_SIZE
    style = (
        f"<style>body{{margin:0;width:{width}px;height:{height}px;position:relative}}"
        ".marker{position:absolute;width:160px;height:40px}</style>"
    )
    parts: list[str] = []
    for index, (left, top) in enumerate(LONG_PAGE_MARKERS):
        parts.append(
            f'<button class="marker" type="button" data-probe="marker{index}" '
            f'style="left:{left}px;top:{top}px">Marker {index}</button>'
        )
    parts.append(f'<p style="position:absolute;top:{height - 60}px">Bottom of the long page</p>')
    return _page("long.html", "Long page", "".join(parts), style)


PAGES: Mapping[str, Callable[[Mapping[str, list[str]]], str]] = {
    "large-form.html": large_form,
    "huge.html": huge,
    "long.html": long,
}


def build(name: str, query: Mapping[str, list[str]]) -> str | None:
    """The generated page ``name`` for ``query``, or None when no such page exists."""
    builder = PAGES.get(escape(name))
    return builder(query) if builder else None
