"""A JavaScript computer driver as the Python side of the kit sees it (``--computer-driver=node:PATH#EXPORT``).

The factory export receives the desktop as plain JSON (``display``, ``screen_size`` as ``[width, height]``,
``page_url``) plus ``shared()``, and returns the driver or a promise of it; the driver's optional ``close()`` runs
after each check. :class:`NodeComputerDriverView` has one Python method per computer method the JavaScript driver
implements, each a call through the Node host. A JavaScript method that declares the options parameter
(``click(action, { signal })``, ``screenshot({ signal })``) gets a ``cancelled`` keyword, the way a Python method
that names ``cancelled`` does, so the computer checks' cancellation clauses read both languages alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance.harness.computer_environment import ComputerEnvironment
from conformance.node.drivers.driver import NodeDriverView


def action_json(action: object) -> Any:
    """An action (a generated SDK model or a plain dict) as the JSON the Node SDK would hand the driver."""
    dump = getattr(action, "model_dump", None)
    if callable(dump):
        return dump(exclude_none=True)
    return action


class NodeComputerDriverView(NodeDriverView):
    """A computer driver living in the Node host: one method per implemented computer method, and ``close``."""

    call_op = "computer_call"

    def _method(self, member: str, takes_options: bool) -> Callable[..., Any]:
        if member == "screenshot":

            def screenshot_with_signal(*, cancelled: Callable[[], bool] | None = None) -> Any:
                return self.invoke(member, None, cancelled)

            def screenshot_without_signal() -> Any:
                return self.invoke(member, None, None)

            method: Callable[..., Any] = screenshot_with_signal if takes_options else screenshot_without_signal
        else:

            def with_signal(action: object, *, cancelled: Callable[[], bool] | None = None) -> Any:
                return self.invoke(member, action_json(action), cancelled)

            def without_signal(action: object) -> Any:
                return self.invoke(member, action_json(action), None)

            method = with_signal if takes_options else without_signal
        method.__name__ = method.__qualname__ = member
        return method


def desktop_json(env: ComputerEnvironment) -> dict[str, Any]:
    """The desktop as the JavaScript factory receives it (plain JSON)."""
    return {"display": env.display, "screen_size": list(env.screen_size), "page_url": env.page_url}
