"""Client adapter: send approved code to the execution service and return its output items for a function tool.

Shaped after spec/003's adapter: the approval callback sees the exact code first and a refusal returns a text item
instead of running anything; the reply is validated item by item (``input_text``, or ``input_image`` with
``detail: "original"``) before it reaches the model.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Final
from urllib import error, request

from openai.types.responses import ResponseFunctionCallOutputItemListParam

from .protocol import validate_output

TOKEN_VARIABLE: Final = "OPENAI_EXAMPLE_CODE_EXECUTION_TOKEN"
ENDPOINT_VARIABLE: Final = "OPENAI_EXAMPLE_CODE_EXECUTION_URL"
DECLINED: Final = "The person supervising this run did not approve the code, so it was not executed."


class ExecutionServiceError(RuntimeError):
    """The service refused the call or answered with something that is not a valid output list."""


def execute_in_sandbox(
    code: str,
    session_id: str,
    endpoint: str,
    *,
    approve: Callable[[str], bool],
    token: str | None = None,
    timeout_s: float = 30.0,
) -> ResponseFunctionCallOutputItemListParam:
    """Run ``code`` in ``session_id`` at ``endpoint`` once ``approve(code)`` returns exactly True.

    ``token`` defaults to ``OPENAI_EXAMPLE_CODE_EXECUTION_TOKEN``. ``timeout_s`` only bounds how long this client
    waits; the service enforces its own execution deadline.
    """
    if approve(code) is not True:
        return [{"type": "input_text", "text": DECLINED}]
    headers = {"Content-Type": "application/json"}
    bearer = token if token is not None else os.environ.get(TOKEN_VARIABLE)
    if bearer:
        headers["Authorization"] = f"Bearer {bearer}"
    body = json.dumps({"session_id": session_id, "language": "python", "code": code}).encode()
    outgoing = request.Request(endpoint, data=body, headers=headers, method="POST")
    try:
        with request.urlopen(outgoing, timeout=timeout_s) as response:
            payload = json.loads(response.read())
    except error.HTTPError as refused:
        raise ExecutionServiceError(f"The execution service answered HTTP {refused.code}.") from None
    except (OSError, ValueError) as failure:
        raise ExecutionServiceError(f"The execution service could not be reached ({type(failure).__name__}).") from None
    output = payload.get("output") if isinstance(payload, dict) else None
    try:
        items = validate_output(output)
    except ValueError as invalid:
        raise ExecutionServiceError(str(invalid)) from None
    result: ResponseFunctionCallOutputItemListParam = []
    for item in items:
        if item["type"] == "input_text":
            result.append({"type": "input_text", "text": item["text"]})
        else:
            result.append({"type": "input_image", "image_url": item["image_url"], "detail": "original"})
    return result
