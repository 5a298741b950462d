"""Let through to a browser's DevTools (or Playwright) port only the client that holds its token.

Whoever reaches a DevTools port controls the browser: every page, and every file the browser's user can read
(``file:///...``). Chromium asks nothing of its clients, so this relay is the port's only door. It accepts
connections on LISTEN and forwards one to UPSTREAM_PORT on 127.0.0.1 only when its HTTP request's path starts with
``/TOKEN/`` (TOKEN from ``KIT_DEVTOOLS_TOKEN``; the relay refuses to start without one): it removes that prefix and
forwards the rest byte for byte. Any other request gets 404 and the connection is closed, so a client without the
token learns nothing, not even the browser's version.

One thing is rewritten: the DevTools listings (``/json/version``, ``/json/list``) name WebSocket URLs that
Chromium builds from the request's Host header, and the relay puts ``/TOKEN`` back in front of their path. A
client given ``http://HOST:PORT/TOKEN`` (Playwright's ``connect_over_cdp`` asks ``/TOKEN/json/version/``) is thus
sent to ``ws://HOST:PORT/TOKEN/devtools/browser/...``, through the relay again.

In the desktop container (containers/desktop/entrypoint.sh, with KIT_DEVTOOLS_PORT) it listens on every address of
the container, since Chromium ignores ``--remote-debugging-address`` outside its old headless mode. On the host,
reference/browser/serve.py runs it for its cdp and playwright-server browsers with a listening socket made on the
host's loopback (``fd:N``) and ``--source 127.0.0.2``: that browser's network namespace sends every other connection
from its loopback to the host, and lets only those from 127.0.0.2 reach the browser's own port.

    KIT_DEVTOOLS_TOKEN=... python3 devtools_relay.py LISTEN UPSTREAM_PORT [--source ADDRESS]

LISTEN is a port number (every IPv4 address) or ``fd:N`` (an inherited listening socket). Standard library only:
the container has python3-minimal.
"""

import contextlib
import hmac
import os
import re
import socket
import sys
import threading
import time

TOKEN_VARIABLE = "KIT_DEVTOOLS_TOKEN"
# A client gets this long to send its request's head, and the head may be this large: a silent or endless
# client must not hold one of the few connections forever.
HEAD_TIMEOUT_S = 10.0
HEAD_LIMIT = 16 * 1024
# A DevTools listing is a few KiB per tab; more than this is not a listing.
LISTING_LIMIT = 8 * 1024 * 1024
UPSTREAM_TIMEOUT_S = 10.0
MAX_CONNECTIONS = 64
NOT_FOUND = b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
BAD_GATEWAY = b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
_TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{22,}")


def read_head(conn, limit=HEAD_LIMIT, timeout=HEAD_TIMEOUT_S):
    """The bytes of an HTTP head (without its blank line) and what came after it, or None past the limits."""
    data = b""
    deadline = time.monotonic() + timeout
    while b"\r\n\r\n" not in data:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or len(data) > limit:
            return None
        conn.settimeout(remaining)
        try:
            chunk = conn.recv(4096)
        except OSError:
            return None
        if not chunk:
            return None
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return (head, rest) if len(head) <= limit else None


def unlock(target, token):
    """The request target without the token prefix, or None when it does not carry the token."""
    prefix = b"/" + token
    # compare_digest: the time taken says nothing about how much of a guess was right.
    if not hmac.compare_digest(target[: len(prefix)], prefix):
        return None
    rest = target[len(prefix) :]
    if rest == b"":
        return b"/"
    if rest[:1] == b"/":
        return rest
    if rest[:1] == b"?":
        return b"/" + rest
    return None


def header(lines, name):
    for line in lines:
        key, _, value = line.partition(b":")
        if key.strip().lower() == name:
            return value.strip()
    return None


def pipe(source, target):
    """Copy one direction until it ends, then end that direction of the other side too."""
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            target.sendall(data)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            target.shutdown(socket.SHUT_WR)


def splice(client, upstream):
    client.settimeout(None)
    upstream.settimeout(None)
    # DevTools messages are small and answered one by one: Nagle's wait for more would delay every one of them.
    for end in (client, upstream):
        with contextlib.suppress(OSError):
            end.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    other = threading.Thread(target=pipe, args=(upstream, client), daemon=True)
    other.start()
    pipe(client, upstream)
    other.join()


