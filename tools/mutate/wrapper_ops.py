"""Behavioural operators: single-defect wrappers around the running reference sync browser driver.

Generation enumerates the members the reference driver implements (the documents' member list,
:data:`conformance.members.DRIVER_METHOD_NAMES`, plus ``state``) and reads each member's action and result types
from its annotations (:mod:`tools.mutate.shapes`). Nothing about a particular defect is written down here: each
operator is one rule applied to every member, argument or result field it fits.

At certification time :func:`hooks` turns a variant ID back into hooks for
:class:`tests.broken.drivers.BrokenDriver` (``broken_<member>(arguments, forward)``), the wrapper the kit's own
broken drivers use, so the mutated members keep the reference's signatures.
"""

from __future__ import annotations

import contextlib
import copy
import typing
from collections.abc import Callable
from typing import Any

from openai.lib.browser import BrowserError

from conformance.members import BY_NAME, DRIVER_METHOD_NAMES
from tools.mutate import shapes
from tools.mutate.model import Variant, split_id

Hook = Callable[..., Any]


def _reference_class() -> type:
    # Imported late: the child run imports this module before it imports the (possibly shadowed) reference.
    from reference.browser import PlaywrightBrowserDriver

    return PlaywrightBrowserDriver


def implemented_members() -> list[str]:
    """``state`` and every member the reference sync driver implements, in the documents' order."""
    driver = _reference_class()
    return [name for name in ("state", *DRIVER_METHOD_NAMES) if callable(getattr(driver, name, None))]


def _hints(member: str) -> dict[str, Any]:
    return typing.get_type_hints(getattr(_reference_class(), member))


def action_fields(member: str) -> list[shapes.Field]:
    action = _hints(member).get("action")
    return shapes.fields(action) if action is not None and shapes.is_typed_dict(action) else []


def result_annotation(member: str) -> Any:
    return _hints(member)["return"]


def changes_state(member: str) -> bool:
    return member != "state" and BY_NAME[member].changes_state


def _replacement_rule(annotation: Any) -> str:
    """How ``ignore-arg`` replaces a field: what the description says, and what :func:`_replacement` does."""
    if shapes.is_optional(annotation):
        return "always null, its default"
    if shapes.is_literal(annotation):
        return f"always {typing.get_args(annotation)[0]!r}"
    return "the value of the member's first call, whatever later calls ask"


def generate() -> list[Variant]:
    """Every behavioural variant, in a fixed order (member order, then operator order)."""
    variants: list[Variant] = []

    def add(variant_id: str, description: str) -> None:
        operator, _location = split_id(variant_id)
        variants.append(Variant(variant_id, operator, "browser", description))

    for member in implemented_members():
        if changes_state(member):
            add(f"drop-effect:{member}", f"{member} returns a success result without doing anything")
            add(f"repeat:{member}", f"{member} performs its call twice (an error from the repeat is hidden)")
        for field in action_fields(member):
            add(
                f"ignore-arg:{member}.{field.name}",
                f"{member} ignores {field.name} ({_replacement_rule(field.annotation)})",
            )
        add(f"stale:{member}", f"{member} returns its previous call's result instead of the current one")
        result = result_annotation(member)
        for container, first, second in shapes.swappable_pairs(result):
            where = f" of {container}" if container else ""
            add(
                f"swap-fields:{member}.{_join(container, f'{first}/{second}')}",
                f"{member} swaps {first} and {second}{where} in its result",
            )
        for path in shapes.int_paths(result):
            add(f"field+1:{member}.{path}", f"{member} reports {path} one too high")
            add(f"field-1:{member}.{path}", f"{member} reports {path} one too low")
        if member != "state":
            # state has no refusal to hide: the reference never raises BrowserError from it.
            add(f"swallow-error:{member}", f"{member} hides a BrowserError and returns a success-shaped result")
    return variants


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


# ----- hooks: what a variant does while the certification runs ------------------------------------------------


class _Memory:
    """What one mutated member remembers within one driver (the kit makes a fresh driver for every check)."""

    def __init__(self) -> None:
        self.previous: list[Any] = []  # the last successful result, when there was one
        self.first_arguments: dict[str, Any] | None = None


