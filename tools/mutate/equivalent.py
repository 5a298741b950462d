"""The committed list of survivors argued equivalent: ``tools/mutate/equivalent.toml``.

Each entry names a variant ID, the change it made when it was argued (its one-line description), and why no
check following the documents could tell it from the reference. A listed survivor counts as accounted for:
the score is killed / (certified - equivalent).

Source IDs carry line numbers, so an edit of the reference can make an ID name different code. An entry whose
``change`` no longer matches the variant's description is *stale*: it does not count, and the report lists it
so it can be argued again or removed.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from tools.mutate.model import Variant, split_id

DEFAULT_PATH: Final = Path(__file__).with_name("equivalent.toml")


@dataclass(frozen=True)
class Entry:
    id: str
    change: str
    why: str


def load(path: Path = DEFAULT_PATH) -> dict[str, Entry]:
    """The entries by variant ID; a malformed file is an error that says which entry is wrong."""
    if not path.exists():
        return {}
    data = tomllib.loads(path.read_text("utf-8"))
    entries: dict[str, Entry] = {}
    for index, raw in enumerate(data.get("equivalent", [])):
        variant_id, why = raw.get("id"), raw.get("why")
        if not isinstance(variant_id, str) or not isinstance(why, str) or not why.strip():
            raise ValueError(f"{path}: entry {index + 1} needs an id and a why")
        split_id(variant_id)  # an unknown operator is a typo, not an entry
        if variant_id in entries:
            raise ValueError(f"{path}: {variant_id} is listed twice")
        entries[variant_id] = Entry(variant_id, str(raw.get("change", "")), why.strip())
    return entries


def matching(entries: dict[str, Entry], variants: Iterable[Variant]) -> tuple[dict[str, Entry], list[str]]:
    """The entries that still name the change they were argued for, and the IDs of the stale ones (the variant
    is gone, or its ID now names a different change)."""
    described = {variant.id: variant.description for variant in variants}
    valid: dict[str, Entry] = {}
    stale: list[str] = []
    for variant_id, entry in entries.items():
        if variant_id not in described or (entry.change and entry.change != described[variant_id]):
            stale.append(variant_id)
        else:
            valid[variant_id] = entry
    return valid, stale
