"""All variants, deterministically, and a seeded sample in which every operator is represented.

Generation is a pure function of the checkout: the behavioural variants come from the reference driver's members
and types (:mod:`tools.mutate.wrapper_ops`), the source variants from the driver's files
(:mod:`tools.mutate.source_ops`), each list in a fixed order. The sample is drawn per operator with a random
generator seeded by ``seed`` and the operator's name, so adding variants of one operator never reshuffles the
sample of another.
"""

from __future__ import annotations

import difflib
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from tools.mutate import source_ops, wrapper_ops
from tools.mutate.model import Target, Variant
from tools.mutate.source_ops import Incompetent

# Each operator gets at least this many variants in a sample (fewer only when it has fewer), so that every
# operator's kill rate rests on more than one variant; the rest of the sample is shared in proportion to the pools.
MIN_PER_OPERATOR: Final = 3


@dataclass(frozen=True)
class Generated:
    """Every competent variant of the chosen targets, and the edits that do not even compile."""

    variants: list[Variant]
    incompetent: list[Incompetent]

    def by_id(self) -> dict[str, Variant]:
        return {variant.id: variant for variant in self.variants}


def generate(targets: Sequence[Target] = ("browser", "computer"), root: Path = source_ops.REPOSITORY) -> Generated:
    """Behavioural variants (browser only: the computer driver's members return nothing to mutate but their
    effect, which its source variants cover) followed by the source variants of ``root``'s reference package."""
    variants = wrapper_ops.generate() if "browser" in targets else []
    source, incompetent = source_ops.generate(tuple(targets), root)
    return Generated(variants + source, incompetent)


def find(generated: Generated, variant_ids: Iterable[str]) -> list[Variant]:
    """The named variants, in the order given; an unknown ID is an error that suggests the nearest ones."""
    known = generated.by_id()
    found: list[Variant] = []
    for variant_id in variant_ids:
        if variant_id not in known:
            near = difflib.get_close_matches(variant_id, known, n=3, cutoff=0.6)
            hint = f"; did you mean {', '.join(near)}?" if near else ""
            raise ValueError(f"no variant {variant_id!r} (python -m tools.mutate --list shows them all){hint}")
        found.append(known[variant_id])
    return found


def allocate(pools: dict[str, int], size: int) -> dict[str, int]:
    """How many variants of each operator a sample of ``size`` takes: at least :data:`MIN_PER_OPERATOR` each
    (or the whole pool when smaller), the rest in proportion to what remains of each pool (largest remainder,
    ties by operator name)."""
    operators = sorted(name for name, count in pools.items() if count > 0)
    total = sum(pools[name] for name in operators)
    if size >= total:
        return {name: pools[name] for name in operators}
    if size < len(operators):
        raise ValueError(f"a sample of {size} cannot represent all {len(operators)} operators with variants")
    floor = max(1, min(MIN_PER_OPERATOR, size // len(operators)))
    chosen = {name: min(pools[name], floor) for name in operators}
    left = size - sum(chosen.values())
    capacity = {name: pools[name] - chosen[name] for name in operators}
    spare = sum(capacity.values())
    if left > 0 and spare > 0:
        quotas = {name: left * capacity[name] / spare for name in operators}
        for name in operators:
            chosen[name] += int(quotas[name])
        remainder = left - sum(int(quota) for quota in quotas.values())
        by_fraction = sorted(operators, key=lambda name: (-(quotas[name] - int(quotas[name])), name))
        for name in by_fraction:
            if remainder <= 0:
                break
            if chosen[name] < pools[name]:
                chosen[name] += 1
                remainder -= 1
    return chosen


def sample(
    variants: Sequence[Variant], size: int, seed: int, eligible: Callable[[Variant], bool] = lambda _variant: True
) -> list[Variant]:
    """``size`` of the ``eligible`` variants with every operator that has some represented, in generation order.

    Each operator's variants (all of them, eligible or not) are put in a seeded order and the first eligible ones
    taken: which variants are eligible comes from the control run, and a variant that turns (in)eligible in
    another run then moves the sample by that one variant instead of reshuffling the operator's whole sample.
    """
    pools: dict[str, list[Variant]] = {}
    for variant in variants:
        pools.setdefault(variant.operator, []).append(variant)
    counts = allocate({name: sum(1 for variant in pool if eligible(variant)) for name, pool in pools.items()}, size)
    picked: set[str] = set()
    for name, count in counts.items():
        order = sorted(pools[name], key=lambda variant: variant.id)
        random.Random(f"{seed}:{name}").shuffle(order)
        picked.update(variant.id for variant in [variant for variant in order if eligible(variant)][:count])
    return [variant for variant in variants if variant.id in picked]