def relay_listing(client, upstream, head, host, token):
    """Forward one plain HTTP request and its answer, putting the token back into the WebSocket URLs named."""
    upstream.sendall(head)
    answer = read_head(upstream, LISTING_LIMIT, UPSTREAM_TIMEOUT_S)
    if answer is None:
        client.sendall(BAD_GATEWAY)
        return
    response_head, body = answer
    lines = response_head.split(b"\r\n")
    length = header(lines[1:], b"content-length")
    upstream.settimeout(UPSTREAM_TIMEOUT_S)
    expected = int(length) if length is not None and length.isdigit() else LISTING_LIMIT
    with contextlib.suppress(OSError):
        while len(body) < min(expected, LISTING_LIMIT):
            chunk = upstream.recv(65536)
            if not chunk:
                break
            body += chunk
    if host:
        body = body.replace(host + b"/devtools/", host + b"/" + token + b"/devtools/")
    kept = [line for line in lines[1:] if header([line], b"content-length") is None]
    kept = [line for line in kept if header([line], b"connection") is None]
    fixed = [lines[0], *kept, b"Content-Length: %d" % len(body), b"Connection: close"]
    client.sendall(b"\r\n".join(fixed) + b"\r\n\r\n" + body)


def serve_one(client, upstream_port, source, token, slots):
    try:
        with client:
            received = read_head(client)
            if received is None:
                return
            head, rest = received
            lines = head.split(b"\r\n")
            parts = lines[0].split(b" ")
            target = unlock(parts[1], token) if len(parts) == 3 and parts[1].startswith(b"/") else None
            if target is None:
                client.sendall(NOT_FOUND)
                return
            try:
                upstream = socket.create_connection(
                    ("127.0.0.1", upstream_port), timeout=UPSTREAM_TIMEOUT_S, source_address=(source, 0)
                )
            except OSError:
                client.sendall(BAD_GATEWAY)
                return
            with upstream:
                request = b" ".join((parts[0], target, parts[2]))
                upgrade = (header(lines[1:], b"upgrade") or b"").lower() == b"websocket"
                if upgrade:
                    upstream.sendall(b"\r\n".join((request, *lines[1:])) + b"\r\n\r\n" + rest)
                    splice(client, upstream)
                    return
                # One request per connection, so every listing passes through the rewrite above.
                kept = [line for line in lines[1:] if header([line], b"connection") is None]
                relay_listing(
                    client,
                    upstream,
                    b"\r\n".join((request, *kept, b"Connection: close")) + b"\r\n\r\n" + rest,
                    header(lines[1:], b"host"),
                    token,
                )
    except OSError:
        pass
    finally:
        slots.release()


def serve(listener, upstream_port, source, token):
    slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
    while True:
        client, _ = listener.accept()
        if not slots.acquire(blocking=False):
            client.close()  # full: a flood of connections must not starve the owner's own for long
            continue
        threading.Thread(target=serve_one, args=(client, upstream_port, source, token, slots), daemon=True).start()


def main(argv, environ):
    usage = "usage: KIT_DEVTOOLS_TOKEN=... devtools_relay.py LISTEN_PORT|fd:N UPSTREAM_PORT [--source ADDRESS]"
    token = environ.get(TOKEN_VARIABLE, "")
    if not _TOKEN_SHAPE.fullmatch(token):
        print(
            f"devtools_relay: {TOKEN_VARIABLE} must hold a random token (22 or more letters, digits, '-' or '_'): "
            "without one the browser's DevTools would be offered to anyone who reaches the port; not starting",
            file=sys.stderr,
        )
        return 2
    source = "0.0.0.0"
    arguments = list(argv)
    if "--source" in arguments:
        at = arguments.index("--source")
        if at + 1 >= len(arguments):
            print(usage, file=sys.stderr)
            return 2
        source = arguments[at + 1]
        del arguments[at : at + 2]
    if len(arguments) != 2 or not arguments[1].isdigit():
        print(usage, file=sys.stderr)
        return 2
    listen, upstream = arguments
    if listen.startswith("fd:") and listen[3:].isdigit():
        listener = socket.socket(fileno=int(listen[3:]))
    elif listen.isdigit():
        listener = socket.create_server(("0.0.0.0", int(listen)), backlog=64)
    else:
        print(usage, file=sys.stderr)
        return 2
    serve(listener, int(upstream), source, token.encode())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], os.environ))
