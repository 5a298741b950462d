"""A code-execution function tool (``exec_py``, ``exec_js``) and the model run around it: each script is shown for
approval, then sent to the execution service with :func:`reference.execution.execute_in_sandbox`; every call's
output is kept so the example can say what the runtime returned."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from openai.lib.responses_tool_runner import RegisteredFunction
from openai.types.responses import FunctionToolParam, ResponseFunctionCallOutputItemListParam

from reference.execution import execute_in_sandbox

Outputs = list[ResponseFunctionCallOutputItemListParam]


@dataclass(frozen=True)
class ExecutionTool:
    """``tool`` runs its ``code`` argument in the service's ``language`` runtime; ``where`` names that runtime in
    the approval prompt."""

    tool: FunctionToolParam
    language: str
    where: str

    def function(
        self, endpoint: str, token: str, session_id: str, approve: Callable[[str], bool], outputs: Outputs
    ) -> RegisteredFunction:
        """The tool as an ordinary function for the runner; every script is shown to ``approve`` before it is sent,
        and every call's output is appended to ``outputs``."""

        def execute(args: dict[str, object]) -> ResponseFunctionCallOutputItemListParam:
            code = str(args.get("code", ""))
            items = execute_in_sandbox(
                code,
                session_id,
                endpoint,
                approve=lambda source: approve(f"run in the {self.where} runtime:\n" + source),
                token=token,
                language=self.language,
            )
            outputs.append(items)
            return items

        return RegisteredFunction(tool=self.tool, execute=execute)


def code_tool(name: str, language: str, description: str) -> FunctionToolParam:
    """A strict function tool ``name`` whose one argument, ``code``, is the ``language`` source to run."""
    return {
        "type": "function",
        "name": name,
        "description": description,
        "parameters": {
            "type": "object",
            "properties": {"code": {"type": "string", "description": f"The {language} source to run."}},
            "required": ["code"],
            "additionalProperties": False,
        },
        "strict": True,
    }


def images_returned(outputs: Outputs) -> int:
    """How many images the runtime sent back over every call."""
    return sum(1 for items in outputs for item in items if item["type"] == "input_image")
