"""What the reference driver's members take and return, read from their type annotations.

The behavioural operators are derived from these shapes instead of from a hand-written list: every field of an
action ``TypedDict`` is a parameter a driver could ignore, every ``int`` field of a result is a counter it could
miscount, and two fields of one result dict with the same type are fields it could swap. Reading the SDK's own
annotations keeps the operators in step with the SDK and the reference without a probe run.

A *path* names fields inside a result: ``observation.sequence`` is a key of a nested dict, ``tabs[]`` is every
item of a list (``tabs[].title`` is the title of each tab). The empty path is the result itself.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, Union

# What a text member that did nothing would plausibly say; any non-empty text is a valid result for the SDK.
SUCCESS_TEXT = "Done."


@dataclass(frozen=True)
class Field:
    """One key of a ``TypedDict``: its name, its annotation and whether the dict must carry it."""

    name: str
    annotation: Any
    required: bool


def is_typed_dict(annotation: Any) -> bool:
    return isinstance(annotation, type) and hasattr(annotation, "__required_keys__")


def is_literal(annotation: Any) -> bool:
    return typing.get_origin(annotation) is Literal


def union_arms(annotation: Any) -> tuple[Any, ...]:
    """The arms of ``A | B`` or ``Optional[A]``; a single annotation is its own only arm."""
    if typing.get_origin(annotation) in (Union, types.UnionType):
        return typing.get_args(annotation)
    return (annotation,)


def is_optional(annotation: Any) -> bool:
    return type(None) in union_arms(annotation)


def list_item(annotation: Any) -> Any | None:
    """The item annotation of ``list[X]``, or None for anything else."""
    if typing.get_origin(annotation) is list:
        arguments = typing.get_args(annotation)
        return arguments[0] if arguments else Any
    return None


def fields(typed_dict: Any) -> list[Field]:
    """The keys of a ``TypedDict`` in declaration order."""
    hints = typing.get_type_hints(typed_dict)
    required = typed_dict.__required_keys__
    return [Field(name, annotation, name in required) for name, annotation in hints.items()]


def _dicts_at(annotation: Any, path: str) -> Iterator[tuple[str, Any]]:
    """Every ``TypedDict`` reachable from ``annotation`` with the path that reaches it (unions are walked arm by
    arm, so one path can name a dict of several shapes, as the observation's changes do)."""
    for arm in union_arms(annotation):
        item = list_item(arm)
        if item is not None:
            yield from _dicts_at(item, f"{path}[]")
        elif is_typed_dict(arm):
            yield path, arm
            for field in fields(arm):
                yield from _dicts_at(field.annotation, _join(path, field.name))


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _same_type_key(annotation: Any) -> Any:
    # str | None and Optional[str] are the same type for swapping purposes: compare the set of arms.
    return frozenset(union_arms(annotation))


def int_paths(annotation: Any) -> list[str]:
    """Paths of every ``int`` field reachable from a result annotation (counters and sequence numbers)."""
    found: list[str] = []
    for path, typed_dict in _dicts_at(annotation, ""):
        for field in fields(typed_dict):
            candidate = _join(path, field.name)
            if field.annotation is int and candidate not in found:
                found.append(candidate)
    return found


def swappable_pairs(annotation: Any) -> list[tuple[str, str, str]]:
    """``(container path, field a, field b)`` for two fields of one result dict that share a type.

    Literal fields are left out: their values are fixed tags (``version``, ``type``), and a swap of two tags with
    different value sets would be a malformed result, not a plausible mix-up. Booleans are kept, since two flags
    of one dict are exactly what a driver might confuse.
    """
    found: list[tuple[str, str, str]] = []
    for path, typed_dict in _dicts_at(annotation, ""):
        candidates = [field for field in fields(typed_dict) if not is_literal(field.annotation)]
        for index, first in enumerate(candidates):
            for second in candidates[index + 1 :]:
                if _same_type_key(first.annotation) == _same_type_key(second.annotation):
                    pair = (path, first.name, second.name)
                    if pair not in found:
                        found.append(pair)
    return found


def synthesize(annotation: Any, *, top: bool = True) -> Any:
    """An "empty success" value of ``annotation``: what a driver that did nothing might return.

    Text results say :data:`SUCCESS_TEXT`; dicts carry their required keys, each with the first value its
    annotation allows (the first literal, zero, false, an empty list or text); a union takes its first arm.
    """
    if annotation is str:
        return SUCCESS_TEXT if top else ""
    if is_literal(annotation):
        return typing.get_args(annotation)[0]
    if annotation is bool:
        return False
    if annotation is int:
        return 0
    if annotation is float:
        return 0.0
    if list_item(annotation) is not None:
        return []
    if is_typed_dict(annotation):
        return {field.name: synthesize(field.annotation, top=False) for field in fields(annotation) if field.required}
    arms = union_arms(annotation)
    if len(arms) == 1:
        return None  # a type with no empty value the operators need (none occurs in the SDK's result types)
    if type(None) in arms and not top:
        return None  # an optional field's empty value is null
    return synthesize(next(arm for arm in arms if arm is not type(None)), top=top)


def transform(value: Any, path: str, change: Callable[[dict[str, Any], str], None]) -> None:
    """Apply ``change(container, key)`` in place to every dict the path's last key lives in.

    ``path`` is ``a.b[].c``: the last segment is the key passed to ``change``; the segments before it lead to
    the containers. A container that does not have the key (another arm of a union) is left alone.
    """
    *leading, last = path.split(".")
    for container in _containers(value, leading):
        if last in container:
            change(container, last)


def containers(value: Any, path: str) -> list[dict[str, Any]]:
    """The dicts a container path (``tabs[]``, ``observation``, or ``""`` for the result) names in ``value``."""
    return _containers(value, path.split(".") if path else [])


def _containers(value: Any, segments: list[str]) -> list[dict[str, Any]]:
    current: list[Any] = [value]
    for segment in segments:
        many = segment.endswith("[]")
        key = segment[:-2] if many else segment
        following: list[Any] = []
        for item in current:
            if not isinstance(item, dict):
                continue
            child = item.get(key) if key else item
            if many and isinstance(child, list):
                following.extend(child)
            elif not many and child is not None:
                following.append(child)
        current = following
    return [item for item in current if isinstance(item, dict)]
