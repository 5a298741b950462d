"""The evidence rerun: a check that failed (or ended unverified) runs once more so its failing step has a picture
of the page from just before it.

Taking a screenshot before every step of every check would slow every passing check, so an ordinary run takes
none (see :class:`conformance.evidence.EvidenceLog`). Instead, when a certificate is written, a check that did not
pass is run a second time, right after its first run's teardown, with a camera on its subject's evidence log: the
driver's own ``screenshot`` member is called before each step. (Playwright's "trace on first retry" is the model.)

- The verdict always comes from the first run. The rerun's reports are never logged, so pytest's summary, junit
  XML and pytest-xdist see the check once; the rerun's result only decides what the evidence says.
- If the rerun fails the same way (same outcome, same clauses, at the same step), its picture from before that
  step replaces the first run's "before" note. If it does not (it passes, hangs, or fails on another clause or
  step), the evidence says so plainly, which is worth knowing in itself: the failure may be flaky.
- The rerun is bounded like any check: every call into its driver runs under the run's deadlines. A check whose
  driver hung (in the check or in its cleanup) is not rerun, nor is a driver without ``screenshot`` (a rerun
  could show no picture).
- Only the first run's evidence is kept; the rerun adds one ``rerun`` entry and at most the "before" picture. It
  travels, like a note, in the first run's teardown report (:data:`PROPERTY`), so it reaches an xdist controller.

- Reruns are budgeted: with ``rerun`` a check is rerun only while the reruns so far have taken at most
  :data:`BUDGET_SHARE` of the run's time, so a driver that fails half the suite is not certified twice over (the
  issue's limit for evidence is 5% of certification time). A check past the budget gets a note saying so;
  ``rerun-all`` lifts the budget.

The mode is ``--evidence``: ``rerun`` (the default when ``--certificate`` is given), ``rerun-all``, ``first-run``
(evidence without the rerun) or ``off`` (no evidence at all); without a certificate there is no evidence, so no
rerun.
"""

from __future__ import annotations

import json
import time
from collections.abc import Generator, Mapping
from dataclasses import dataclass
from typing import Any

import pytest
from _pytest.runner import runtestprotocol

from conformance.evidence import PROPERTY as EVIDENCE_PROPERTY
from conformance.evidence import from_property
from conformance.harness import fixtures
from conformance.harness.computer_subject import ComputerSubject
from conformance.harness.errors import DriverTimeout, bounded, describe_error
from conformance.harness.subject import BrowserSubject
from conformance.options import EVIDENCE_MODES
from conformance.plugin import refuse_evidence_without_certificate
from conformance.session import USER_PROPERTY, CheckResult

PROPERTY = "driverkit-evidence-rerun"
MODES = EVIDENCE_MODES
RERUN_MODES = ("rerun", "rerun-all")
# The share of a run's elapsed time its reruns may take under ``rerun``. The budget is checked before each rerun,
# so a run overshoots it by at most one check's rerun, and the first failing check is always rerun.
BUDGET_SHARE = 0.05
PLUGIN_NAME = "driverkit-evidence-rerun"
RERUN_PICTURE_NOTE = "taken right before the same step on a rerun of the check, which failed the same way"
HUNG = "not rerun: the driver hung, and a driver that hung is not run again (its rerun could hang as long)"
HUNG_IN_CLEANUP = "not rerun: the driver hung in its cleanup, and a driver that hung is not run again"
NO_CAMERA = "not rerun: the driver has no screenshot member, so a rerun could show no picture"
NO_STEP = "not rerun: the check made no call through its subject, so there is no step to take a picture before"
OVER_BUDGET = (
    f"not rerun: earlier reruns already took {BUDGET_SHARE:.0%} of this run's time, the evidence budget "
    "(--evidence=rerun-all reruns every failed or unverified check)"
)

_MODE_KEY = pytest.StashKey[str]()


def evidence_mode(config: pytest.Config) -> str:
    """The run's ``--evidence`` mode: what was given, else ``rerun`` with ``--certificate`` and ``off`` without.

    Raises :class:`pytest.UsageError` for evidence asked of a run that writes no certificate (it would go nowhere).
    """
    found = config.stash.get(_MODE_KEY, None)
    if found is not None:
        return found
    refuse_evidence_without_certificate(config)
    given = config.getoption("--evidence", None)
    certificate = config.getoption("--certificate", None)
    mode = str(given) if given is not None else ("rerun" if certificate else "off")
    if mode in RERUN_MODES and config.getoption("usepdb", False):
        # A failing rerun would stop in the debugger a second time for the same failure.
        mode = "first-run"
    config.stash[_MODE_KEY] = mode
    return mode


