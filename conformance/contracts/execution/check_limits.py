"""Resource limits: a script that takes memory, or starts processes, without end is stopped, and the service still
answers afterwards. The guide names no figures: the kit's bounds (2 GiB, 500 processes) are far beyond what one
script needs and low enough for the kit's machine to survive a service that sets no limit at all."""

from __future__ import annotations

import pytest

from conformance.assertions import expect
from conformance.harness.execution_service import ServiceUnreachable, new_session_id

from ._runtimes import Runtime

MEMORY_BOUND_MIB = 2048
PROCESS_BOUND = 500

# Each chunk is written to, so the memory is really taken (zero-filled allocations may not be).
_MEMORY_BOMB = f"""
chunks = []
try:
    while len(chunks) * 64 < {MEMORY_BOUND_MIB}:
        chunks.append(b'\\x01' * (64 * 1024 * 1024))
except MemoryError:
    held = len(chunks) * 64
    chunks.clear()
    log('refused at ' + str(held) + ' MiB')
else:
    log('held ' + str(len(chunks) * 64) + ' MiB')
"""

# Children sleep briefly and leave on their own, so a service without a process limit is not left with hundreds.
_FORK_BOMB = f"""
import os, time
started = 0
try:
    while started < {PROCESS_BOUND}:
        if os.fork() == 0:
            time.sleep(10)
            os._exit(0)
        started += 1
except OSError as error:
    log('refused after ' + str(started) + ': ' + str(error))
else:
    log('started ' + str(started) + ' processes')
"""


def _still_answers(python: Runtime, clause: str, what: str) -> None:
    try:
        reply = python.run(new_session_id("after"), python.log_code("still here"))
    except ServiceUnreachable as error:
        expect(False, clause, f"after {what} the service no longer answers: {error}")
        return
    expect("still here" in reply.text(), clause, f"after {what} the service no longer runs code: {reply.describe()}")


def _bomb_is_stopped(python: Runtime, code: str, session: str, shown: str, clause: str, what: str) -> None:
    """Run a script that prints ``shown`` only once it holds what no limit should allow; the service must stop it
    before then (or drop the reply) and still run code afterwards."""
    try:
        reply = python.run(new_session_id(session), code)
    except ServiceUnreachable:
        reply = None
    expect(reply is None or shown not in reply.text(), clause, f"a script {shown}: no limit stopped it")
    _still_answers(python, clause, what)


@pytest.mark.clause("EX-LIMIT-001")
def test_a_memory_bomb_is_stopped(python: Runtime) -> None:
    _bomb_is_stopped(python, _MEMORY_BOMB, "memory", f"held {MEMORY_BOUND_MIB} MiB", "EX-LIMIT-001", "a memory bomb")


@pytest.mark.clause("EX-LIMIT-002")
def test_a_fork_bomb_is_stopped(python: Runtime) -> None:
    _bomb_is_stopped(python, _FORK_BOMB, "fork", f"started {PROCESS_BOUND} processes", "EX-LIMIT-002", "a fork bomb")
