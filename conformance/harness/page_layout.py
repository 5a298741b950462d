"""The one skeleton every fixture page is served in: doctype, language, charset and the recorder script.

A page file under ``fixtures/pages`` holds only what is its own, in two parts split by a line that is exactly
``<body>``::

    <title>Tabs A</title>
    <body>
    <h1>Tab page A</h1>
    <p><a href="tabs-b.html">Go to tab page B</a></p>

Above that line is the head part: the page's ``<title>`` (required, exactly one) and any head extras (a
``<style>``, a comment), kept as written. Below it is the body part, kept as written. The fixture server serves::

    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    (the head part)
    </head>
    <body>
    (the body part)
    <script src="recorder.js"></script>
    </body>
    </html>

The recorder (``fixtures/pages/recorder.js``) is addressed from the page's folder (``../recorder.js`` one folder
down) and goes at the end of the body, or in place of a line ``<!-- recorder -->`` in the body part when the
page's own scripts call it while the page is parsed. Because the layout adds it, a page cannot forget it: the
kit would otherwise see a page whose recorder never loaded, and take a missing tag for a browser that could not
fetch from the kit.

A file that starts with ``<!doctype`` is a whole document and is served exactly as written. That is for the
pages that must not load the recorder (``adversarial/json-tamper.html`` forges ``JSON.stringify``, which the
recorder needs) or that another server shows (``desktop/``, served by the desktop's own page server).
The contract checks read a page's title from its file (``<title>...</title>``), which both forms keep.
"""

from __future__ import annotations

import html
import re

BODY_LINE = "<body>"
RECORDER_MARK = "<!-- recorder -->"

_DOCUMENT_START = re.compile(r"\A\ufeff?\s*<!doctype\s", re.IGNORECASE)
_TITLE_OPEN = re.compile(r"<title[\s>]", re.IGNORECASE)
_TITLE = re.compile(r"<title>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_RECORDER_TAG = re.compile(r"<script[^>]*recorder\.js", re.IGNORECASE)
_TOP = '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'


class PageFormatError(ValueError):
    """A page file that is neither a whole document nor a head part and a body part the layout can serve."""


def is_document(source: str) -> bool:
    """Whether ``source`` is a whole document (served as written) rather than a page for the layout."""
    return _DOCUMENT_START.match(source) is not None


def title(source: str) -> str | None:
    """The page's title as its file spells it (entities decoded), in either form of page file; None without one."""
    found = _TITLE.search(source)
    return html.unescape(found.group(1)) if found else None


def recorder_tag(relative: str) -> str:
    """The recorder's script tag for the page at ``relative`` (a path under the pages folder)."""
    return f'<script src="{"../" * relative.count("/")}recorder.js"></script>'


def compose(head: str, body: str, relative: str) -> str:
    """The document served for a page at ``relative`` whose head part is ``head`` and body part ``body``."""
    titles = len(_TITLE_OPEN.findall(head))
    if titles != 1:
        raise PageFormatError(f"{relative}: the head part needs exactly one <title>, it has {titles}")
    if _TITLE_OPEN.search(body):
        raise PageFormatError(f"{relative}: the <title> belongs above the {BODY_LINE} line")
    if _RECORDER_TAG.search(head + body):
        raise PageFormatError(f"{relative}: the layout adds the recorder; mark its place with {RECORDER_MARK}")
    marks = body.count(RECORDER_MARK)
    if marks > 1:
        raise PageFormatError(f"{relative}: {RECORDER_MARK} appears {marks} times; the recorder loads once")
    tag = recorder_tag(relative)
    head, body = _line_ended(head), _line_ended(body)
    body = body.replace(RECORDER_MARK, tag) if marks else body + tag + "\n"
    return f"{_TOP}{head}</head>\n{BODY_LINE}\n{body}</body>\n</html>\n"


def serve(source: str, relative: str) -> str:
    """What the fixture server sends for the page file at ``relative`` holding ``source``."""
    if is_document(source):
        return source
    lines = source.splitlines(keepends=True)
    split = next((index for index, line in enumerate(lines) if line.rstrip("\r\n") == BODY_LINE), None)
    if split is None:
        raise PageFormatError(f"{relative}: no {BODY_LINE} line between the head part and the body part")
    return compose("".join(lines[:split]), "".join(lines[split + 1 :]), relative)


def _line_ended(part: str) -> str:
    return part if not part or part.endswith("\n") else part + "\n"
