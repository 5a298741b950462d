"""A check's environment as a driver factory sees it, with some attributes replaced (or hidden, given None).

Test drivers wrap the reference factory in one: the broken drivers to show it other origins or another start page,
the resilience drivers to leave out ``report_browser_route``. Its own module, because ``tests.broken.drivers``
starts a loop thread when imported.
"""

from __future__ import annotations

from typing import Any


class EnvironmentView:
    """``env`` with the attributes named in ``replaced`` answered from there instead."""

    def __init__(self, env: Any, **replaced: Any) -> None:
        self._env = env
        self._replaced = replaced

    def __getattr__(self, name: str) -> Any:
        if name in self._replaced:
            return self._replaced[name]
        return getattr(self._env, name)
