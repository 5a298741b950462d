"""The docs site builds offline with warnings as errors, every page it lists is built, and the README's install
words are the docs' (``scripts/clean-venv.sh`` runs the README's, so CI tests both)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.docs.site import build_site
from tools import docs_text


def test_the_site_builds_strictly_with_every_page(tmp_path: Path) -> None:
    seconds = build_site(tmp_path / "site")
    pages = docs_text.site_pages()
    assert pages[0] == "index" and len(pages) == len(set(pages))
    missing = [page for page in pages if not (tmp_path / "site" / f"{page}.html").is_file()]
    assert not missing, missing
    # Measured at about 1 s on the 2-core machine; a build this slow means something else is wrong.
    assert seconds < 60, f"mkdocs build took {seconds:.1f} s"


def test_every_docs_page_is_in_the_navigation() -> None:
    written = sorted(path.stem for path in docs_text.DOCS.glob("*.md"))
    assert written == sorted(docs_text.site_pages())


def test_the_readme_installs_as_the_docs_do() -> None:
    heading = "Install into your project"
    readme = docs_text.blocks(docs_text.section(docs_text.README, heading), "sh")
    docs = docs_text.blocks(docs_text.section("driver-authors", heading), "sh")
    assert readme and readme[0] == docs[0]


def test_the_readme_is_short_and_links_every_page() -> None:
    readme = docs_text.text(docs_text.README)
    assert len(readme.splitlines()) <= 160
    unlinked = [page for page in docs_text.site_pages() if f"docs/{page}.md" not in readme]
    assert not unlinked, unlinked


def _slug(heading: str) -> str:
    # The anchor MkDocs and GitHub both give a heading made of words, spaces and ordinary punctuation.
    return re.sub(r"[\s]+", "-", re.sub(r"[^\w\s-]", "", heading.lower()).strip())


def test_the_readmes_links_into_the_docs_resolve() -> None:
    links = re.findall(r"\]\((docs/[\w-]+\.md)(?:#([\w-]+))?\)", docs_text.text(docs_text.README))
    assert links
    for target, anchor in links:
        page = target.removeprefix("docs/").removesuffix(".md")
        assert page in docs_text.site_pages(), target
        if anchor:
            headings = re.findall(r"^#{1,6} (.+?)\s*$", docs_text.text(page), flags=re.M)
            assert anchor in {_slug(heading) for heading in headings}, f"{target}#{anchor}"
