"""Answers a callback documented to return a Boolean might give instead of exactly ``True`` or ``False``.

Shared by every suite that checks "only exactly ``True`` approves" (confirmation and URL policies in the toolset
suite; Decisions ``verify``, MCP approvals and early-execution flags in the runner suite), so each is fed the same
values.
"""

from __future__ import annotations

from typing import Final

# Values a careless ``if answer:`` would take as approval although none of them is ``True``.
TRUTHY: Final[dict[str, object]] = {
    "one": 1,
    "yes": "yes",
    "True-string": "True",
    "list": [True],
    "dict": {"approve": True},
    "float": 1.0,
}

# Every answer that is not exactly ``True``: the truthy look-alikes, plain refusals, and a callback that fails.
NOT_TRUE: Final[dict[str, object]] = {
    **TRUTHY,
    "none": None,
    "false": False,
    "raises": RuntimeError("approval service down"),
}
