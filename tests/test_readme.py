"""The examples of the README and of every docs page stay true: every Python block runs as written (offline, with
what it leaves to the reader supplied here) and does what its page says, every driverkit command they show exists,
and the README's two opening commands name scripts that are in the repository."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import secrets
import shlex
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import openai
import pytest
from openai.lib.responses_tool_runner import ToolRunnerError

from conformance.cassette_builder import CassetteBuilder, function_call, message
from conformance.cli import build_parser
from conformance.fake_responses import CassetteTransport, fake_client
from conformance.harness.browser import BrowserHarness
from conformance.replay import replay
from reference.execution import ExecutionService
from tools import docs_text

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser, pytest.mark.child_run]

REPOSITORY = docs_text.REPOSITORY
PAGES = docs_text.every_page()
# Each page's Python blocks, in the page's order: a page's blocks build on each other, as a reader pastes them.
PAGE_PYTHON = {page: docs_text.blocks(docs_text.text(page), "python") for page in PAGES}
PYTHON = [code for page in PAGES for code in PAGE_PYTHON[page]]
SHELL = [code for page in PAGES for code in docs_text.blocks(docs_text.text(page), "sh")]


@pytest.mark.parametrize("code", PYTHON, ids=[f"python-{i}" for i in range(len(PYTHON))])
def test_python_blocks_compile_and_import(code: str) -> None:
    tree = ast.parse(code)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.split(".")[0]
            in {
                "conformance",
                "reference",
                "openai",
            }
        ):
            module = importlib.import_module(node.module)
            for alias in node.names:
                assert hasattr(module, alias.name), f"{node.module} has no {alias.name}"


def driverkit_commands() -> list[list[str]]:
    commands = []
    for block in SHELL:
        for line in block.splitlines():
            line = line.split("#", 1)[0].strip()
            if "driverkit " in line:
                words = shlex.split(line[line.index("driverkit ") :])
                commands.append(words[1:])
    return commands


@pytest.mark.parametrize("arguments", driverkit_commands(), ids=lambda args: " ".join(args[:2]))
def test_driverkit_commands_parse(arguments: list[str]) -> None:
    parsed = build_parser().parse_args(arguments)
    assert callable(parsed.handler)


def test_opening_commands_exist() -> None:
    first_block = docs_text.blocks(docs_text.text(docs_text.README), "sh")[0]
    for script in re.findall(r"\./(scripts/[\w.-]+)", first_block):
        assert (REPOSITORY / script).is_file(), script
    assert "driverkit certify" in first_block and "scripts/test.sh" in first_block


# ------------------------------------------------------------------------------ every Python block, executed
#
# Each page's blocks run in the page's order in one namespace, as a reader would paste them into one session, inside
# a temporary folder. What a block leaves for the reader to supply (a site, a model, an API) is given here: each
# block has one runner below, which executes it and then checks that it did what its page says.

Namespace = dict[str, Any]


class _Site(BaseHTTPRequestHandler):
    """The reader's own app for the reference-driver block: one small page at every path."""

    def do_GET(self) -> None:
        body = b"<!doctype html><title>Orders</title><main><h1>Order 1207</h1><p>Status: packed</p></main>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _run_factory(code: str, namespace: Namespace) -> None:
    exec(code, namespace)
    harness = BrowserHarness("README:make_driver", namespace["make_driver"])
    namespace["_harness"] = harness
    assert harness.probe().flavour == "sync"


def _run_check(code: str, namespace: Namespace) -> None:
    exec(code, namespace)
    harness: BrowserHarness = namespace.pop("_harness")
    try:
        with harness.subject(start_page="forms.html") as subject:
            namespace["test_page_text_has_no_elements"](subject)
    finally:
        harness.close()  # its Chromium: one sync Playwright per thread, and a later block starts its own


def _run_offline_recording(code: str, namespace: Namespace, capsys: pytest.CaptureFixture[str]) -> None:
    exec(code, namespace)
    assert "The page says hello." in capsys.readouterr().out
    report = replay("bug.jsonl")
    assert report.ok and report.calls == ("get_page_text",), report.render()


def _run_live_recording(code: str, namespace: Namespace, monkeypatch: pytest.MonkeyPatch) -> None:
    # Run as written, with a real client that reaches for the API: nothing listens at this address, so the run
    # fails to connect, and the cassette is still written when the block exits.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-readme-not-a-key")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    Path("bug.jsonl").unlink()
    with pytest.raises(ToolRunnerError, match="stopped before completion"):
        exec(code, namespace)
    assert Path("bug.jsonl").is_file()


def _run_recorded_settings(code: str, namespace: Namespace) -> None:
    exec(code, namespace)
    report = replay("settings.jsonl")
    assert report.ok and "ledger" in report.settings and "max_steps" in report.settings, report.render()


