"""What the kit puts on its own machine for a script to try to reach: a TCP listener that records every nonce it
is sent, a planted file, and a process with a marker on its command line. A script that reaches any of them has
crossed the boundary the guide asks of an execution runtime."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class PlantedFile:
    path: Path
    content: str


class HostListener:
    """A TCP listener on every address of this machine; :meth:`received` says whether a nonce arrived."""

    def __init__(self) -> None:
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("0.0.0.0", 0))
        self._socket.listen(16)
        self._socket.settimeout(0.2)
        self.port: int = self._socket.getsockname()[1]
        self._seen = bytearray()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="driverkit-host-listener", daemon=True)

    def __enter__(self) -> HostListener:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._socket.close()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self._socket.accept()
            except OSError:
                continue
            with connection:
                connection.settimeout(2.0)
                with contextlib.suppress(OSError):
                    data = connection.recv(4096)
                    with self._lock:
                        self._seen += data
                    connection.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok")

    def received(self, nonce: str) -> bool:
        with self._lock:
            return nonce.encode() in self._seen


@contextlib.contextmanager
def marked_process(python: str, marker: str) -> Iterator[subprocess.Popen[bytes]]:
    """A sleeping Python process whose command line carries ``marker``; stopped on exit."""
    process = subprocess.Popen(
        [python, "-c", "import time; time.sleep(600)", marker],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield process
    finally:
        process.kill()
        process.wait(timeout=10)
