"""The text of the README and of the docs site's pages, by page and section heading, and their code blocks.

The kit's tests hold its documentation to what the kit does: they run its code blocks and compare its figures and
tables with the data behind them. Each reads the text where it now lives through this module, so moving a section
to another page is one edit here or in the test's page name, never a broken string search.

    .venv/bin/python -m tools.docs_text block README "Install into your project" sh

prints the lines of that section's first ``sh`` block (``scripts/clean-venv.sh`` runs the install block this way).
"""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path
from typing import Final

REPOSITORY: Final = Path(__file__).resolve().parents[1]
DOCS: Final = REPOSITORY / "docs"
README: Final = "README"
# A fenced block: its language and its body (the body ends at the closing fence). Fences may be indented, as in
# a numbered list; the body is then dedented, as the reader copies it.
_BLOCK: Final = re.compile(r"^ *```(\w*)\n(.*?)^ *```", flags=re.S | re.M)
_HEADING: Final = re.compile(r"^(#{1,6}) (.+?)\s*$")
# A page of mkdocs.yml's nav: "  - Title: page.md".
_NAV_ENTRY: Final = re.compile(r"^\s*-\s*[^:\n]+:\s*(\S+\.md)\s*$", flags=re.M)


def path(page: str) -> Path:
    """The file of ``page``: ``README`` is the repository's README.md, any other name a page in docs/."""
    if page == README:
        return REPOSITORY / "README.md"
    return DOCS / (page if page.endswith(".md") else f"{page}.md")


def text(page: str) -> str:
    return path(page).read_text(encoding="utf-8")


def site_pages() -> list[str]:
    """The docs pages in the order of the site's navigation (mkdocs.yml), without their ``.md``."""
    config = (REPOSITORY / "mkdocs.yml").read_text(encoding="utf-8")
    return [name.removesuffix(".md") for name in _NAV_ENTRY.findall(config)]


def every_page() -> list[str]:
    """The README first, then every docs page in navigation order: all the text a reader can copy from."""
    return [README, *site_pages()]


def _headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(line index, level, title) of every heading outside fenced code."""
    found = []
    fenced = False
    for index, line in enumerate(lines):
        if line.lstrip(" ").startswith("```"):
            fenced = not fenced
            continue
        heading = None if fenced else _HEADING.match(line)
        if heading:
            found.append((index, len(heading.group(1)), heading.group(2)))
    return found


def section(page: str, heading: str) -> str:
    """The section of ``page`` under ``heading`` (its title, at any level): the heading line and everything up to
    the next heading of the same or a higher level, subsections included."""
    lines = text(page).splitlines(keepends=True)
    headings = _headings(lines)
    matches = [(index, level) for index, level, title in headings if title == heading]
    if len(matches) != 1:
        titles = [title for _, _, title in headings]
        raise LookupError(f"{path(page).name} has {len(matches)} sections titled {heading!r}; its headings: {titles}")
    start, level = matches[0]
    end = next((index for index, other, _ in headings if index > start and other <= level), len(lines))
    return "".join(lines[start:end])


def blocks(markdown: str, language: str | None = None) -> list[str]:
    """The bodies of the fenced code blocks in ``markdown``, in order; only those of ``language`` when given."""
    return [textwrap.dedent(body) for tag, body in _BLOCK.findall(markdown) if language is None or tag == language]


def tagged_blocks(markdown: str) -> list[tuple[str, str]]:
    """(language, body) of every fenced code block in ``markdown``, in order."""
    return [(tag, textwrap.dedent(body)) for tag, body in _BLOCK.findall(markdown)]


def main(argv: list[str]) -> int:
    if len(argv) != 4 or argv[0] != "block":
        print("usage: python -m tools.docs_text block PAGE HEADING LANGUAGE", file=sys.stderr)
        return 2
    _, page, heading, language = argv
    try:
        found = blocks(section(page, heading), language)
    except (LookupError, OSError) as error:
        print(f"docs_text: {error}", file=sys.stderr)
        return 1
    if not found:
        print(f"docs_text: no {language} block under {heading!r} in {path(page).name}", file=sys.stderr)
        return 1
    sys.stdout.write(found[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
