"""The fixture pages' one layout: every page the fixture server serves from a page file is a whole document with
the doctype, language, charset, its title and exactly one recorder tag; a whole-document file goes out as written."""

from __future__ import annotations

import re
import shutil
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance import resources
from conformance.harness import generated_pages, page_layout
from conformance.harness.fixture_server import FixtureServer

PAGES = resources.pages()
# desktop/ is shown by the desktop's own page server, which knows nothing of the layout.
PAGE_FILES = sorted(
    path.relative_to(PAGES).as_posix()
    for path in PAGES.rglob("*.html")
    if path.relative_to(PAGES).parts[0] != "desktop"
)
RECORDER = re.compile(r'<script src="((?:\.\./)*)recorder\.js"></script>')


def _fetch(url: str, method: str = "GET") -> tuple[int, bytes, str]:
    request = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, reply.read(), reply.headers.get("Content-Length", "")
    except urllib.error.HTTPError as error:
        return error.code, error.read(), error.headers.get("Content-Length", "")


def assert_laid_out(document: str, title: str, recorder: str) -> None:
    assert document.startswith('<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n')
    assert document.endswith("</body>\n</html>\n")
    assert re.findall(r"<title>(.*?)</title>", document, re.DOTALL) == [title]
    assert document.count('<meta charset="utf-8">') == 1
    assert document.count("<body>") == document.count("</head>") == 1
    assert RECORDER.findall(document) == [recorder], "exactly one recorder tag, addressed from the page's folder"
    placed = RECORDER.search(document)
    assert placed is not None and document.index("</head>") < document.index("<body>") < placed.start()


def test_a_page_file_gets_the_skeleton_and_one_recorder_at_the_end_of_its_body() -> None:
    served = page_layout.serve("<title>Tabs &amp; more</title>\n<body>\n<h1>A</h1>\n", "tabs.html")
    assert_laid_out(served, "Tabs &amp; more", "")
    assert served.endswith('<h1>A</h1>\n<script src="recorder.js"></script>\n</body>\n</html>\n')


def test_the_recorder_goes_where_the_page_marks_it_and_is_addressed_from_the_pages_folder() -> None:
    source = (
        "<title>T</title>\n<style>p {}</style>\n<body>\n<p>x</p>\n<!-- recorder -->\n<script>kitRecord()</script>\n"
    )
    served = page_layout.serve(source, "adversarial/page.html")
    assert_laid_out(served, "T", "../")
    assert "<style>p {}</style>\n</head>" in served
    assert '<p>x</p>\n<script src="../recorder.js"></script>\n<script>kitRecord()</script>\n</body>' in served


def test_a_whole_document_is_served_as_written() -> None:
    document = "<!DOCTYPE html>\n<html><head><title>Own</title></head><body>no recorder here</body></html>"
    assert page_layout.is_document(document)
    assert page_layout.serve(document, "own.html") == document


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("<h1>no title</h1>\n<body>\n", "exactly one <title>"),
        ("<title>A</title><title>B</title>\n<body>\n", "exactly one <title>"),
        ("<title>A</title>\n", "no <body> line"),
        ('<title>A</title>\n<body>\n<script src="recorder.js"></script>\n', "the layout adds the recorder"),
        ("<title>A</title>\n<body>\n<!-- recorder -->\n<!-- recorder -->\n", "loads once"),
        ("<body>\n<title>A</title>\n", "exactly one <title>"),
    ],
)
def test_a_page_file_the_layout_cannot_serve_is_refused(source: str, problem: str) -> None:
    with pytest.raises(page_layout.PageFormatError, match=re.escape(problem)):
        page_layout.serve(source, "broken.html")


def test_generated_pages_share_the_layout() -> None:
    built = generated_pages.build("long.html", {})
    assert built is not None
    assert_laid_out(built, "Long page", "../")


@pytest.fixture(scope="module")
def server() -> Iterator[FixtureServer]:
    with FixtureServer() as served:
        yield served


@pytest.fixture
def base(server: FixtureServer) -> Iterator[str]:
    sessions = server.session()
    token = next(sessions)
    try:
        yield f"{server.origin('main')}/s/{token}/"
    finally:
        sessions.close()


@pytest.mark.parametrize("page", PAGE_FILES)
def test_every_fixture_page_is_served_whole(base: str, page: str) -> None:
    source = (PAGES / page).read_text("utf-8")
    status, body, length = _fetch(base + page)
    assert status == 200
    assert _fetch(base + page, "HEAD")[2] == length == str(len(body))
    if page_layout.is_document(source):
        assert body == (PAGES / page).read_bytes()
        return
    title = re.search(r"<title>(.*?)</title>", source, re.DOTALL)
    assert title is not None, "the contract checks read a page's title from its file"
    assert_laid_out(body.decode("utf-8"), title.group(1), "../" * page.count("/"))


def test_a_broken_page_file_is_a_server_error_that_names_it(tmp_path: Path) -> None:
    shutil.copy(PAGES / "recorder.js", tmp_path / "recorder.js")
    (tmp_path / "untitled.html").write_text("<body>\n<p>no title</p>\n", "utf-8")
    with FixtureServer(pages=tmp_path) as server:
        sessions = server.session()
        status, body, _ = _fetch(f"{server.origin('main')}/s/{next(sessions)}/untitled.html")
        sessions.close()
    assert status == 500
    assert b"untitled.html: the head part needs exactly one <title>" in body
