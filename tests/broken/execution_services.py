"""Execution services with one defect each, to prove that each execution check can fail.

Each is the reference service behind a thin HTTP front that breaks one thing the code-execution guide asks (or,
for the network, the reference service with its network isolation switched off). The front speaks the same
protocol, so the kit certifies it exactly as it would anyone's service.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

Output = list[dict[str, Any]]


@dataclass(frozen=True)
class Defect:
    """How a front breaks the service: what it does to a request or a reply, and whether it checks the caller;
    ``clauses`` are those a certification must find failed (one, but for the network case below).

    ``answer_after`` makes the front answer a call still running upstream after that many seconds, as if the
    deadline had stopped it, while the script goes on (the upstream service must have a longer deadline).
    ``upstream_limits`` replace the test limits of the reference service behind the front, and
    ``isolate_network`` is its own switch. ``hands_token_to_scripts`` puts the service's token in every python
    script's environment. ``unsandboxed`` runs the reference runtimes as plain child processes of the service
    (the launcher its attack tests use as a baseline, tests/execution/_unsandboxed.py).
    """

    name: str
    clauses: tuple[str, ...]
    checks_callers: bool = True
    rewrite_request: Callable[[dict[str, Any]], dict[str, Any]] = lambda body: body
    rewrite_output: Callable[[Output], Output] = lambda output: output
    answer_after: float | None = None
    upstream_limits: dict[str, float] = field(default_factory=dict)
    isolate_network: bool = True
    hands_token_to_scripts: bool = False
    unsandboxed: bool = False


def _without_detail(output: Output) -> Output:
    return [{key: value for key, value in item.items() if key != "detail"} for item in output]


def _images_copied_into_text(output: Output) -> Output:
    copies = [{"type": "input_text", "text": item["image_url"]} for item in output if item["type"] == "input_image"]
    return [*output, *copies]


def _fresh_python_session(body: dict[str, Any]) -> dict[str, Any]:
    if body.get("language") != "python":
        return body
    return {**body, "session_id": f"forgotten-{secrets.token_hex(6)}"}


def _fresh_javascript_session(body: dict[str, Any]) -> dict[str, Any]:
    if body.get("language") != "javascript":
        return body
    return {**body, "session_id": f"forgotten-{secrets.token_hex(6)}"}


def _one_session(body: dict[str, Any]) -> dict[str, Any]:
    return {**body, "session_id": "everyone"}


def _python_prelude(prelude: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """Every python script runs after ``prelude``, as if the service set its namespace up that way."""
    return lambda body: {**body, "code": prelude + body["code"]} if body.get("language") == "python" else body


def _javascript_prelude(prelude: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda body: {**body, "code": prelude + body["code"]} if body.get("language") == "javascript" else body


def refuses_javascript(body: dict[str, Any]) -> dict[str, Any]:
    """A service that runs only Python (not a defect: a runtime it does not offer is "not implemented")."""
    return {**body, "language": "cobol"} if body.get("language") == "javascript" else body


DEFECTS = (
    Defect("accepts-any-caller", ("EX-AUTH-001",), checks_callers=False),
    Defect("drops-image-detail", ("EX-REPLY-002",), rewrite_output=_without_detail),
    Defect("copies-images-into-text", ("EX-TEXT-002",), rewrite_output=_images_copied_into_text),
    Defect("forgets-python-sessions", ("EX-SESSION-001",), rewrite_request=_fresh_python_session),
    # A javascript session holds both the globals and the browser page: forgetting it loses both.
    Defect(
        "forgets-javascript-sessions",
        ("EX-JS-005", "EX-SESSION-003"),
        rewrite_request=_fresh_javascript_session,
    ),
    # The checks that need a second session's view are blocked by EX-SESSION-002, not failed.
    Defect("one-session-for-all", ("EX-SESSION-002",), rewrite_request=_one_session),
    # The deadline outlasts the client's 30-second wait: the kit gives up on the reply.
    Defect("never-answers-a-runaway", ("EX-DEADLINE-001",), upstream_limits={"deadline_s": 90.0}),
    Defect("answers-but-leaves-running", ("EX-DEADLINE-002",), answer_after=4.0, upstream_limits={"deadline_s": 60.0}),
    Defect("namespace-without-time", ("EX-PY-001",), rewrite_request=_python_prelude("globals().pop('time', None)\n")),
    Defect("fail-safe-off", ("EX-PY-002",), rewrite_request=_python_prelude("pyautogui.FAILSAFE = False\n")),
    Defect(
        "viewport-1280x720",
        ("EX-JS-002",),
        rewrite_request=_javascript_prelude("await page.setViewportSize({width: 1280, height: 720});\n"),
    ),
    Defect(
        "page-reset-per-script",
        ("EX-SESSION-003",),
        rewrite_request=_javascript_prelude("await page.goto('about:blank');\n"),
    ),
    Defect("display-drops-images", ("EX-JS-004",), rewrite_request=_javascript_prelude("display = () => {};\n")),
    # The service hands its own environment (the token in it) to the runtime.
    Defect("token-in-runtime-environment", ("EX-ISO-002",), hands_token_to_scripts=True),
    # Limits set too high to bound anything the checks try (the machine must hold 2 GiB and 500 short-lived
    # processes for a moment).
    Defect("text-unbounded", ("EX-TEXT-001",), upstream_limits={"max_text_bytes": 8_000_000}),
    # Its deadline is lengthened too: at the tests' 2 seconds the deadline stops the bomb first on a busy machine.
    Defect("memory-unbounded", ("EX-LIMIT-001",), upstream_limits={"memory_bytes": 8 * 1024**3, "deadline_s": 20.0}),
    Defect("processes-unbounded", ("EX-LIMIT-002",), upstream_limits={"max_processes": 4_000}),
    # No boundary at all: the isolation and least-privilege clauses a script can observe fail together (measured;
    # the token is found in the environment of the certifying process, readable through /proc). The memory bomb
    # is still stopped there (EX-LIMIT-001 passed in the measured run, with this longer deadline).
    Defect(
        "unsandboxed",
        ("EX-ISO-001", "EX-ISO-002", "EX-ISO-003", "EX-ISO-004", "EX-LIMIT-002", "EX-NET-001", "EX-PRIV-001"),
        upstream_limits={"deadline_s": 20.0},
        unsandboxed=True,
    ),
    # The reference runtimes lose their X display when they share the host's network (measured: "X connection
    # failed" on every PyAutoGUI screenshot), so the screenshot clauses fail beside the network one.
    Defect(
        "network-open",
        ("EX-IMAGE-001", "EX-NET-001", "EX-PY-003"),
        isolate_network=False,
    ),
)

_STOPPED: Output = [{"type": "input_text", "text": "Execution stopped: the code ran past the deadline."}]


class BrokenFront:
    """An HTTP front on loopback for ``upstream`` (an endpoint URL) that applies ``defect``; same token."""

    def __init__(self, upstream: str, token: str, defect: Defect) -> None:
        self.upstream, self.token, self.defect = upstream, token, defect
        front = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                status, payload = front.handle(body, self.headers.get("Authorization"))
                encoded = json.dumps(payload).encode()
                # A client that stopped waiting (what a too-late answer provokes) has closed its end: nothing to
                # tell it, and no traceback for the test run's output.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(encoded)))
                    self.end_headers()
                    self.wfile.write(encoded)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def endpoint(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/execute"

    def __enter__(self) -> BrokenFront:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def handle(self, body: bytes, authorization: str | None) -> tuple[int, Any]:
        if self.defect.checks_callers and authorization != f"Bearer {self.token}":
            return 401, {"error": "A valid bearer token is required."}
        try:
            request = json.loads(body)
        except ValueError:
            return 400, {"error": "The request body must be a JSON object."}
        request = self.defect.rewrite_request(request)
        if self.defect.hands_token_to_scripts and request.get("language") == "python":
            request["code"] = f"import os\nos.environ['SERVICE_TOKEN'] = {self.token!r}\n" + request["code"]
        forwarded = json.dumps(request).encode()
        if self.defect.answer_after is None:
            return self._rewritten(*self._forward(forwarded))
        answered: list[tuple[int, Any]] = []
        worker = threading.Thread(target=lambda: answered.append(self._forward(forwarded)), daemon=True)
        worker.start()
        worker.join(self.defect.answer_after)
        return self._rewritten(*answered[0]) if answered else (200, {"output": _STOPPED})

    def _rewritten(self, status: int, payload: Any) -> tuple[int, Any]:
        if status == 200 and isinstance(payload, dict) and isinstance(payload.get("output"), list):
            payload = {**payload, "output": self.defect.rewrite_output(payload["output"])}
        return status, payload

    def _forward(self, body: bytes) -> tuple[int, Any]:
        parts = urlsplit(self.upstream)
        connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=120)
        try:
            headers = {"Content-Type": "application/json", "Authorization": f"Bearer {self.token}"}
            connection.request("POST", parts.path, body=body, headers=headers)
            response = connection.getresponse()
            return response.status, json.loads(response.read())
        except (OSError, ValueError) as error:
            return 502, {"error": f"upstream failed: {error}"}
        finally:
            connection.close()
