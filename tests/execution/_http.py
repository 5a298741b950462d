"""A tiny HTTP client for the tests: raw status, headers and decoded JSON, no exceptions for 4xx."""

from __future__ import annotations

import http.client
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Reply:
    status: int
    headers: dict[str, str]
    body: Any


def send(
    endpoint: str, body: bytes | None, *, token: str | None, method: str = "POST", path: str | None = None
) -> Reply:
    parts = urlsplit(endpoint)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=30)
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    try:
        connection.request(method, path or parts.path, body=body, headers=headers)
        response = connection.getresponse()
        raw = response.read()
        return Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, json.loads(raw))
    finally:
        connection.close()


def execute(endpoint: str, token: str, session_id: str, code: str, language: str = "python") -> Reply:
    payload = json.dumps({"session_id": session_id, "language": language, "code": code}).encode()
    return send(endpoint, payload, token=token)


def texts(reply: Reply) -> list[str]:
    return [item["text"] for item in reply.body["output"] if item["type"] == "input_text"]
