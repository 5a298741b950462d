"""The execution service under certification, as the kit reaches it: an endpoint URL, a bearer token, and the one
request the code-execution guide defines (POST ``{session_id, language, code}``, reply ``{output: [...]}``).

The checks speak nothing else: no session-ending call, no health probe, nothing a particular service adds. A reply
is kept whole (status, decoded JSON or the raw text) so a check can judge its shape itself.
"""

from __future__ import annotations

import http.client
import json
import os
import secrets
import socket
import time
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

import pytest

# The guide's example client waits 30 seconds for a reply; a service's deadline must answer within that.
CLIENT_WAIT_SECONDS: Final = 30.0
# What the kit gives a reply beyond the client's wait before it calls the service unresponsive (a slow network).
_SLACK_SECONDS: Final = 5.0
LANGUAGES: Final = ("python", "javascript")


class ServiceUnreachable(RuntimeError):
    """The service did not answer at all (connection refused, a reset, no reply in time)."""


@dataclass(frozen=True)
class Reply:
    """One HTTP reply: its status, its body decoded as JSON (None when it is not JSON) and how long it took."""

    status: int
    body: Any
    raw: str
    seconds: float

    @property
    def output(self) -> list[Any] | None:
        """The reply's ``output`` list, or None when the body is not an object holding a list there."""
        if isinstance(self.body, dict) and isinstance(self.body.get("output"), list):
            return list(self.body["output"])
        return None

    def texts(self) -> list[str]:
        return [
            str(item.get("text"))
            for item in self.output or []
            if isinstance(item, dict) and item.get("type") == "input_text"
        ]

    def text(self) -> str:
        """Every text item joined: what the script logged, whatever way the service split it into items."""
        return "".join(self.texts())

    def images(self) -> list[dict[str, Any]]:
        return [item for item in self.output or [] if isinstance(item, dict) and item.get("type") == "input_image"]

    def describe(self, limit: int = 300) -> str:
        shown = self.raw if len(self.raw) <= limit else self.raw[:limit] + f"... ({len(self.raw):,} characters)"
        return f"HTTP {self.status} after {self.seconds:.1f} s: {shown}"


@dataclass(frozen=True)
class ExecutionEndpoint:
    """Where the service listens and the token it expects; :meth:`execute` sends one request."""

    url: str
    token: str

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or ""

    @property
    def port(self) -> int:
        parts = urlsplit(self.url)
        return parts.port or (443 if parts.scheme == "https" else 80)

    def is_local(self) -> bool:
        """Whether the service runs on this machine, so files and processes the kit makes here are its host's."""
        try:
            addresses = {str(info[4][0]) for info in socket.getaddrinfo(self.host, None)}
        except OSError:
            return False
        return any(address.startswith("127.") or address == "::1" for address in addresses) or bool(
            addresses & set(host_addresses())
        )

    def execute(
        self,
        session_id: str,
        code: str,
        language: str = "python",
        *,
        token: str | None = "",
        wait: float = CLIENT_WAIT_SECONDS + _SLACK_SECONDS,
    ) -> Reply:
        """POST one request; ``token=None`` sends no Authorization header, any other text replaces the real token."""
        body = json.dumps({"session_id": session_id, "language": language, "code": code}).encode()
        headers = {"Content-Type": "application/json"}
        bearer = self.token if token == "" else token
        if bearer is not None:
            headers["Authorization"] = f"Bearer {bearer}"
        return self._post(body, headers, wait)

    def _post(self, body: bytes, headers: dict[str, str], wait: float) -> Reply:
        parts = urlsplit(self.url)
        kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        connection = kind(self.host, self.port, timeout=wait)
        path = parts.path or "/"
        if parts.query:
            path += f"?{parts.query}"
        started = time.monotonic()
        try:
            connection.request("POST", path, body=body, headers=headers)
            response = connection.getresponse()
            raw = response.read().decode("utf-8", "replace")
        except (OSError, http.client.HTTPException) as error:
            raise ServiceUnreachable(
                f"no reply from {self.url} within {time.monotonic() - started:.1f} s: {error or type(error).__name__}"
            ) from None
        finally:
            connection.close()
        try:
            decoded: Any = json.loads(raw)
        except ValueError:
            decoded = None
        return Reply(response.status, decoded, raw, time.monotonic() - started)


def new_session_id(purpose: str) -> str:
    """A session ID no earlier check (and no earlier run) used, so every check starts from a fresh session."""
    return f"driverkit-{purpose}-{secrets.token_hex(6)}"


def host_addresses() -> list[str]:
    """This machine's own non-loopback IPv4 addresses (those a script on another network could try)."""
    found: set[str] = set()
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.add(str(info[4][0]))
    except OSError:
        pass
    # The address the default route leaves from, found without sending anything.
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
            found.add(str(probe.getsockname()[0]))
        except OSError:
            pass
    return sorted(address for address in found if not address.startswith("127."))


def endpoint_from(config: pytest.Config) -> ExecutionEndpoint | None:
    """The ``--execution-service`` endpoint and the token from ``--execution-token-env``; a usage error names what
    is wrong. None when the run certifies no execution service."""
    url = config.getoption("--execution-service", None)
    if not url:
        return None
    parts = urlsplit(str(url))
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise pytest.UsageError(f"--execution-service={url}: expected an http:// or https:// endpoint URL")
    variable = str(config.getoption("--execution-token-env"))
    token = os.environ.get(variable, "")
    if not token:
        raise pytest.UsageError(
            f"--execution-service={url}: set {variable} to the service's bearer token (the contract requires "
            "callers to authenticate; --execution-token-env names another variable)"
        )
    return ExecutionEndpoint(str(url), token)
