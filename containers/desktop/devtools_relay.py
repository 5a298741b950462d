"""Relay the container's DevTools port to Chromium's, which listens on the container's loopback only.

Chromium ignores ``--remote-debugging-address`` outside its old headless mode, so a browser in this container
cannot be reached over DevTools from the host on its own. With KIT_DEVTOOLS_PORT set, the entrypoint runs this
relay: it accepts connections on that port on every address of the container (on a network the host made for
it; see reference/browser/serve.py) and pipes each, byte for byte, to Chromium's port on 127.0.0.1.

    python3 devtools_relay.py LISTEN_PORT CHROMIUM_PORT
"""

import contextlib
import socket
import sys
import threading


def pipe(source: socket.socket, target: socket.socket) -> None:
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            target.sendall(data)
    except OSError:
        pass
    finally:
        for end in (source, target):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)


def serve(listen_port: int, chromium_port: int) -> None:
    listener = socket.create_server(("0.0.0.0", listen_port), backlog=64, reuse_port=False)
    while True:
        client, _ = listener.accept()
        try:
            upstream = socket.create_connection(("127.0.0.1", chromium_port), timeout=10)
        except OSError:
            client.close()  # Chromium is not listening (yet): the caller retries
            continue
        upstream.settimeout(None)
        for source, target in ((client, upstream), (upstream, client)):
            threading.Thread(target=pipe, args=(source, target), daemon=True).start()


if __name__ == "__main__":
    serve(int(sys.argv[1]), int(sys.argv[2]))
