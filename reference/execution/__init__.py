"""A code-execution service for ``exec_py`` function tools (spec/003), and the client adapter that calls it.

with ExecutionService(token, display=":99") as service:
    items = execute_in_sandbox("log(1 + 1)", "session-1", service.endpoint, approve=lambda code: True,
                               token=token)
"""

from .client import ExecutionServiceError, execute_in_sandbox
from .limits import ExecutionLimits
from .protocol import ExecutionRequest, RequestError, parse_request, validate_output
from .sandbox import BubblewrapSandbox, SandboxUnavailable
from .service import EXECUTE_PATH, SESSIONS_PATH, ExecutionService, IsolationUnavailable

__all__ = [
    "EXECUTE_PATH",
    "SESSIONS_PATH",
    "BubblewrapSandbox",
    "ExecutionLimits",
    "ExecutionRequest",
    "ExecutionService",
    "ExecutionServiceError",
    "IsolationUnavailable",
    "RequestError",
    "SandboxUnavailable",
    "execute_in_sandbox",
    "parse_request",
    "validate_output",
]
