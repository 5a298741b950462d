"""A run's mode: which runner flavour, how responses are delivered, and whether a ledger records the run.

The documents promise the same semantics in every mode, so the runner suite runs one scenario in each, and
``driverkit replay --mode`` names one the same way (``sync-plain``, ``async-eager``, ``...-ledger``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from conformance.flavours import Flavour

Delivery = Literal["plain", "stream", "eager"]
DELIVERIES: Final[tuple[Delivery, ...]] = ("plain", "stream", "eager")
_FLAVOURS: Final[tuple[Flavour, ...]] = ("sync", "async")
NODE_FLAVOUR: Final[Flavour] = "node"
_LEDGER_SUFFIX: Final = "-ledger"


class ModeError(ValueError):
    """A mode name that does not name a flavour and a delivery."""


@dataclass(frozen=True)
class Mode:
    """``stream`` asks the runner for streamed responses; ``eager`` (only with ``stream``) also starts calls
    before the response completes; ``ledger`` gives the run a checkpoint ledger."""

    flavour: Flavour
    stream: bool
    eager: bool
    ledger: bool = False

    def __post_init__(self) -> None:
        if self.eager and not self.stream:
            raise ModeError("eager delivery needs a streamed run")

    @classmethod
    def of(cls, flavour: Flavour, delivery: Delivery, *, ledger: bool = False) -> Mode:
        return cls(flavour, stream=delivery != "plain", eager=delivery == "eager", ledger=ledger)

    @property
    def delivery(self) -> Delivery:
        return "eager" if self.eager else "stream" if self.stream else "plain"

    @property
    def id(self) -> str:
        return f"{self.flavour}-{self.delivery}{_LEDGER_SUFFIX if self.ledger else ''}"

    def run_options(self) -> dict[str, bool]:
        """The ``runner.run``/``iterate`` keywords that select this delivery."""
        return {"stream": self.stream, "eager": self.eager}


ALL_MODES: Final[tuple[Mode, ...]] = tuple(
    Mode.of(flavour, delivery, ledger=ledger)
    for flavour in _FLAVOURS
    for delivery in DELIVERIES
    for ledger in (False, True)
)
# The Node SDK's runner is async only and has each delivery and the ledger (ResponsesRunnerOptions: stream, eager,
# ledger), so a Node SDK run has one mode per delivery, with and without a ledger.
NODE_MODES: Final[tuple[Mode, ...]] = tuple(
    Mode.of(NODE_FLAVOUR, delivery, ledger=ledger) for delivery in DELIVERIES for ledger in (False, True)
)
_BY_ID: Final = {mode.id: mode for mode in ALL_MODES}
SDKS: Final[tuple[str, ...]] = ("python", "node")
_under_check: list[str] = ["python"]


def use_sdk(sdk: str) -> None:
    """Which SDK this process's checks run against: ``python`` (default) or ``node`` (``--node-sdk``).

    The one place the choice lives: the plugin sets it while configuring a run and resets it when the run ends (so a
    later run in the same process starts from Python), and both suites read it while collecting, the runner suite
    through :func:`active_modes` and the toolset suite through :func:`sdk_under_check`.
    """
    if sdk not in SDKS:
        raise ValueError(f"unknown SDK {sdk!r}; expected one of {', '.join(SDKS)}")
    _under_check[0] = sdk


def sdk_under_check() -> str:
    """``python`` or ``node``: the SDK this run checks (see :func:`use_sdk`)."""
    return _under_check[0]


def active_modes() -> tuple[Mode, ...]:
    """The modes of the SDK under check: :data:`ALL_MODES`, or :data:`NODE_MODES` in a ``--node-sdk`` run."""
    return NODE_MODES if sdk_under_check() == "node" else ALL_MODES


def parse_mode(name: str) -> Mode:
    """The mode a name like ``async-eager`` or ``sync-plain-ledger`` stands for."""
    try:
        return _BY_ID[name]
    except KeyError:
        choices = ", ".join(mode.id for mode in ALL_MODES if not mode.ledger)
        raise ModeError(f"unknown mode {name!r} (choose from {choices}, each optionally with -ledger)") from None
