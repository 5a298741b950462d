"""A code-execution function tool (``exec_py``, ``exec_js``): each script is shown for approval, then sent to the
execution service with :func:`reference.execution.execute_in_sandbox`; every call's output is kept for the check."""

from __future__ import annotations

from collections.abc import Callable

from openai.lib.responses_tool_runner import RegisteredFunction
from openai.types.responses import FunctionToolParam, ResponseFunctionCallOutputItemListParam

from reference.execution import execute_in_sandbox


def execution_function(
    tool: FunctionToolParam,
    language: str,
    where: str,
    endpoint: str,
    token: str,
    session_id: str,
    approve: Callable[[str], bool],
    outputs: list[ResponseFunctionCallOutputItemListParam],
) -> RegisteredFunction:
    """``tool`` as an ordinary function tool running its ``code`` argument in ``language``; ``where`` names the
    runtime in the approval prompt."""

    def execute(args: dict[str, object]) -> ResponseFunctionCallOutputItemListParam:
        code = str(args.get("code", ""))
        items = execute_in_sandbox(
            code,
            session_id,
            endpoint,
            approve=lambda source: approve(f"run in the {where} runtime:\n" + source),
            token=token,
            language=language,
        )
        outputs.append(items)
        return items

    return RegisteredFunction(tool=tool, execute=execute)
