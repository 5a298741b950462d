"""Text a driver under certification influenced, made safe for the place a report writes it.

A driver under certification is hostile input: its page titles, URLs, exception messages, diagnostics, class
names and versions reach every report. Each writer takes that text through one function of this module, one
function per destination, so the same job is always done the same way:

- :func:`for_html`: text inside HTML elements and double-quoted attribute values (certificate.html, timelines);
- :func:`image_source`: the ``src`` of a picture, which must be an image data URL and nothing else;
- :func:`for_markdown`: inline text in certificate.md, safe in a table cell and at the start of a list item;
- :func:`markdown_code`: a code span in certificate.md (outside tables);
- :func:`for_terminal`: a line (or, for a failure report, lines) written to the terminal;
- :func:`valid_unicode`: a whole file's text before it is encoded.

Every function first makes the text valid Unicode: a lone surrogate (which UTF-8 cannot encode, so writing it
would raise) becomes U+FFFD. Then it cuts the text to a limit, saying how long the whole was (the marker is the
kit's own text, never escaped). Then it shows control characters as escapes (``\\x1b``, ``\\x9b``, ``\\u202e``):
C0 and C1 controls, DEL, the line and paragraph separators and the bidirectional overrides and isolates (which
make text read differently from what it is). A terminal would act on them; a page would hide them.

certificate.json is not written through here: it is data, and ``json.dumps`` escapes what JSON must. It keeps
strings as :func:`conformance.certificate.build` recorded them (reasons are bounded there; notes and versions
are kept whole), and only lone surrogates are replaced there too (:func:`valid_unicode`), so the file is UTF-8.
"""

from __future__ import annotations

import html
import re
from typing import Final

# Per field: enough for any real message (evidence values are bounded at 2,000 characters when gathered), small
# enough that a page of many hostile fields stays readable.
HTML_LIMIT: Final = 20_000
MARKDOWN_LIMIT: Final = 1_000
TERMINAL_LIMIT: Final = 300

_SURROGATE: Final = re.compile("[\ud800-\udfff]")
# What a terminal acts on or a reader cannot see: C0 (tab and newline kept when the text is several lines), DEL and
# C1, the line and paragraph separators, and the bidirectional embeddings, overrides and isolates.
_CONTROLS: Final = "\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_HIDDEN_IN_LINES: Final = re.compile(f"[{_CONTROLS}]")
_HIDDEN_IN_A_LINE: Final = re.compile(f"[\t\n{_CONTROLS}]")
_NAMED: Final = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
# Markdown punctuation that starts inline structure anywhere in a line: backslash escapes, code spans, emphasis,
# links and images (brackets), table cells, strikethrough. Raw HTML and autolinks need < and are entity-escaped.
_MARKDOWN_PUNCTUATION: Final = re.compile(r"[\\`*\[\]|~]|(?<![^\W_])_|_(?![^\W_])")
# What starts a block when it begins the text of a list item: a heading, a nested list, a thematic break (an
# address such as 127.0.0.1 starts none, and keeps its dot unescaped).
_MARKDOWN_LEADING: Final = re.compile(r"[#=]|[-+](?=\s|$|-)|\d{1,9}[.)](?=\s|$)")
_IMAGE_URL: Final = re.compile(r"data:image/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/]*={0,2}")


def valid_unicode(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD (a surrogate pair becomes the character it encodes)."""
    if not _SURROGATE.search(text):
        return text
    # UTF-16 is where surrogates belong: the round trip joins pairs and replaces only the halves without a partner.
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def bounded(text: str, limit: int) -> str:
    """``text`` itself, or its first ``limit`` characters and the size of the whole."""
    kept, marker = _cut(text, limit)
    return kept + marker


def _cut(text: str, limit: int) -> tuple[str, str]:
    if len(text) <= limit:
        return text, ""
    return text[:limit], f"... [{len(text):,} characters in all]"


def _shown(match: re.Match[str]) -> str:
    character = match.group()
    code = ord(character)
    return _NAMED.get(character) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def visible(text: str, *, lines: bool = False) -> str:
    """``text`` with control characters shown as escapes; ``lines`` keeps newlines and tabs as they are."""
    return (_HIDDEN_IN_LINES if lines else _HIDDEN_IN_A_LINE).sub(_shown, text)


def for_html(value: object, limit: int = HTML_LIMIT) -> str:
    """``value`` as text safe inside HTML elements and double-quoted attributes, cut to ``limit`` characters."""
    kept, marker = _cut(valid_unicode(str(value)), limit)
    return visible(html.escape(kept, quote=True), lines=True) + html.escape(marker)


def image_source(value: object) -> str | None:
    """``value`` when it is a base64 image data URL (the only pictures the kit makes), else None: whatever else a
    certificate's data holds there (``javascript:``, a web address, an SVG that could script) is never a src."""
    return value if isinstance(value, str) and _IMAGE_URL.fullmatch(value) else None


def _one_line(value: object, limit: int) -> tuple[str, str]:
    # A newline would end a table row or start a block: runs of whitespace become one space.
    return _cut(" ".join(valid_unicode(str(value)).split()), limit)


def for_markdown(value: object, limit: int = MARKDOWN_LIMIT) -> str:
    """``value`` as inline Markdown text that renders as exactly that text: in a table cell (pipes escaped), at the
    start of a list item (a leading ``#``, ``-`` or ``1.`` escaped), and without HTML, links or code spans."""
    kept, marker = _one_line(value, limit)
    text = _MARKDOWN_PUNCTUATION.sub(lambda match: "\\" + match.group(), kept)
    # Renderers pass raw HTML through, and <...> is also an autolink; an entity is shown as the character.
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    leading = _MARKDOWN_LEADING.match(text)
    if leading:
        end = leading.end() - 1
        text = f"{text[:end]}\\{text[end:]}"
    # Escapes last: they add backslashes, which a renderer shows as they are before a letter.
    return visible(text) + marker


def markdown_code(value: object, limit: int = MARKDOWN_LIMIT) -> str:
    """``value`` as a Markdown code span: its fence is longer than any run of backticks inside it (which would
    otherwise close it early), and it is padded when the text starts or ends with a backtick. Not for tables: a
    pipe inside a code span still splits a table row, and escaping it would show the backslash elsewhere."""
    kept, marker = _one_line(value, limit)
    text = visible(kept)
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if not text or text[0] in "` " or text[-1] in "` " else ""
    return f"{fence}{pad}{text}{pad}{fence}{marker}"


def for_terminal(value: object, limit: int = TERMINAL_LIMIT, *, lines: bool = False) -> str:
    """``value`` as text a terminal shows rather than obeys: one line unless ``lines`` (a failure report keeps
    its newlines and tabs), every other control character shown as an escape, cut to ``limit`` characters."""
    kept, marker = _cut(valid_unicode(str(value)), limit)
    return visible(kept, lines=lines) + marker


__all__ = [
    "HTML_LIMIT",
    "MARKDOWN_LIMIT",
    "TERMINAL_LIMIT",
    "bounded",
    "for_html",
    "for_markdown",
    "for_terminal",
    "image_source",
    "markdown_code",
    "valid_unicode",
    "visible",
]
