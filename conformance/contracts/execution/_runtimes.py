"""The two runtimes the guide describes, as the checks write scripts for them: how a script returns text, sets a
session variable and reads it back, in Python (``log``) and in JavaScript (``console.log``, ``globalThis``)."""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from typing import Any

from conformance.harness.execution_service import ExecutionEndpoint, Reply


@dataclass(frozen=True)
class Runtime:
    language: str
    service: ExecutionEndpoint

    def run(self, session_id: str, code: str) -> Reply:
        return self.service.execute(session_id, code, self.language)

    def log_code(self, text: str) -> str:
        """A script that returns ``text`` as text output."""
        if self.language == "python":
            return f"log({text!r})"
        return f"console.log({json.dumps(text)})"

    def set_code(self, name: str, value: str) -> str:
        """A script that keeps ``value`` in the session's variable ``name`` and says so."""
        if self.language == "python":
            return f"{name} = {value!r}\nlog('set')"
        return f"globalThis.{name} = {json.dumps(value)}; console.log('set')"

    def read_code(self, name: str) -> str:
        """A script that returns the session variable ``name``, or ``<absent>`` when the session has none."""
        if self.language == "python":
            return f"log(globals().get({name!r}, '<absent>'))"
        return f"console.log(typeof globalThis.{name} === 'undefined' ? '<absent>' : globalThis.{name})"


def runtime_for(language: str, service: ExecutionEndpoint) -> Runtime:
    return Runtime(language, service)


def json_item(reply: Reply) -> Any:
    """The first text item of ``reply`` that is a JSON document (a script's report), or None.

    A service may add items of its own (a note that the session was renewed, say): each item is tried alone.
    """
    for text in reply.texts():
        try:
            return json.loads(text.strip())
        except ValueError:
            continue
    return None


def literal_item(reply: Reply) -> Any:
    """The first text item of ``reply`` that is a Python literal (a script's ``repr``), or None."""
    for text in reply.texts():
        try:
            return ast.literal_eval(text.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            continue
    return None