def hooks(variant_id: str) -> dict[str, Hook]:
    """The BrokenDriver hook that makes ``variant_id``: ``{member: hook}``.

    Every hook is called as ``hook(arguments, forward)`` (``hook(forward)`` for ``state``) and must return what
    the member returns.
    """
    operator, location = split_id(variant_id)
    member, _, detail = location.partition(".")
    if member not in implemented_members():
        raise ValueError(f"{variant_id}: the reference driver has no member {member!r}")
    memory = _Memory()
    success = _success_shaped(member, memory)

    def call(*parameters: Any) -> tuple[tuple[Any, ...], Callable[..., Any]]:
        # BrokenDriver passes (arguments, forward) for members and (forward,) for state.
        *arguments, forward = parameters
        return tuple(arguments), forward

    def remember(result: Any) -> Any:
        memory.previous[:] = [result]
        return result

    def drop_effect(*parameters: Any) -> Any:
        return success()

    def repeat(*parameters: Any) -> Any:
        arguments, forward = call(*parameters)
        result = forward(*arguments)
        # The defect is the repeated effect; a refused repeat reported to the caller would be a second defect.
        with contextlib.suppress(BrowserError):
            forward(*arguments)
        return result

    def ignore_arg(*parameters: Any) -> Any:
        arguments, forward = call(*parameters)
        given = dict(arguments[0])
        if memory.first_arguments is None:
            memory.first_arguments = dict(given)
        annotation = next(field.annotation for field in action_fields(member) if field.name == detail)
        given[detail] = _replacement(annotation, memory.first_arguments.get(detail))
        return forward(given)

    def stale(*parameters: Any) -> Any:
        arguments, forward = call(*parameters)
        result = forward(*arguments)
        previous = list(memory.previous)
        remember(result)
        return previous[0] if previous else result

    def swap_fields(*parameters: Any) -> Any:
        arguments, forward = call(*parameters)
        result = copy.deepcopy(forward(*arguments))
        container, _, pair = detail.rpartition(".")
        first, second = pair.split("/")
        for found in shapes.containers(result, container):
            _swap(found, first, second)
        return result

    def off_by_one(step: int) -> Hook:
        def hook(*parameters: Any) -> Any:
            arguments, forward = call(*parameters)
            result = copy.deepcopy(forward(*arguments))

            def change(container: dict[str, Any], key: str) -> None:
                if isinstance(container[key], int) and not isinstance(container[key], bool):
                    container[key] += step

            shapes.transform(result, detail, change)
            return result

        return hook

    def swallow_error(*parameters: Any) -> Any:
        arguments, forward = call(*parameters)
        try:
            return remember(forward(*arguments))
        except BrowserError:
            return success()

    chosen: dict[str, Hook] = {
        "drop-effect": drop_effect,
        "repeat": repeat,
        "ignore-arg": ignore_arg,
        "stale": stale,
        "swap-fields": swap_fields,
        "field+1": off_by_one(1),
        "field-1": off_by_one(-1),
        "swallow-error": swallow_error,
    }
    if operator not in chosen:
        raise ValueError(f"{variant_id}: {operator} is not a behavioural operator")
    return {member: chosen[operator]}


def _success_shaped(member: str, memory: _Memory) -> Callable[[], Any]:
    """What a member that did not do its work answers: its last real success in this driver, if it had one (the
    likeliest thing a careless driver hands back), else the empty success its result type allows."""

    def success() -> Any:
        if memory.previous:
            return copy.deepcopy(memory.previous[0])
        return shapes.synthesize(result_annotation(member))

    return success


def _replacement(annotation: Any, first_value: Any) -> Any:
    if shapes.is_optional(annotation):
        return None
    if shapes.is_literal(annotation):
        return typing.get_args(annotation)[0]
    return first_value


def _swap(container: dict[str, Any], first: str, second: str) -> None:
    """Trade the two keys' values; a key the result did not carry becomes absent on the other side."""
    missing = object()
    one, two = container.pop(first, missing), container.pop(second, missing)
    if two is not missing:
        container[first] = two
    if one is not missing:
        container[second] = one
