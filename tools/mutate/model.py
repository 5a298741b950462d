"""The vocabulary of the mutation tool: operators, the mistake families they imitate, and variants.

A *variant* is the reference driver with exactly one defect. Its ID is ``<operator>:<location>`` and never
depends on what else was generated, so ``--variant ID`` finds it again and ``equivalent.toml`` can name it:

- behavioural variants wrap the running reference sync browser driver; the location names the member and, where
  needed, the argument or result field (``stale:read_page``, ``ignore-arg:navigate.tab_id``,
  ``swap-fields:state.tabs[].title/url``, ``field+1:state.observation.sequence``);
- source variants edit one place of a temporary copy of the ``reference`` package; the location is the file and
  line, plus the column when one line holds several candidates (``drop-call:reference/browser/_tabs.py:41``,
  ``const+1:reference/browser/_actions.py:27:16``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

Kind = Literal["wrapper", "source"]
Target = Literal["browser", "computer"]

# The mistakes the issue asks the operators to resemble, in its words.
DROP: Final = "drop a side effect"
REPEAT: Final = "repeat a side effect"
IGNORE: Final = "ignore a parameter"
OFF_BY_ONE: Final = "off-by-one on a counter"
STALE: Final = "return a stale value"
SWAP: Final = "swap two fields"
SKIP_CHECK: Final = "skip a policy check on one path"
ACCEPT: Final = "accept where it must refuse"
FAMILIES: Final = (DROP, REPEAT, IGNORE, OFF_BY_ONE, STALE, SWAP, SKIP_CHECK, ACCEPT)


@dataclass(frozen=True)
class Operator:
    name: str
    kind: Kind
    family: str
    summary: str


def _operators(*operators: Operator) -> dict[str, Operator]:
    return {operator.name: operator for operator in operators}


OPERATORS: Final = _operators(
    # Behavioural wrappers around the running reference driver.
    Operator("drop-effect", "wrapper", DROP, "a state-changing member returns success without forwarding"),
    Operator("repeat", "wrapper", REPEAT, "a state-changing member forwards its call twice"),
    Operator("ignore-arg", "wrapper", IGNORE, "one action field is replaced by its default or a fixed value"),
    Operator("stale", "wrapper", STALE, "a member returns its previous call's result"),
    Operator("swap-fields", "wrapper", SWAP, "two same-typed fields of a result dict trade values"),
    Operator("field+1", "wrapper", OFF_BY_ONE, "an integer field of a result is one too high"),
    Operator("field-1", "wrapper", OFF_BY_ONE, "an integer field of a result is one too low"),
    Operator("swallow-error", "wrapper", ACCEPT, "a BrowserError becomes a success-shaped result"),
    # Edits of one place in a copy of the reference package's source.
    Operator("drop-call", "source", DROP, "a call statement is removed"),
    Operator("repeat-call", "source", REPEAT, "a call statement runs twice"),
    Operator("skip-if", "source", SKIP_CHECK, "an if condition becomes False"),
    Operator("negate-if", "source", SKIP_CHECK, "an if condition is negated"),
    Operator("drop-operand", "source", SKIP_CHECK, "one operand of an and/or is removed"),
    Operator("raise-to-return", "source", ACCEPT, "a raise becomes a return"),
    Operator("const+1", "source", OFF_BY_ONE, "an integer constant is one higher"),
    Operator("const-1", "source", OFF_BY_ONE, "an integer constant is one lower"),
    Operator("aug+1", "source", OFF_BY_ONE, "an augmented assignment adds or subtracts one more"),
    Operator("boundary", "source", OFF_BY_ONE, "a < becomes <= (or the reverse), a > becomes >= (or the reverse)"),
    Operator("swap-dict", "source", SWAP, "two neighbouring entries of a dict literal trade values"),
)


@dataclass(frozen=True)
class Edit:
    """Replace bytes ``start:end`` of one file of the reference package (UTF-8 offsets) with ``replacement``."""

    path: str  # repository-relative, with forward slashes: reference/browser/_tabs.py
    start: int
    end: int
    replacement: str

    def apply(self, source: bytes) -> bytes:
        return source[: self.start] + self.replacement.encode("utf-8") + source[self.end :]


@dataclass(frozen=True)
class Variant:
    """One single-defect variant: its stable ID, how it is made, and a one-line description of the change.

    ``lines`` (source variants) is the span of the changed code, which must have run in the control certification
    for the variant to be worth certifying.
    """

    id: str
    operator: str
    target: Target
    description: str
    edit: Edit | None = None
    lines: tuple[int, int] | None = None

    @property
    def kind(self) -> Kind:
        return OPERATORS[self.operator].kind

    @property
    def family(self) -> str:
        return OPERATORS[self.operator].family

    @property
    def location(self) -> str:
        return self.id.split(":", 1)[1]


def split_id(variant_id: str) -> tuple[str, str]:
    """``(operator, location)`` of a variant ID; raises ValueError for an unknown operator."""
    operator, separator, location = variant_id.partition(":")
    if not separator or operator not in OPERATORS or not location:
        raise ValueError(f"not a variant ID (operator:location with a known operator): {variant_id!r}")
    return operator, location