@dataclass(frozen=True)
class Failure:
    """How one run of a check did not pass: what a rerun must repeat to be the same failure."""

    outcome: str
    blamed: tuple[str, ...]
    member: str | None  # the member an unverified check names
    steps: int  # calls the check made through its subject, the failing one last
    last_step: str | None
    reason: str
    hung: bool

    @classmethod
    def of(cls, result: CheckResult, evidence: Mapping[str, Any] | None, hung: bool) -> Failure:
        calls = list((evidence or {}).get("calls") or [])
        steps = int((evidence or {}).get("omitted_calls") or 0) + len(calls)
        last = str(calls[-1].get("member")) if calls else None
        return cls(result.outcome, result.blamed, result.member, steps, last, result.reason, hung)

    def same_as(self, other: Failure) -> bool:
        return not other.hung and (self.outcome, self.blamed, self.member, self.steps, self.last_step) == (
            other.outcome,
            other.blamed,
            other.member,
            other.steps,
            other.last_step,
        )

    def where(self) -> str:
        clauses = ", ".join(self.blamed) or "no clause"
        step = f"step {self.steps} ({self.last_step})" if self.last_step else "before any step"
        return f"{self.outcome} ({clauses}) at {step}"


@dataclass(frozen=True)
class _FirstRun:
    failure: Failure
    generation: int | None  # the harness loop's generation when the check ended: a change means a hang since


@dataclass
class RerunResult:
    result: CheckResult | None = None
    evidence: dict[str, Any] | None = None
    hung: bool = False


_FIRST_RUN_KEY = pytest.StashKey[_FirstRun]()
_NOT_RERUN_KEY = pytest.StashKey[str]()
_RERUN_KEY = pytest.StashKey[RerunResult]()
_NEXT_ITEM_KEY = pytest.StashKey[pytest.Item | None]()


def _property(report: pytest.TestReport, name: str) -> str | None:
    return next((str(value) for key, value in report.user_properties if key == name), None)


def _subject(item: pytest.Item) -> BrowserSubject | ComputerSubject | None:
    funcargs: dict[str, Any] = getattr(item, "funcargs", None) or {}
    for name in ("subject", "computer_subject"):
        found = funcargs.get(name)
        if isinstance(found, BrowserSubject | ComputerSubject):
            return found
    return None


def _can_picture(subject: BrowserSubject | ComputerSubject) -> bool:
    if isinstance(subject, BrowserSubject):
        return subject.implements("screenshot")
    return callable(getattr(subject.driver, "screenshot", None))


def _arm_camera(subject: BrowserSubject | ComputerSubject) -> None:
    """Make the subject's log take a picture before each step, through the same direct path as the "after" one."""
    if not _can_picture(subject):
        return
    if isinstance(subject, BrowserSubject):
        browser = subject
        browser.evidence.camera = lambda: browser.call_direct("screenshot", {"tab_id": None})
    else:
        computer = subject
        computer.evidence.camera = lambda: computer.call_direct("screenshot")


def why_not_rerun(first: Failure, can_picture: bool) -> str | None:
    """Why a check that did not pass is not rerun for its evidence, or None when it is."""
    if first.hung:
        return HUNG
    if not can_picture:
        return NO_CAMERA
    if first.steps == 0:
        return NO_STEP
    return None


def _generation(config: pytest.Config) -> int | None:
    loop = config.stash.get(fixtures.LOOP_KEY, None)
    return None if loop is None else loop.generation


def within_budget(spent: float, elapsed: float, share: float | None) -> bool:
    """Whether another rerun may start when reruns have taken ``spent`` of the run's ``elapsed`` seconds."""
    return share is None or spent <= share * elapsed


