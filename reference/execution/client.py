"""Client adapter: send approved code to the execution service and return its output items for a function tool.

Shaped after spec/003's adapter: the approval callback sees the exact code first and a refusal returns a text item
instead of running anything; the reply is validated item by item (``input_text``, or ``input_image`` with
``detail: "original"``) before it reaches the model.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Final
from urllib.parse import unquote, urlsplit

from .protocol import validate_output

if TYPE_CHECKING:
    # Only a type: the package must import without the SDK inside a desktop container (stdlib, Pillow, PyAutoGUI).
    from openai.types.responses import ResponseFunctionCallOutputItemListParam

TOKEN_VARIABLE: Final = "OPENAI_EXAMPLE_CODE_EXECUTION_TOKEN"
ENDPOINT_VARIABLE: Final = "OPENAI_EXAMPLE_CODE_EXECUTION_URL"
DECLINED: Final = "The person supervising this run did not approve the code, so it was not executed."


class ExecutionServiceError(RuntimeError):
    """The service refused the call or answered with something that is not a valid output list."""


def execute_in_sandbox(
    code: str,
    session_id: str,
    endpoint: str,
    *,
    approve: Callable[[str], bool],
    token: str | None = None,
    timeout_s: float = 30.0,
    language: str = "python",
) -> ResponseFunctionCallOutputItemListParam:
    """Run ``code`` in ``session_id`` at ``endpoint`` once ``approve(code)`` returns exactly True.

    ``language`` is ``"python"`` (the desktop runtime) or ``"javascript"`` (Node with Playwright's ``browser``,
    ``context`` and ``page``); a session keeps the language of its first call.
    ``token`` defaults to ``OPENAI_EXAMPLE_CODE_EXECUTION_TOKEN``. ``timeout_s`` only bounds how long this client
    waits; the service enforces its own execution deadline.
    """
    if approve(code) is not True:
        return [{"type": "input_text", "text": DECLINED}]
    headers = {"Content-Type": "application/json"}
    bearer = token if token is not None else os.environ.get(TOKEN_VARIABLE)
    if bearer:
        headers["Authorization"] = f"Bearer {bearer}"
    body = json.dumps({"session_id": session_id, "language": language, "code": code}).encode()
    try:
        status, raw = _post(endpoint, body, headers, timeout_s)
    except (OSError, http.client.HTTPException, ValueError) as failure:
        raise ExecutionServiceError(f"The execution service could not be reached ({type(failure).__name__}).") from None
    if status != 200:
        raise ExecutionServiceError(f"The execution service answered HTTP {status}.")
    try:
        payload = json.loads(raw)
    except ValueError:
        raise ExecutionServiceError("The execution service answered with something other than JSON.") from None
    output = payload.get("output") if isinstance(payload, dict) else None
    try:
        items = validate_output(output)
    except ValueError as invalid:
        raise ExecutionServiceError(str(invalid)) from None
    result: ResponseFunctionCallOutputItemListParam = []
    for item in items:
        if item["type"] == "input_text":
            result.append({"type": "input_text", "text": item["text"]})
        else:
            result.append({"type": "input_image", "image_url": item["image_url"], "detail": "original"})
    return result


class _UnixConnection(http.client.HTTPConnection):
    """HTTP over a unix socket, for a service inside a container that has no network at all."""

    def __init__(self, path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self._path)


def _post(endpoint: str, body: bytes, headers: Mapping[str, str], timeout_s: float) -> tuple[int, bytes]:
    """POST to ``http://``/``https://`` URLs or ``http+unix://<percent-encoded socket path>/<path>``."""
    parts = urlsplit(endpoint)
    connection: http.client.HTTPConnection
    if parts.scheme == "http+unix":
        connection = _UnixConnection(unquote(parts.netloc), timeout_s)
    elif parts.scheme == "https":
        connection = http.client.HTTPSConnection(parts.hostname or "", parts.port, timeout=timeout_s)
    elif parts.scheme == "http":
        connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=timeout_s)
    else:
        raise ValueError(f"unsupported endpoint scheme {parts.scheme!r}")
    try:
        connection.request("POST", parts.path or "/", body=body, headers=dict(headers))
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()
