"""Limits the sandbox sets from outside the code, before the interpreter starts: CPU time, open files, file
size, private /tmp size. (Deadline, memory and output are in test_runtime.py; processes in test_attacks.py.)"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from reference.execution import ExecutionService

from ._http import execute, texts
from .conftest import TEST_LIMITS

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.desktop, pytest.mark.container]

LIMITS = replace(
    TEST_LIMITS, deadline_s=8.0, cpu_seconds=2, max_open_files=64, max_file_bytes=1 << 20, tmp_bytes=2 << 20
)


@pytest.fixture(scope="module")
def limited(x_display: str, token: str) -> Iterator[ExecutionService]:
    with ExecutionService(token, display=x_display, limits=LIMITS) as running:
        yield running


def _outcome(code: str) -> str:
    handler = "except OSError as error:\n    log('stopped: ' + type(error).__name__)"
    return f"try:\n{code}\n    log('not stopped')\n{handler}"


def test_cpu_time_is_bounded(limited: ExecutionService, token: str) -> None:
    # CPU seconds run out before the (longer) wall-clock deadline: the kernel kills the runtime.
    execute(limited.endpoint, token, "spin", "kept = 1")
    output = texts(execute(limited.endpoint, token, "spin", "while True:\n    pass"))
    assert "exited unexpectedly" in output[0]


def test_open_files_are_bounded(limited: ExecutionService, token: str) -> None:
    code = _outcome("    handles = [open('/dev/null') for _ in range(200)]")
    assert texts(execute(limited.endpoint, token, "files", code)) == ["stopped: OSError"]


def test_file_size_is_bounded(limited: ExecutionService, token: str) -> None:
    code = _outcome("    open('big', 'wb').write(b'x' * (4 << 20))")
    assert texts(execute(limited.endpoint, token, "size", code)) == ["stopped: OSError"]


def test_private_tmp_is_bounded(limited: ExecutionService, token: str) -> None:
    code = _outcome("    for n in range(8):\n        open(f'/tmp/part{n}', 'wb').write(b'x' * (1 << 19))")
    assert texts(execute(limited.endpoint, token, "tmp", code)) == ["stopped: OSError"]


def _forge(frame: str) -> str:
    """Code that writes ``frame`` (a Python bytes expression) to every descriptor it can, the reply pipe included."""
    return (
        "import json, os, struct\n"
        f"frame = {frame}\n"
        "for fd in range(3, 64):\n"
        "    try:\n        os.write(fd, frame)\n"
        "    except OSError:\n        pass\n"
        "time.sleep(5)"
    )


def test_an_oversized_reply_is_refused_by_the_service(limited: ExecutionService, token: str) -> None:
    # The code shares the runtime's process, so it can write to the reply pipe itself. A frame announcing more
    # than any reply within the limits is refused at once (not waited for), the runtime retired, service kept up.
    output = texts(execute(limited.endpoint, token, "forger", _forge("struct.pack('>I', 16 << 20) + b'x' * 64")))
    assert "invalid reply" in output[0]
    assert texts(execute(limited.endpoint, token, "forger", "log(2)"))[1:] == ["2"]


def test_forged_text_is_trimmed_by_the_service(limited: ExecutionService, token: str) -> None:
    body = "json.dumps({'output': [{'type': 'input_text', 'text': 'z' * 100_000}]}).encode()"
    output = texts(execute(limited.endpoint, token, "verbose", _forge(f"struct.pack('>I', len({body})) + {body}")))
    assert 0 < sum(len(text) for text in output) <= limited.limits.max_text_bytes + 4096
    limited.pool.end("verbose")


def test_memory_of_the_whole_tree_is_bounded(limited: ExecutionService, token: str) -> None:
    # Each child stays under the per-process address-space limit; together they exceed the runtime's memory, which
    # only the runtime's cgroup (service run as root, cgroups writable) can catch.
    if "cgroup v" not in limited.launcher.description:
        pytest.skip(f"no per-runtime cgroup here ({limited.launcher.description})")
    share = limited.limits.memory_bytes // 2
    code = f"""
import os, signal
children = []
for _ in range(3):
    pid = os.fork()
    if pid == 0:
        hoard = b'x' * {share}
        time.sleep(30)
        os._exit(0)
    children.append(pid)
time.sleep(2)
killed = 0
for pid in children:
    done, status = os.waitpid(pid, os.WNOHANG)
    killed += done != 0 and os.WIFSIGNALED(status)
    if not done:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
log(killed)
"""
    assert int(texts(execute(limited.endpoint, token, "tree", code))[-1]) >= 1
