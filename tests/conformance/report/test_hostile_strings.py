"""A driver under certification is hostile input: every string it returns or raises reaches a report.

Each attack below is placed in every field a driver can influence (reasons, notes, what stopped the run, the
evidence of failed checks, the driver's class name and versions, its browser route, the replay timeline's recorded
requests, events, tool calls and local calls) and every writer must still show it only as text:

- certificate.html and the timeline: the same elements and attribute names as a page made from plain text, no
  ``on*`` attribute or script URL, no picture that is not an image data URL, a Content-Security-Policy that lets
  only the page's own script and stylesheet run (by their hashes), and no control character in the page's text;
- certificate.md: the same lines, block structure and inline punctuation as from plain text, every table row
  keeping its columns;
- the terminal (the certificate summary, ``driverkit replay``'s report, the failure reports of a certification
  run): no control character but the newline between lines;
- every file complete whatever the text: a lone surrogate, NUL or a megabyte of text neither stops a writer nor
  leaves a file cut short, and a huge string is cut with a marker saying how long it was (certificate.json keeps
  strings as the certificate recorded them: see conformance._safe_text).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, cast

import pytest

from conformance import certificate, reporting
from conformance.cassettes import Cassette, Exchange, RecordedRequest, RecordedResponse
from conformance.clauses import Clause, registry
from conformance.fake_responses import Divergence, SentRequest
from conformance.html_report import render_certificate, timeline
from conformance.replay import ReplayReport, ReplayTrace, unified_diff
from conformance.session import CertificationSession, CheckResult, ClauseResult
from reference.browser import launch

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser, pytest.mark.child_run]

# Each distinct attack ends with this word, so a test can count that the text was shown, neither dropped nor merged.
TAIL = "zzend"
PLAIN = f"plain text {TAIL}"
ATTACKS: dict[str, str] = {
    "script element": '<script>alert("script")</script>',
    "event handlers": "<img src=x onerror=alert(1)><svg/onload=alert(2)><body onload=alert(3)>",
    "iframe and script urls": '<iframe src="javascript:alert(1)"></iframe><a href="javascript:alert(2)">x</a>',
    "attribute breakout": '"\'><script>alert(1)</script><b title="',
    "script end and comment": "</script><!--<script>alert(1)//--></style><base href=//evil.example>",
    "markdown table pipes": "a | b || c \\| d \\",
    "markdown newline heading": "line one\n# Heading\n\n<div>a block</div>\n| x | y |\n---",
    "markdown leading heading": "# not a heading",
    "markdown leading list": "1. one - [ref]: https://evil.example",
    "markdown links": "[click](javascript:alert(1)) ![pixel](https://evil.example/p.png) <https://evil.example>",
    "markdown backticks": "`` ` ``` code ```` ends with `",
    "markdown emphasis and entities": "**bold** _it_ ~~gone~~ &lt;script&gt; &#60;",
    "terminal csi": "\x1b[2J\x1b[1;31mRED\x1b[0m\x1b[1A",
    "terminal osc 8 and 52": "\x1b]8;;https://evil.example\x07click\x1b]8;;\x07\x1b]52;c;cHduZWQ=\x1b\\",
    "terminal carriage return and bell": "verdict: conforms\r\x07\x08\x7f",
    "terminal c1 controls": "\x9b2J\x9d0;title\x9c\x85\x90q",
    "bidi overrides": "\u202eevil\u202c \u2066x\u2069 \u2028next",
    "nul": "a\x00b",
    "lone surrogates": "\ud800 and \udfff",
}
IDS = list(ATTACKS)
# What no writer's text may carry: C0 controls, DEL, C1 controls, the separators and the bidirectional controls.
FORBIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
FORBIDDEN_IN_PAGES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
IMAGE = "data:image/jpeg;base64,/9j/AAAA"
MEGABYTE = 1_000_000


def _hostile(attack: str) -> str:
    return f"{ATTACKS[attack]} {TAIL}"


def _clause(clause_id: str, member: str | None) -> Clause:
    return Clause(clause_id, "002", "Driver contract", f"summary of {clause_id}", member)


def _evidence(text: str, image: str) -> dict[str, Any]:
    call = {
        "member": text,
        "arguments": text,
        "at_s": 0.5,
        "seconds": 0.1,
        "driver_calls": [text],
        "raw": text,
        "raised": None,
        "sdk": text,
    }
    return {
        "calls": [call, {**call, "raised": text}],
        "omitted_calls": 0,
        "effects": [text, text],
        "omitted_effects": 0,
        "point": [1.0, 2.0],
        "before": {"image": None, "note": text},
        "after": {"image": image, "note": text},
        "rerun": {"note": text, "repeated": False, "seconds": 1.0},
    }


def _certificate(text: str, image: str = IMAGE) -> dict[str, Any]:
    """A certificate with ``text`` in every field a driver influences (and the driver's name, which a user gives)."""
    profile = {
        "flavour": text,
        "implemented": [text, "click"],
        "browser route": text,
        "fixture host": text,
        "screen size": text,
        "software": {"driver class": text, text: text},
    }
    subjects = [certificate.CertifiedSubject("browser driver", text, profile)]
    check = f"check_x.py::test_{text}"
    results = [
        ClauseResult(_clause("BR-A-001", "click"), "failed", [check], [text]),
        ClauseResult(
            _clause("BR-A-002", "click"),
            "not_checked",
            ["m::c2"],
            [f"blocked by BR-A-001 ({text})"],
            [],
            "blocked",
            "BR-A-001",
        ),
        ClauseResult(_clause("BR-A-003", "hover"), "unverified", ["m::c3"], [text], [text]),
        ClauseResult(_clause("BR-A-004", None), "not_checked", ["m::c4"], [text], [], "environment"),
        ClauseResult(_clause("BR-A-005", None), "passed", ["m::c5"]),
    ]
    evidence = {check: _evidence(text, image), "m::c3": _evidence(text, image)}
    return certificate.build(subjects, results, incomplete=[text], notes=[text], evidence=evidence)


def _write(directory: Path, built: dict[str, Any]) -> dict[str, str]:
    """Write the certificate with the kit's writer; each file read back as strict UTF-8."""
    paths = certificate.write(directory, built)
    return {path.suffix[1:]: path.read_bytes().decode("utf-8") for path in paths}


# ----------------------------------------------------------------------------------------------------- HTML


class _Page(HTMLParser):
    """A page as a browser's parser sees it: its elements with their attributes, its text, its scripts and styles."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.text: list[str] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self._raw: str | None = None
        self.feed(page)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, attrs))
        if tag in ("script", "style"):
            self._raw = ""

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, attrs))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._raw is not None:
            (self.scripts if tag == "script" else self.styles).append(self._raw)
            self._raw = None

    def handle_data(self, data: str) -> None:
        if self._raw is not None:
            self._raw += data
        else:
            self.text.append(data)

    def shape(self) -> list[tuple[str, tuple[str, ...]]]:
        return [(tag, tuple(name for name, _ in attrs)) for tag, attrs in self.elements]

    def policy(self) -> dict[str, str]:
        for tag, attrs in self.elements:
            values = dict(attrs)
            if tag == "meta" and (values.get("http-equiv") or "").lower() == "content-security-policy":
                directives = (part.strip().split(None, 1) for part in (values.get("content") or "").split(";"))
                return {part[0]: part[1] if len(part) > 1 else "" for part in directives if part}
        return {}


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def _assert_only_text(hostile: str, plain: str) -> None:
    """``hostile`` (a page made from attack text) has exactly the elements of ``plain`` (the same page from plain
    text), no script URL or event handler, and shows the attack as text, each occurrence of it."""
    found, expected = _Page(hostile), _Page(plain)
    assert found.shape() == expected.shape()
    assert found.scripts == expected.scripts and found.styles == expected.styles
    for tag, attrs in found.elements:
        for name, value in attrs:
            assert not name.startswith("on"), (tag, name, value)
            assert not re.match(r"\s*(javascript|vbscript|data:text)", value or "", re.I), (tag, name, value)
            if name == "src":
                assert (value or "").startswith("data:image/"), (tag, value)
    text = "".join(found.text)
    assert text.count(TAIL) == "".join(expected.text).count(TAIL)
    assert not FORBIDDEN_IN_PAGES.search(text), repr(FORBIDDEN_IN_PAGES.findall(text)[:5])


def _assert_policy(page: str, *, script: bool) -> None:
    """Only the page's own stylesheet and script (by their hashes) may run; nothing may be fetched or submitted."""
    parsed = _Page(page)
    policy = parsed.policy()
    assert policy.get("default-src") == "'none'"
    assert policy.get("img-src") == "data:"
    assert policy.get("base-uri") == "'none'" and policy.get("form-action") == "'none'"
    assert [_sha256(style) for style in parsed.styles] == [policy.get("style-src")]
    if script:
        assert len(parsed.scripts) == 1
        assert policy.get("script-src") == _sha256(parsed.scripts[0])
    else:
        assert parsed.scripts == [] and policy.get("script-src") == "'none'"
    assert "unsafe" not in " ".join(policy.values())


@pytest.mark.parametrize("attack", IDS)
def test_certificate_html_shows_hostile_text_only_as_text(attack: str, tmp_path: Path) -> None:
    hostile = _write(tmp_path / "hostile", _certificate(_hostile(attack)))["html"]
    plain = _write(tmp_path / "plain", _certificate(PLAIN))["html"]
    _assert_only_text(hostile, plain)


@pytest.mark.parametrize(
    "image",
    [
        "javascript:alert(1)",
        '" onerror="alert(1)',
        "data:text/html,<script>alert(1)</script>",
        "data:image/svg+xml,<svg onload=alert(1)>",
        "https://evil.example/pixel.png",
    ],
)
def test_a_picture_that_is_not_an_image_data_url_is_never_a_source(image: str, tmp_path: Path) -> None:
    hostile = _write(tmp_path / "hostile", _certificate(PLAIN, image))["html"]
    plain = _write(tmp_path / "plain", _certificate(PLAIN, "not a picture"))["html"]
    _assert_only_text(hostile, plain)


def test_certificate_html_runs_only_its_own_script_and_stylesheet() -> None:
    _assert_policy(render_certificate(_certificate(PLAIN)), script=True)


def test_a_script_that_slipped_past_escaping_would_not_run_in_a_browser(tmp_path: Path) -> None:
    """The policy is the second line: a page given a script and a handler the kit did not write (as if escaping had
    failed) runs neither, and still runs its own script, which fills in how many clause rows it shows."""
    page = render_certificate(_certificate(PLAIN))
    count = re.search(r'<span id="shown-count">(\d+)</span>', page)
    assert count is not None
    injected = '<script>document.title = "injected"</script><img src=x onerror="document.title = \'handler\'">'
    tampered = page.replace(count.group(0), '<span id="shown-count">not run</span>').replace(
        "<main>", f"<main>{injected}"
    )
    path = tmp_path / "tampered.html"
    path.write_text(tampered, "utf-8")
    with launch() as process:
        context: Any = process.browser.new_context(offline=True)
        tab = context.new_page()
        tab.goto(path.as_uri())
        shown, title = tab.locator("#shown-count").inner_text(), tab.title()
        context.close()
    assert shown == count.group(1)
    assert title == f"Conformance certificate: {_certificate(PLAIN)['verdict']}"


# ------------------------------------------------------------------------------------------------- Markdown

# A run of three backticks opens a fenced code block only when no backtick follows on its line (CommonMark).
_BLOCK_MARKER = re.compile(
    r" {0,3}(#{1,6}(?=\s|$)|[-+*](?=\s|$)|\d{1,9}[.)](?=\s|$)|>|`{3,}(?!.*`)|~{3,}|<|\[[^\]]*\]:|\|)"
)
_ENTITY = re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")


def _block_shape(line: str) -> list[str]:
    """The block markers a line starts with, nested list items followed (``- # x`` is a heading in a list)."""
    shape, rest = [], line
    while match := _BLOCK_MARKER.match(rest):
        marker = re.sub(r"\d+", "1", match.group(1))
        shape.append(marker)
        if marker not in ("-", "+", "*", "1.", "1)"):
            break
        rest = rest[match.end() :].lstrip(" ")
    return shape


def _escaped(line: str, index: int) -> bool:
    backslashes = len(line[:index]) - len(line[:index].rstrip("\\"))
    return backslashes % 2 == 1


def _code_spans(line: str) -> tuple[str, list[str]]:
    """The line without its code spans (as CommonMark finds them), and their contents."""
    outside, spans, index = [], [], 0
    while index < len(line):
        if line[index] == "`" and not _escaped(line, index):
            run = len(line[index:]) - len(line[index:].lstrip("`"))
            close = re.compile(f"(?<!`){'`' * run}(?!`)").search(line, index + run)
            if close:
                spans.append(line[index + run : close.start()])
                outside.append("\x00")
                index = close.end()
            else:
                outside.append("`" * run)
                index += run
            continue
        outside.append(line[index])
        index += 1
    return "".join(outside), spans


def _inline_shape(line: str) -> dict[str, int]:
    """How many unescaped characters that start inline structure the line has, outside its code spans."""
    outside, spans = _code_spans(line)
    counts = {
        char: sum(1 for i, c in enumerate(outside) if c == char and not _escaped(outside, i)) for char in "<>[]*~`|"
    }
    counts["_ at a word edge"] = len(re.findall(r"(?<![^\W_])(?<!\\)_|(?<!\\)_(?![^\W_])", outside))
    # The escaper's own entities show < > & as themselves; any other entity would come from the input.
    counts["entities"] = len(_ENTITY.findall(re.sub("&(?:amp|lt|gt);", "", outside)))
    counts["code spans"] = len(spans)
    return counts


def _table_rows(page: str) -> list[list[str]]:
    tables: list[list[str]] = []
    previous = False
    for line in page.splitlines():
        row = line.startswith("|")
        if row and not previous:
            tables.append([])
        if row:
            tables[-1].append(line)
        previous = row
    return tables


def _assert_same_markdown(hostile: str, plain: str) -> None:
    """``hostile`` renders with the structure of ``plain``: the same lines, blocks and inline structure, and every
    table row has its table's columns."""
    found, expected = hostile.split("\n"), plain.split("\n")
    assert len(found) == len(expected), "a hostile string added or removed lines"
    for line, reference in zip(found, expected, strict=True):
        assert _block_shape(line) == _block_shape(reference), (line, reference)
        assert _inline_shape(line) == _inline_shape(reference), (line, reference)
        assert not FORBIDDEN.search(line), repr(line)
    for table in _table_rows(hostile):
        pipes = [sum(1 for i, c in enumerate(row) if c == "|" and not _escaped(row, i)) for row in table]
        assert len(set(pipes)) == 1, table
    assert hostile.count(TAIL) == plain.count(TAIL)


@pytest.mark.parametrize("attack", IDS)
def test_certificate_markdown_keeps_its_structure(attack: str, tmp_path: Path) -> None:
    hostile = _write(tmp_path / "hostile", _certificate(_hostile(attack)))["md"]
    plain = _write(tmp_path / "plain", _certificate(PLAIN))["md"]
    _assert_same_markdown(hostile, plain)


# ------------------------------------------------------------------------------------------------- terminal


class _Terminal:
    """The two calls the certificate summary makes on pytest's terminal reporter."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def section(self, title: str, sep: str = "=", **markup: bool) -> None:
        self.lines.append(title)

    def write_line(self, line: str, **markup: bool) -> None:
        self.lines.append(line)


@pytest.fixture
def browser_config(pytester: pytest.Pytester) -> pytest.Config:
    return pytester.parseconfigure("--driver=json:loads", "-p", "no:cacheprovider")


def _summary(config: pytest.Config, text: str) -> list[str]:
    ids = [clause.id for clause in registry().with_prefix("BR")][:4]
    run = CertificationSession()
    run.add(CheckResult(f"c::{text}", (ids[0],), "failed", (ids[0],), text))
    run.add(CheckResult("c::two", (ids[1],), "unverified", (), text, member=text))
    run.add(CheckResult("c::three", (ids[2],), "not_provoked", (), text))
    run.add(CheckResult("c::four", (ids[3],), "not_checked", (), text))
    terminal = _Terminal()
    reporting.summarize(cast(pytest.TerminalReporter, terminal), config, run, [text], [text])
    return terminal.lines


def _assert_terminal_safe(lines: list[str], plain: list[str]) -> None:
    assert len(lines) == len(plain)
    for line in lines:
        assert not FORBIDDEN.search(line), repr(line)
    assert sum(line.count(TAIL) for line in lines) == sum(line.count(TAIL) for line in plain)


@pytest.mark.parametrize("attack", IDS)
def test_the_terminal_summary_shows_control_characters_as_escapes(attack: str, browser_config: pytest.Config) -> None:
    lines = _summary(browser_config, _hostile(attack))
    _assert_terminal_safe(lines, _summary(browser_config, PLAIN))
    if "\x1b" in ATTACKS[attack]:
        assert any("\\x1b" in line for line in lines)


def test_the_terminal_summary_cuts_a_huge_string_and_says_so(browser_config: pytest.Config) -> None:
    lines = _summary(browser_config, "E" * MEGABYTE)
    assert max(len(line) for line in lines) < 1_100
    assert sum("1,000,000 characters in all]" in line for line in lines) >= 5


# ------------------------------------------------------------------------------------------- replay timeline


def _replay(text: str) -> ReplayReport:
    """A replay that diverged at its second request, with ``text`` in everything a recorded run carries."""
    call = {"type": "function_call", "name": text, "call_id": text, "arguments": text}
    first = {"model": "m", "input": [{"role": "user", "content": text}]}
    second = {
        **first,
        "input": [*first["input"], call, {"type": "function_call_output", "call_id": text, "output": text}],
    }
    events = (
        {"type": "response.output_item.added", "output_index": 0, "item": {"type": text}},
        {"type": "response.output_item.done", "output_index": 0, "item": call},
        {"type": text, "sequence_number": 3},
    )
    exchanges = (
        Exchange(RecordedRequest("POST", "/v1/responses", first), RecordedResponse(200, None, events)),
        Exchange(RecordedRequest("POST", "/v1/responses", second), RecordedResponse(200, {"output": [call]})),
    )
    cassette = Cassette(text, exchanges, text, {"run": text})
    requests = tuple(
        (at, SentRequest("POST", "/v1/responses", {"x": text}, body)) for at, body in ((0.0, first), (0.5, second))
    )
    trace = ReplayTrace(cassette, requests, ((0.25, text, text), (0.3, "lookup", {"q": text})))
    # The diff a replay shows is of the requests' JSON, so the text in it is JSON-escaped as a real one is.
    diff = unified_diff({"input": text, "same": text}, {"input": f"{text}!", "same": text}, 1)
    return ReplayReport(
        cassette=text,
        mode=text,
        exchanges=2,
        requests_sent=2,
        divergence=Divergence(1, text, None, None),
        diff=diff,
        calls=(text,),
        attempted_call_ids=(text,),
        error=text,
        settings=text,
        trace=trace,
    )


@pytest.mark.parametrize("attack", IDS)
def test_the_timeline_shows_hostile_text_only_as_text(attack: str) -> None:
    hostile = timeline.render(_replay(_hostile(attack)))
    hostile.encode("utf-8")  # the writer's encoding: a lone surrogate must not reach it
    _assert_only_text(hostile, timeline.render(_replay(PLAIN)))


def test_the_timeline_runs_no_script() -> None:
    _assert_policy(timeline.render(_replay(PLAIN)), script=False)


@pytest.mark.parametrize("attack", IDS)
def test_the_replay_report_shows_control_characters_as_escapes(attack: str) -> None:
    lines = _replay(_hostile(attack)).render().removesuffix("\n").split("\n")
    _assert_terminal_safe(lines, _replay(PLAIN).render().removesuffix("\n").split("\n"))


# -------------------------------------------------------------------------------------- complete files


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("lone \ud800 surrogate \udc00", "lone \ufffd surrogate \ufffd"),
        ("a pair \ud83d\ude00 is one character", "a pair \U0001f600 is one character"),
        ("a NUL \x00 here", "a NUL \\x00 here"),
    ],
    ids=["lone surrogates", "surrogate pair", "nul"],
)
def test_every_certificate_file_is_written_whole_whatever_the_text(text: str, shown: str, tmp_path: Path) -> None:
    files = _write(tmp_path, _certificate(text))
    data = json.loads(files["json"])
    # certificate.json is data: JSON escapes a NUL itself; a surrogate that cannot be UTF-8 is replaced.
    assert data["run"]["notes"] == [shown if "NUL" not in text else text]
    assert files["html"].endswith("</html>\n")
    assert shown in files["md"] and files["md"].endswith("|\n")
    assert shown in "".join(_Page(files["html"]).text)


def test_a_megabyte_string_is_cut_visibly_in_every_page_and_kept_in_the_json(tmp_path: Path) -> None:
    files = _write(tmp_path, _certificate("E" * MEGABYTE))
    data = json.loads(files["json"])
    # The JSON record keeps what the certificate recorded: notes whole, reasons bounded when they were recorded.
    assert data["run"]["notes"] == ["E" * MEGABYTE]
    assert data["clauses"][0]["reasons"] == ["E" * certificate.REASON_LIMIT + "... [1,000,000 characters in all]"]
    assert files["html"].endswith("</html>\n") and len(files["html"]) < 2 * MEGABYTE
    assert files["md"].endswith("|\n") and len(files["md"]) < 100_000
    for page in (files["html"], files["md"]):
        assert "... [1,000,000 characters in all]" in page


@pytest.mark.parametrize("text", ["lone \ud800", "E" * MEGABYTE, "NUL \x00"], ids=["surrogate", "megabyte", "nul"])
def test_the_timeline_is_written_whole_whatever_the_text(text: str, tmp_path: Path) -> None:
    path = tmp_path / "timeline.html"
    from conformance import atomic

    atomic.write_text(path, timeline.render(_replay(text)))
    page = path.read_bytes().decode("utf-8")
    assert page.endswith("</html>\n") and len(page) < 2 * MEGABYTE


# ------------------------------------------------------------------------------- a certification run, whole

HOSTILE_DRIVERS = r"""
HOSTILE = "\x1b]52;c;cHduZWQ=\x07\x1b[2J\x9b31m\r\u202e<script>alert(1)</script> | # [x](javascript:alert(1)) \ud800"


class Hostile:
    def __init__(self, env):
        self.env = env

    def state(self):
        return {"tabs": [{"id": "t1", "title": HOSTILE, "url": self.env.main_origin, "active": True}]}

    def get_page_text(self, args):
        print(HOSTILE)
        raise RuntimeError(HOSTILE + "\nverdict: conforms")


Hostile.__qualname__ = HOSTILE


def factory(env):
    env.report_browser_route(HOSTILE)
    return Hostile(env)
"""

KIT_HEADINGS = (
    "What to fix first",
    "Implemented but unverified",
    "Not checked",
    "Notes from the harness",
    "Versions",
    "All clauses",
)
HOSTILE_CHECKS = """
import pytest

from hostiledrivers import HOSTILE


@pytest.mark.clause("BR-SDK-001")
def test_text(subject):
    subject.call("get_page_text", tab_id=None).expect_sdk_accepted()


@pytest.mark.clause("BR-STATE-001")
def test_a_drivers_exception_escapes(subject):
    raise RuntimeError(HOSTILE + "\\nverdict: conforms")
"""


def test_a_certification_run_writes_no_control_character_to_the_terminal(pytester: pytest.Pytester) -> None:
    """``driverkit certify`` is pytest: its failure reports, the output it captured from the driver and the
    certificate summary must not pass a driver's escapes on."""
    pytester.makepyfile(hostiledrivers=HOSTILE_DRIVERS, test_hostile=HOSTILE_CHECKS)
    pytester.syspathinsert()
    out = pytester.path / "cert"
    result = pytester.runpytest_subprocess(
        "--driver=hostiledrivers:factory", f"--certificate={out}", "-rA", "test_hostile.py"
    )
    lines = result.outlines + result.errlines
    assert "verdict: does not conform" in lines, lines
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert not [line for line in lines if FORBIDDEN.search(line)]
    assert any("\\x1b]52;c;" in line for line in lines)  # shown, not obeyed
    assert not any(line.startswith("verdict: conforms") for line in result.outlines)
    page = (out / "certificate.html").read_text("utf-8")
    assert len(_Page(page).scripts) == 1 and "alert(1)" in "".join(_Page(page).text)
    markdown = (out / "certificate.md").read_text("utf-8")
    assert "<" not in markdown and not re.search(r"(?<!\\)\]\(", markdown)  # no HTML, no link
    headings = [line for line in markdown.splitlines() if line.lstrip(" -").startswith("#")]
    assert headings[0].startswith("# Conformance certificate: ")
    assert set(headings[1:]) <= {f"## {name}" for name in KIT_HEADINGS}, headings
