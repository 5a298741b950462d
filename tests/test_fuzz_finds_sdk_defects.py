"""The fuzz check alone finds a single runner defect patched into the installed SDK, and shrinks it to a replay.

Each test patches one misbehaviour into the installed openai runner (the kind of regression a release could
bring), runs the fuzz check's shards with the quick budget until one fails, and requires: the failure names the
defect's clause; the shrunk cassette written beside the certificate has at most ten events; ``driverkit replay``
of that cassette in the failing mode shows the same broken rule while the patch is in place, and not once it is
undone (so the cassette shows the defect, not something else). Patches are those of tests/test_sdk_findings.py's
kind; the hand-made checks there need a chosen cassette, the fuzz check has to find one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import openai._base_client as base_client
import openai.lib.responses_tool_runner as rtr
import pytest
from hypothesis import settings
from openai.lib.streaming.responses import AsyncResponseStream, ResponseStream

from conformance import cassettes
from conformance.assertions import ClauseViolation
from conformance.contracts.runner import check_fuzz_generated_streams
from conformance.contracts.runner._fuzz import FINDING_META
from conformance.hypothesis_profiles import QUICK, register_profiles
from conformance.streams.properties import Violation
from conformance.streams.reproduce import reproduces
from conformance.streams.shrink import size
from tests.broken.sdk_patches import cut_stream_as_complete
from tests.tiers import tiered

# slow: each case fuzzes the patched SDK until the defect shows, 3 to 27 s of CPU a case, about 95 worker-s in all,
# half of what scripts/test.sh --quick would spend; the whole test command runs them.
pytestmark = pytest.mark.slow

Patch = Callable[[pytest.MonkeyPatch], None]
MAX_EVENTS = 10


def _runs_unfinished_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    original = rtr._Run.validate

    def validate(run: Any, item: Any, seen: Any) -> Any:
        if getattr(item, "status", None) == "in_progress":
            item.status = "completed"
        return original(run, item, seen)

    monkeypatch.setattr(rtr._Run, "validate", validate)


def _writes_outputs_in_reverse(monkeypatch: pytest.MonkeyPatch) -> None:
    original = rtr._Run.finish

    def finish(run: Any, response: Any) -> Any:
        run.outputs.reverse()
        return original(run, response)

    monkeypatch.setattr(rtr._Run, "finish", finish)


def _runs_every_function_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    sync_original = rtr.ResponsesToolRunner._execute_function
    async_original = rtr.AsyncResponsesToolRunner._execute_function

    def sync_twice(runner: Any, run: Any, item: Any) -> Any:
        sync_original(runner, run, item)
        return sync_original(runner, run, item)

    async def async_twice(runner: Any, run: Any, item: Any) -> Any:
        await async_original(runner, run, item)
        return await async_original(runner, run, item)

    monkeypatch.setattr(rtr.ResponsesToolRunner, "_execute_function", sync_twice)
    monkeypatch.setattr(rtr.AsyncResponsesToolRunner, "_execute_function", async_twice)


def _decodes_any_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rtr, "_function_args", lambda call: {"reference": call.call_id})


def _takes_incomplete_as_complete(monkeypatch: pytest.MonkeyPatch) -> None:
    original = rtr._Run.preflight

    def preflight(run: Any, response: Any, **options: Any) -> Any:
        response.status = "completed"
        return original(run, response, **options)

    monkeypatch.setattr(rtr._Run, "preflight", preflight)


def _never_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(base_client.BaseClient, "_should_retry", lambda self, response: False)


def _takes_a_cut_stream_as_complete(monkeypatch: pytest.MonkeyPatch) -> None:
    def accumulated(original: Callable[[Any], Any]) -> Callable[[Any], Any]:
        def final(stream: Any) -> Any:
            try:
                return original(stream)
            except RuntimeError:
                return cut_stream_as_complete(stream)

        return final

    def async_accumulated(original: Callable[[Any], Any]) -> Callable[[Any], Any]:
        async def final(stream: Any) -> Any:
            try:
                return await original(stream)
            except RuntimeError:
                return cut_stream_as_complete(stream)

        return final

    monkeypatch.setattr(ResponseStream, "get_final_response", accumulated(ResponseStream.get_final_response))
    monkeypatch.setattr(
        AsyncResponseStream, "get_final_response", async_accumulated(AsyncResponseStream.get_final_response)
    )


DEFECTS: dict[str, tuple[Patch, tuple[str, ...]]] = {
    "runs-unfinished-calls": (_runs_unfinished_calls, ("RN-STREAM-008",)),
    "writes-outputs-in-reverse": (_writes_outputs_in_reverse, ("RN-LOOP-002",)),
    "runs-every-function-twice": (_runs_every_function_twice, ("RN-STREAM-006",)),
    "decodes-any-arguments": (_decodes_any_arguments, ("RN-STREAM-009",)),
    "takes-incomplete-as-complete": (_takes_incomplete_as_complete, ("RN-STREAM-010",)),
    "never-retries": (_never_retries, ("RN-STREAM-012",)),
    # A stream without its completed event taken as complete: a cut one, or one that ended incomplete or failed.
    "takes-a-cut-stream-as-complete": (
        _takes_a_cut_stream_as_complete,
        ("RN-STREAM-011", "RN-STREAM-005", "RN-STREAM-010"),
    ),
}


@pytest.fixture(autouse=True)
def _quick_profile() -> Iterator[None]:
    # The fuzz check's budget is the loaded profile's: the defect must be found within the test command's budget.
    register_profiles()
    previous = settings.get_current_profile_name()
    settings.load_profile(QUICK)
    yield
    settings.load_profile(previous)


def _fuzz_until_found(certificate: Path) -> ClauseViolation | None:
    for shard in range(check_fuzz_generated_streams.SHARDS):
        try:
            check_fuzz_generated_streams.fuzz(shard, str(certificate))
        except ClauseViolation as error:
            return error
    return None


# Three defects (the quickest found) in the default tier, the rest thorough (tests/tiers.py).
@pytest.mark.parametrize(
    "defect",
    tiered(
        sorted(DEFECTS),
        ("never-retries", "writes-outputs-in-reverse", "runs-unfinished-calls", "takes-a-cut-stream-as-complete"),
    ),
)
def test_the_fuzz_check_finds_and_shrinks_the_defect(
    defect: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    patch, clauses = DEFECTS[defect]
    patch(monkeypatch)
    found = _fuzz_until_found(tmp_path)
    assert found is not None, f"the fuzz check's quick budget missed the patched defect {defect}"
    assert found.clause_id in clauses, f"failed on {found.clause_id}, expected one of {clauses}: {found.detail}"
    written = sorted((tmp_path / "findings").glob("*.jsonl"))
    assert len(written) == 1, written
    shrunk = cassettes.load(written[0])
    assert size(shrunk) <= MAX_EVENTS, f"{size(shrunk)} events left in {written[0]}:\n{found.detail}"
    finding = shrunk.meta[FINDING_META]
    assert isinstance(finding, dict)
    target = Violation(finding["clause"], finding["mode"], finding["rule"], finding["detail"], finding["reference"])
    shown, what = reproduces(shrunk, target)
    assert shown, f"driverkit replay --mode {finding['mode']} does not show the finding: {what}"
    monkeypatch.undo()
    assert not reproduces(shrunk, target)[0], "the unpatched SDK shows the same thing: the cassette is not the defect's"
