"""Async twins of sync driver members, made from the sync member so that its signature is written once.

A reference driver's async class offers its sync twin's members as ``async def`` methods with the same parameters,
defaults, annotations and docstrings: the SDK and the kit tell a member's flavour from the method itself (a
coroutine function is async) and look for ``cancelled`` in its signature, and users read both in ``help()``.
:func:`async_twin` makes such a member from the sync one and a coroutine that does the work the async way (a flow
run with the async runner, a call on the driver's worker thread).
"""

from __future__ import annotations

import inspect
import sys
import typing
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, TypeVar, cast

P = ParamSpec("P")
T = TypeVar("T")

# How a twin does its work: called with the async driver, the member's name, and the arguments the sync member
# would have received (defaults applied, without ``self``).
Perform = Callable[[Any, str, tuple[Any, ...], dict[str, Any]], Awaitable[Any]]


def async_twin(
    member: Callable[Concatenate[Any, P], T], perform: Perform
) -> Callable[Concatenate[Any, P], Coroutine[Any, Any, T]]:
    """The ``async def`` twin of the sync method ``member``, as a member of the class whose body calls this.

    The twin does not point back at ``member`` through ``__wrapped__``: the SDK unwraps a method before it tells
    the method's flavour, and would find the sync one.
    """
    signature = inspect.signature(member)
    name = member.__name__

    async def twin(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> T:
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        return cast(T, await perform(self, name, bound.args[1:], bound.kwargs))

    # Named as if written in the calling class's body, the way collections.namedtuple names its class's module.
    caller = sys._getframe(1)
    twin.__module__ = caller.f_globals["__name__"]
    twin.__qualname__ = f"{caller.f_locals['__qualname__']}.{name}"
    twin.__name__ = name
    twin.__doc__ = member.__doc__
    twin.__signature__ = signature  # type: ignore[attr-defined]
    # Resolved where the sync member's names are known: the async twin's module need not import them.
    twin.__annotations__ = typing.get_type_hints(member)
    return twin


__all__ = ["Perform", "async_twin"]
