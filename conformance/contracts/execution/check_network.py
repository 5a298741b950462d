"""Network limits: a script reaches neither an outside address nor the service itself.

The outside address is a listener the kit serves on every address of its own machine: a script that connects
sends it a nonce, and the kit sees whether the nonce arrived (whatever the script claims). The service's own
address is the one the kit calls it at; the script reports whether a connection there opened.
"""

from __future__ import annotations

import json
import secrets

import pytest

from conformance.assertions import expect
from conformance.harness.execution_service import ExecutionEndpoint, host_addresses, new_session_id

from ._host import HostListener
from ._runtimes import Runtime

_PROBE = """
import json, socket
opened = []
for host, port, payload in json.loads({targets!r}):
    try:
        with socket.create_connection((host, port), timeout=2) as connection:
            opened.append(f'{{host}}:{{port}}')
            if payload:
                connection.sendall(payload.encode())
                connection.recv(64)
    except OSError:
        pass
log('opened ' + json.dumps(opened))
"""


@pytest.mark.clause("EX-NET-001")
def test_a_script_reaches_neither_outside_nor_the_service(
    service: ExecutionEndpoint, python: Runtime, host_listener: HostListener
) -> None:
    nonce = f"driverkit-{secrets.token_hex(8)}"
    outside = [[address, host_listener.port, f"GET /{nonce} HTTP/1.0\r\n\r\n"] for address in host_addresses()]
    outside.append(["127.0.0.1", host_listener.port, f"GET /{nonce} HTTP/1.0\r\n\r\n"])
    targets = [*outside, [service.host, service.port, ""]]
    reply = python.run(new_session_id("network"), _PROBE.format(targets=json.dumps(targets)))
    expect(
        not host_listener.received(nonce),
        "EX-NET-001",
        f"a script reached the kit's listener on port {host_listener.port} of the kit's machine",
    )
    expect(
        f"{service.host}:{service.port}" not in reply.text(),
        "EX-NET-001",
        f"a script opened a connection to the service's own address {service.host}:{service.port}",
    )
