"""The client adapter: approval before anything is sent, validated output, clear errors."""

from __future__ import annotations

import pytest

from reference.execution import ExecutionService, ExecutionServiceError, execute_in_sandbox, validate_output
from reference.execution.client import DECLINED

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.desktop, pytest.mark.container]


def test_declined_code_is_never_sent(service: ExecutionService, token: str) -> None:
    seen: list[str] = []

    def refuse(code: str) -> bool:
        seen.append(code)
        return False

    result = execute_in_sandbox("log('x')", "declined", service.endpoint, approve=refuse, token=token)
    assert result == [{"type": "input_text", "text": DECLINED}]
    assert seen == ["log('x')"]
    assert "declined" not in service.pool.live_sessions()


def test_only_exactly_true_approves(service: ExecutionService, token: str) -> None:
    result = execute_in_sandbox("log(1)", "truthy", service.endpoint, approve=lambda code: 1, token=token)  # type: ignore[arg-type,return-value]
    assert result == [{"type": "input_text", "text": DECLINED}]


def test_approved_code_returns_items(service: ExecutionService, token: str) -> None:
    result = execute_in_sandbox(
        "log('ok')\ndisplay(Image.new('RGB', (2, 2)))",
        "approved",
        service.endpoint,
        approve=lambda c: True,
        token=token,
    )
    assert result[0] == {"type": "input_text", "text": "ok"}
    assert result[1]["type"] == "input_image" and result[1].get("detail") == "original"


def test_refused_call_raises_a_clear_error(service: ExecutionService) -> None:
    with pytest.raises(ExecutionServiceError, match="HTTP 401"):
        execute_in_sandbox("log(1)", "s", service.endpoint, approve=lambda c: True, token="wrong-token-wrong-token")


def test_unreachable_service_raises_a_clear_error() -> None:
    with pytest.raises(ExecutionServiceError, match="could not be reached"):
        execute_in_sandbox("log(1)", "s", "http://127.0.0.1:9/execute", approve=lambda c: True, token="t" * 20)


@pytest.mark.parametrize(
    "output",
    [
        None,
        [],
        ["text"],
        [{"type": "input_text"}],
        [{"type": "input_image", "image_url": "data:,", "detail": "high"}],
        [{"type": "input_image", "image_url": "data:,", "detail": "original", "file_id": "f"}],
        [{"type": "output_text", "text": "x"}],
    ],
)
def test_invalid_outputs_are_rejected(output: object) -> None:
    with pytest.raises(ValueError):
        validate_output(output)
