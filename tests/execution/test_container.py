"""The execution service inside the desktop container (containers/execution), reached over its unix socket.

Runs only where a Docker engine answers and the desktop image exists (the kit/exec image is built on top of it
by containers/execution/build-image.sh, which is idempotent). Drives the real scripts a CI job would use.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from reference.execution import ExecutionServiceError, execute_in_sandbox

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "containers" / "execution"


def _docker_ready() -> bool:
    if shutil.which("docker") is None:
        return False
    probe = subprocess.run(
        ["docker", "image", "inspect", "kit/desktop:latest"], capture_output=True, check=False, timeout=30
    )
    return probe.returncode == 0


pytestmark = [
    pytest.mark.skipif(not _docker_ready(), reason="needs a Docker engine and the kit/desktop image"),
    pytest.mark.desktop,
    pytest.mark.container,
]


@pytest.fixture(scope="module")
def container(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(endpoint, token) of a running kit/exec container; stopped (and removed) afterwards."""
    subprocess.run(["bash", str(SCRIPTS / "build-image.sh")], check=True, capture_output=True, timeout=900)
    token = secrets.token_urlsafe(24)
    socket_dir = tmp_path_factory.mktemp("kit-exec")
    started = subprocess.run(
        ["bash", str(SCRIPTS / "run-service.sh"), str(socket_dir)],
        env={**os.environ, "OPENAI_EXAMPLE_CODE_EXECUTION_TOKEN": token},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    fields = dict(line.split("=", 1) for line in started.stdout.splitlines() if "=" in line)
    try:
        yield fields["endpoint"], token
    finally:
        subprocess.run(["docker", "stop", fields["container"]], capture_output=True, check=False, timeout=60)


def approve(code: str) -> bool:
    return True


def test_container_runtime_drives_its_own_desktop(container: tuple[str, str]) -> None:
    endpoint, token = container
    execute_in_sandbox("size = pyautogui.size()", "ci", endpoint, approve=approve, token=token)
    items = execute_in_sandbox(
        "log(tuple(size))\ndisplay(pyautogui.screenshot())", "ci", endpoint, approve=approve, token=token
    )
    assert items[0] == {"type": "input_text", "text": "(1280, 800)"}
    assert items[1]["type"] == "input_image" and items[1].get("detail") == "original"


def test_container_runtime_has_no_network(container: tuple[str, str]) -> None:
    endpoint, token = container
    code = (
        "import socket\ntry:\n    socket.create_connection(('10.0.0.1', 80), timeout=1)\n"
        "except OSError as e:\n    log(type(e).__name__)"
    )
    assert execute_in_sandbox(code, "net", endpoint, approve=approve, token=token) == [
        {"type": "input_text", "text": "OSError"}
    ]


def test_container_service_requires_the_token(container: tuple[str, str]) -> None:
    endpoint, _ = container
    with pytest.raises(ExecutionServiceError, match="HTTP 401"):
        execute_in_sandbox("log(1)", "auth", endpoint, approve=approve, token="not-the-token-at-all")


def test_container_runtime_is_sandboxed(container: tuple[str, str]) -> None:
    # The same bubblewrap sandbox as on a host: alone in its PID namespace, no capabilities, no_new_privs, and the
    # service's socket (in the container's /run/kit-exec) out of sight.
    endpoint, token = container
    code = (
        "import os, socket\n"
        "status = dict(line.split(':', 1) for line in open('/proc/self/status').read().splitlines())\n"
        "log(str(int(status['CapEff'], 16)) + ' ' + status['NoNewPrivs'].strip())\n"
        "log(str(len([p for p in os.listdir('/proc') if p.isdigit()])))\n"
        "client = socket.socket(socket.AF_UNIX)\n"
        "try:\n    client.connect('/run/kit-exec/exec.sock')\n    log('connected')\n"
        "except OSError as error:\n    log(type(error).__name__)"
    )
    texts = [item["text"] for item in execute_in_sandbox(code, "box", endpoint, approve=approve, token=token)]
    assert texts == ["0 1", "2", "FileNotFoundError"]
