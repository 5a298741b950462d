"""The fixture-server endpoints the browser checks' pages use, as one route table (``ENDPOINTS``).

Each is a small function from the request to a reply; ``conftest.py`` adds the table to the run's fixture server.
The pages that call them are in ``fixtures/pages`` (redirect.html, download.html, files.html, diagnostics.html,
subresource.html, the adversarial pages), and the checks named below judge what the browser did with them.
"""

from __future__ import annotations

import time
from http import HTTPStatus

from conformance.harness.fixture_server import Endpoint, EndpointCall, Reply

# A slow page may hold a request at most this long (check_cancellation stops a navigation to it).
SLOWEST_PAGE_MS = 30_000
# The cookie ``cookie`` sets (name, value): check_diagnostics looks for both in what the driver reports.
SECRET_COOKIE = ("kit_secret", "cookie-secret-4711")


def redirect(call: EndpointCall) -> Reply:
    """A 302 to ``?to=`` (check_network: a redirect away from the permitted origin must be stopped)."""
    target = call.query.get("to", ["blank.html"])[0]
    return Reply(HTTPStatus.FOUND, headers={"Location": target})


def download(call: EndpointCall) -> Reply:
    """A file served as an attachment, named by the path after the endpoint (check_files, check_network)."""
    file_name = call.tail[0] if call.tail and call.tail[0] else "report.txt"
    return Reply(
        HTTPStatus.OK,
        f"fixture download {file_name}\n".encode(),
        headers={"Content-Disposition": f'attachment; filename="{file_name}"'},
    )


def slow(call: EndpointCall) -> Reply:
    """A page that answers after ``?ms=`` milliseconds (check_cancellation: a running navigation stops)."""
    time.sleep(min(int(call.query.get("ms", ["1000"])[0]), SLOWEST_PAGE_MS) / 1000)
    return Reply(HTTPStatus.OK, b"<!doctype html><title>Slow</title><p>slow page</p>", "text/html")


def cookie(call: EndpointCall) -> Reply:
    """Sets a secret cookie (check_diagnostics: the diagnostics page fetches it; it must never be reported)."""
    set_cookie = f"{SECRET_COOKIE[0]}={SECRET_COOKIE[1]}; Path=/; SameSite=Lax"
    return Reply(HTTPStatus.OK, b'{"cookie": "set"}', "application/json", {"Set-Cookie": set_cookie})


def basic_auth(call: EndpointCall) -> Reply:
    """A page behind HTTP Basic authentication, for the adversarial credentials page (the reference's tests).

    The challenge invites a browser to answer with credentials, for instance ones a link smuggled into its URL;
    the request log records whether any were sent.
    """
    if call.authorization:
        return Reply(HTTPStatus.OK, b"<!doctype html><title>Signed in</title><p>signed in</p>", "text/html")
    return Reply(
        HTTPStatus.UNAUTHORIZED,
        b"<!doctype html><title>Sign in required</title><p>sign in required</p>",
        "text/html",
        {"WWW-Authenticate": 'Basic realm="fixture partners"'},
    )


def api(call: EndpointCall) -> Reply:
    """A JSON resource the diagnostics page fetches (check_diagnostics: network entries name it)."""
    return Reply(HTTPStatus.OK, b'{"items": [1, 2, 3]}', "application/json")


def upload(call: EndpointCall) -> Reply:
    """Receives a form upload and records its size as an effect (check_files: an upload grant is honoured)."""
    if call.method != "POST":
        return Reply(HTTPStatus.NOT_FOUND, b"unknown endpoint\n")
    call.record({"kind": "upload", "page": "__upload", "bytes": len(call.body)})
    return Reply(HTTPStatus.OK, b'{"uploaded": true}', "application/json")


ENDPOINTS: dict[str, Endpoint] = {
    "__redirect": redirect,
    "__download": download,
    "__slow": slow,
    "__cookie": cookie,
    "__auth": basic_auth,
    "__api": api,
    "__upload": upload,
}
