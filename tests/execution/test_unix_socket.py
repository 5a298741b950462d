"""The unix-socket mode used inside a network-less container, and the package's independence from the SDK there."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from reference.execution import ExecutionService, execute_in_sandbox

from .conftest import TEST_LIMITS

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.desktop, pytest.mark.container]


def test_service_on_a_unix_socket(x_display: str, token: str, tmp_path: Path) -> None:
    path = tmp_path / "exec.sock"
    with ExecutionService(token, display=x_display, limits=TEST_LIMITS, unix_socket=str(path)) as service:
        assert service.endpoint.startswith("http+unix://")
        assert path.stat().st_mode & 0o777 == 0o600
        first = execute_in_sandbox("x = 5", "unix", service.endpoint, approve=lambda code: True, token=token)
        again = execute_in_sandbox("log(x * 2)", "unix", service.endpoint, approve=lambda code: True, token=token)
    assert first == [{"type": "input_text", "text": "Finished with no output."}]
    assert again == [{"type": "input_text", "text": "10"}]
    assert not path.exists()


def test_the_service_side_imports_without_the_openai_package() -> None:
    # Inside the desktop container only the standard library, Pillow and PyAutoGUI exist.
    probe = "import sys; sys.modules['openai'] = None; import reference.execution.__main__; print('ok')"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False, timeout=60)
    assert result.stdout.strip() == "ok", result.stderr