class EvidenceRerun:
    """The pytest plugin (registered by the plugin only in a rerun mode) that reruns checks for their evidence.

    ``budget_share`` is the share of the run's time reruns may take (None: no budget, every such check is rerun).
    """

    def __init__(self, budget_share: float | None) -> None:
        self.budget_share = budget_share
        self.started = time.perf_counter()
        self.spent = 0.0

    @classmethod
    def for_mode(cls, mode: str) -> EvidenceRerun:
        """The rerun plugin for a rerun ``mode``: ``rerun`` within the budget, ``rerun-all`` without one."""
        return cls(BUDGET_SHARE if mode == "rerun" else None)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_teardown(self, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        # The rerun tears down like the first run did, keeping what the next check shares.
        item.stash[_NEXT_ITEM_KEY] = nextitem

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_call(self, item: pytest.Item) -> None:
        if _RERUN_KEY in item.stash:
            subject = _subject(item)
            if subject is not None:
                _arm_camera(subject)

    # Outermost (tryfirst), so it sees the results and evidence the plugin's own report hook has attached.
    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        rerun = item.stash.get(_RERUN_KEY, None)
        if rerun is not None:
            self._collect(rerun, report, call)
        elif call.when == "call":
            self._after_first_call(item, report, call)
        elif call.when == "teardown":
            addendum = self._after_first_teardown(item)
            if addendum is not None:
                report.user_properties = [*report.user_properties, (PROPERTY, json.dumps(addendum))]
        return report

    @staticmethod
    def _collect(rerun: RerunResult, report: pytest.TestReport, call: pytest.CallInfo[None]) -> None:
        result = _property(report, USER_PROPERTY)
        if result is not None:
            rerun.result = CheckResult.from_property(result)
        evidence = _property(report, EVIDENCE_PROPERTY)
        if evidence is not None:
            rerun.evidence = from_property(evidence)
        if call.when == "call" and call.excinfo is not None and isinstance(call.excinfo.value, DriverTimeout):
            rerun.hung = True

    @staticmethod
    def _after_first_call(item: pytest.Item, report: pytest.TestReport, call: pytest.CallInfo[None]) -> None:
        evidence = _property(report, EVIDENCE_PROPERTY)
        result = _property(report, USER_PROPERTY)
        # Evidence is attached only to a failed or unverified check that used a subject; a strict expected failure
        # that passed has nothing to show again.
        if evidence is None or result is None or hasattr(report, "wasxfail"):
            return
        hung = call.excinfo is not None and isinstance(call.excinfo.value, DriverTimeout)
        subject = _subject(item)
        failure = Failure.of(CheckResult.from_property(result), from_property(evidence), hung)
        why_not = why_not_rerun(failure, subject is not None and _can_picture(subject))
        if why_not is not None:
            item.stash[_NOT_RERUN_KEY] = why_not
        else:
            item.stash[_FIRST_RUN_KEY] = _FirstRun(failure, _generation(item.config))

    def _after_first_teardown(self, item: pytest.Item) -> dict[str, Any] | None:
        not_rerun = item.stash.get(_NOT_RERUN_KEY, None)
        if not_rerun is not None:
            del item.stash[_NOT_RERUN_KEY]
            return {"rerun": {"repeated": None, "note": not_rerun, "seconds": 0.0}}
        first = item.stash.get(_FIRST_RUN_KEY, None)
        if first is None:
            return None
        del item.stash[_FIRST_RUN_KEY]
        if _generation(item.config) != first.generation:
            return {"rerun": {"repeated": None, "note": HUNG_IN_CLEANUP, "seconds": 0.0}}
        if not within_budget(self.spent, time.perf_counter() - self.started, self.budget_share):
            return {"rerun": {"repeated": None, "note": OVER_BUDGET, "seconds": 0.0}}
        added = self._rerun(item, first.failure)
        self.spent += float(added["rerun"]["seconds"])
        return added

    @staticmethod
    def _rerun(item: pytest.Item, first: Failure) -> dict[str, Any]:
        rerun = item.stash[_RERUN_KEY] = RerunResult()
        saved = list(item.user_properties)
        started = time.perf_counter()
        try:
            # runtestprotocol makes a fresh fixture request for an item whose request is gone; the first run's
            # is still set while its own protocol finishes, so it is dropped here (as pytest-rerunfailures does).
            setattr(item, "_request", False)  # noqa: B010 (a private pytest attribute; setattr keeps mypy quiet)
            runtestprotocol(item, log=False, nextitem=item.stash.get(_NEXT_ITEM_KEY, None))
        except Exception as error:  # the kit's own rerun must never cost the first run's report
            note = f"the rerun could not run: {bounded(describe_error(error), 300)}"
            return {"rerun": {"repeated": None, "note": note, "seconds": round(time.perf_counter() - started, 3)}}
        finally:
            del item.stash[_RERUN_KEY]
            # Notes and phase times of the rerun would be counted with the first run's: they are not the verdict's.
            item.user_properties[:] = saved
        seconds = round(time.perf_counter() - started, 3)
        return what_the_rerun_adds(first, rerun, seconds)


def what_the_rerun_adds(first: Failure, rerun: RerunResult, seconds: float) -> dict[str, Any]:
    """What the rerun adds to the first run's evidence: whether the failure repeated, and the picture if it did."""
    if rerun.result is None:
        note = "the failure did not repeat on a rerun: the rerun reported no result"
        return {"rerun": {"repeated": False, "note": note, "seconds": seconds}}
    again = Failure.of(rerun.result, rerun.evidence, rerun.hung)
    if first.same_as(again):
        before = (rerun.evidence or {}).get("before") or {}
        added: dict[str, Any] = {}
        if before.get("image"):
            added["before"] = {"image": before["image"], "note": RERUN_PICTURE_NOTE}
            note = "the failure repeated on a rerun of the check; the picture before the failing step is from it"
        else:
            why = before.get("note") or "no picture"
            note = f"the failure repeated on a rerun of the check, but it gave no picture: {bounded(str(why), 300)}"
        return {"rerun": {"repeated": True, "note": note, "seconds": seconds}, **added}
    if again.outcome == "passed":
        how = "the check passed the second time"
    elif again.hung:
        how = f"the driver hung the second time ({bounded(again.reason, 300)})"
    else:
        how = f"the second time it ended {again.where()} instead of {first.where()}: {bounded(again.reason, 300)}"
    return {"rerun": {"repeated": False, "note": f"the failure did not repeat on a rerun: {how}", "seconds": seconds}}


def with_rerun(evidence: Mapping[str, Any], value: str) -> dict[str, Any]:
    """The first run's ``evidence`` with what its rerun added (a :data:`PROPERTY` value): the ``rerun`` entry, and
    the "before" picture when the failure repeated."""
    addendum = json.loads(value)
    merged = dict(evidence)
    merged["rerun"] = addendum["rerun"]
    if "before" in addendum:
        merged["before"] = addendum["before"]
    return merged