def _run_reference_driver(code: str, namespace: Namespace, monkeypatch: pytest.MonkeyPatch) -> None:
    # The reader's site and model, offline: a local page, and a client answering one read and a final message.
    answers = (
        CassetteBuilder("readme-reference")
        .turn(function_call("browser_get_page_text", {"tab_id": None}, call_id="read-1"))
        .turn(message("Order 1207 is packed."))
        .build()
    )
    transport = CassetteTransport(answers, match="endpoint")
    client = fake_client(transport)  # made before the patch below: it is a real openai.OpenAI
    monkeypatch.setattr(openai, "OpenAI", lambda: client)
    monkeypatch.setenv("OPENAI_MODEL", "gpt-test")
    site = ThreadingHTTPServer(("127.0.0.1", 0), _Site)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    monkeypatch.setenv("SITE", f"http://127.0.0.1:{site.server_address[1]}")
    try:
        exec(code, namespace)
    finally:
        site.shutdown()
        site.server_close()
    assert transport.served == 2 and transport.divergence is None


def _run_execution_limits(code: str, namespace: Namespace) -> None:
    # The block configures the service without starting it (that needs a display and bubblewrap): its limits
    # must be what the text says, and the session path the one the text's DELETE example uses.
    exec(code, namespace)
    limits = namespace["limits"]
    assert (limits.deadline_s, limits.max_sessions, limits.idle_timeout_s, limits.max_processes) == (10, 8, 600, 64)
    assert namespace["SESSIONS_PATH"] == "/sessions/"
    assert "DELETE /sessions/<session_id>" in docs_text.text("execution-service")


def _run_javascript_look(code: str, namespace: Namespace) -> None:
    # The block defines look(endpoint, token); the reader's service is a real one here, sandboxed, and the page
    # it reports on is the JavaScript runtime's own 1440x900 page.
    exec(code, namespace)
    token = secrets.token_urlsafe(24)
    with ExecutionService(token, display=None) as service:
        items = namespace["look"](service.endpoint, token)
    assert [item.get("text") for item in items] == ["[ 1440, 900 ]\n"], items


def _run_evidence_reader(code: str, namespace: Namespace, capsys: pytest.CaptureFixture[str]) -> None:
    # The reader's certificate folder: a certificate with one failed clause and its check's evidence.
    from conformance import certificate
    from conformance.clauses import registry
    from conformance.session import ClauseResult

    clause = next(iter(registry().with_prefix("BR")))
    seen = {"calls": [{"member": "click_at"}], "after": {"image": None, "note": ""}, "before": {}, "effects": []}
    built = certificate.build(
        [certificate.CertifiedSubject("browser driver", "m:f", None)],
        [ClauseResult(clause, "failed", ["m.py::check"], ["it broke"])],
        evidence={"m.py::check": seen},
    )
    certificate.write(Path("out"), built)
    exec(code, namespace)
    assert capsys.readouterr().out == "m.py::check: last call click_at; after: a screenshot\n"
    assert Path("out/certificate-again.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def _run_verdict_reader(code: str, namespace: Namespace, capsys: pytest.CaptureFixture[str]) -> None:
    # A CI job's certificate folder: one clause failed and blocks another.
    from conformance import certificate
    from conformance.clauses import registry
    from conformance.session import ClauseResult

    root, blocked = list(registry().with_prefix("BR"))[:2]
    built = certificate.build(
        [certificate.CertifiedSubject("browser driver", "m:f", None)],
        [
            ClauseResult(root, "failed", ["m.py::check"], ["it broke"]),
            ClauseResult(blocked, "not_checked", [], ["blocked"], why="blocked", blocked_by=root.id),
        ],
    )
    certificate.write(Path("out"), built)
    exec(code, namespace)
    assert capsys.readouterr().out == f"does not conform ['{root.id}'] ['{root.id}']\n"


RUNNERS: dict[str, Callable[..., None]] = {
    "def make_driver(env: Environment)": _run_factory,
    "def test_page_text_has_no_elements": _run_check,
    'with record_client("bug.jsonl", api_key="sk-offline"': _run_offline_recording,
    'with record_client("bug.jsonl", redact_images=True)': _run_live_recording,
    "recorded_run_options(": _run_recorded_settings,
    "ResponsesToolRunner(browser=tools)": _run_reference_driver,
    "ExecutionLimits(deadline_s=10": _run_execution_limits,
    "def look(endpoint: str, token: str)": _run_javascript_look,
    "render_certificate(certificate)": _run_evidence_reader,
    'print(certificate["verdict"], failed': _run_verdict_reader,
}


def _runner(code: str) -> Callable[..., None]:
    matches = [runner for marker, runner in RUNNERS.items() if marker in code]
    assert len(matches) == 1, f"a Python block of the docs needs exactly one runner in {__name__}:\n{code}"
    return matches[0]


def test_every_python_block_has_a_runner() -> None:
    # Each block has exactly one runner (``_runner`` asserts it), and no runner is left without its block.
    assert {_runner(code) for code in PYTHON} == set(RUNNERS.values())


@pytest.mark.parametrize("page", [page for page in PAGES if PAGE_PYTHON[page]])
def test_python_blocks_run_as_written(
    page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: Namespace = {"__name__": "readme"}
    available = {"namespace": namespace, "monkeypatch": monkeypatch, "capsys": capsys}
    try:
        for code in PAGE_PYTHON[page]:
            runner = _runner(code)
            wanted = inspect.signature(runner).parameters
            runner(code, **{name: available[name] for name in wanted if name in available})
    finally:
        harness = namespace.get("_harness")
        if isinstance(harness, BrowserHarness):
            harness.close()
