"""The ``--driver`` factory a behavioural variant is certified with: ``--driver=tools.mutate.wrapped:factory``.

The variant ID comes from the environment (:data:`VARIABLE`), set by the runner for the child certification
only. Two values are not variants: ``none`` is the unmutated wrapper, and ``probe`` is the unmutated wrapper that
also works out, at every call the certification makes, which behavioural variants would have answered or acted
differently there, and appends their IDs to the file :data:`PROBE_VARIABLE` names. A variant that never would
behaves exactly like the reference throughout the certification, so certifying it could only ever survive.

The factory wraps a fresh reference sync driver exactly as the kit's hand-written broken drivers do
(tests/broken/drivers.py).
"""

from __future__ import annotations

import copy
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from openai.lib.browser import BrowserError

from conformance.harness.environment import Environment
from conformance.harness.factory import open_driver
from conformance.harness.loop import HarnessLoop
from tests.broken.drivers import BrokenDriver
from tools.mutate import wrapper_ops
from tools.mutate.wrapper_ops import Hook

VARIABLE: Final = "DRIVERKIT_MUTANT"
PROBE_VARIABLE: Final = "DRIVERKIT_MUTANT_PROBE"
UNMUTATED: Final = "none"
PROBE: Final = "probe"
FACTORY: Final = "tools.mutate.wrapped:factory"

# open_driver needs a loop for awaitable factories; the reference sync factory never gives it anything to run.
_LOOP: Final = HarnessLoop()


class MutantDriver(BrokenDriver):
    """The reference driver with the hooks of one behavioural variant (none for the control)."""

    def __init__(self, inner: Any, env: Environment, mutated: dict[str, Hook]) -> None:
        # BrokenDriver.__init__ looks the hooks up as broken_<member> attributes while it wraps each member, so
        # they must be in place before it runs.
        for member, hook in mutated.items():
            setattr(self, f"broken_{member}", hook)
        super().__init__(inner, env)


class _Probe:
    """Records which behavioural variants the certification exercises (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.exercised: set[str] = set()
        self.lock = threading.Lock()
        self.by_member: dict[str, list[str]] = {}
        for variant in wrapper_ops.generate():
            self.by_member.setdefault(variant.location.partition(".")[0], []).append(variant.id)

    def hooks(self) -> dict[str, Hook]:
        """Pass-through hooks for every member, each simulating that member's variants on a fresh memory (one
        set of simulations per driver, as each variant's hooks would live for one driver)."""
        return {member: self._member_hook(member) for member in self.by_member}

    def _member_hook(self, member: str) -> Hook:
        simulated = {variant_id: wrapper_ops.hooks(variant_id)[member] for variant_id in self.by_member[member]}

        def hook(*parameters: Any) -> Any:
            *arguments, forward = parameters
            try:
                result: Any = forward(*arguments)
                error: BrowserError | None = None
            except BrowserError as raised:
                result, error = None, raised
            changed = [
                variant_id
                for variant_id, variant_hook in simulated.items()
                if _differs(variant_hook, tuple(arguments), result, error)
            ]
            self._record(changed)
            if error is not None:
                raise error
            return result

        return hook

    def _record(self, changed: list[str]) -> None:
        with self.lock:
            new = [variant_id for variant_id in changed if variant_id not in self.exercised]
            if new:
                self.exercised.update(new)
                with self.path.open("a", encoding="utf-8") as stream:
                    stream.writelines(f"{variant_id}\n" for variant_id in new)


def _differs(hook: Hook, arguments: tuple[Any, ...], result: Any, error: BrowserError | None) -> bool:
    """Whether ``hook`` would have forwarded other arguments, forwarded a number of times other than once, or
    answered differently than the reference did (``result``, or ``error`` raised) on this call."""
    forwarded: list[tuple[Any, ...]] = []

    def forward(*given: Any) -> Any:
        forwarded.append(copy.deepcopy(given))
        if error is not None:
            raise error
        return copy.deepcopy(result)

    try:
        answer = hook(*arguments, forward)
    except BrowserError as raised:
        return error is None or raised is not error or len(forwarded) != 1 or forwarded[0] != arguments
    if error is not None:
        return True
    return len(forwarded) != 1 or forwarded[0] != arguments or answer != result


_PROBES: dict[str, _Probe] = {}


def _hooks_for(variant_id: str) -> dict[str, Hook]:
    if variant_id == UNMUTATED:
        return {}
    if variant_id == PROBE:
        path = os.environ.get(PROBE_VARIABLE, "")
        if not path:
            raise RuntimeError(f"{VARIABLE}={PROBE} needs {PROBE_VARIABLE}, the file to record exercised variants in")
        probe = _PROBES.get(path) or _PROBES.setdefault(path, _Probe(Path(path)))
        return probe.hooks()
    return wrapper_ops.hooks(variant_id)


def factory(env: Environment) -> Iterator[MutantDriver]:
    from reference.browser import sync_factory

    variant_id = os.environ.get(VARIABLE, "")
    if not variant_id:
        raise RuntimeError(f"{VARIABLE} names no variant: a behavioural variant ID, {UNMUTATED!r} or {PROBE!r}")
    mutated = _hooks_for(variant_id)
    inner, cleanup = open_driver(sync_factory, env, _LOOP)
    try:
        yield MutantDriver(inner, env, mutated)
    finally:
        cleanup()
