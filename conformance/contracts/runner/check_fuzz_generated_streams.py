"""Generated Responses streams through every mode: the documents' rules on every run, and agreement across modes.

Hypothesis draws whole runs a real server could send (``conformance/streams/strategies.py``): several responses
with every item kind and lifecycle event the kit knows, interleaved calls, and faults (cut streams, malformed
arguments, calls left in progress, repeated events, failed and incomplete endings, failed or undeclared server
results, HTTP failures the client retries). Each cassette runs in every mode of the SDK under check; each run
must keep the rules of ``conformance/streams/properties.py`` and all runs must agree (RN-LOOP-003), unless a
recorded known deviation explains the run (``conformance/streams/known.py``).

A failure is shrunk (hypothesis, then delta debugging over the cassette's events) and written beside the
certificate (``<certificate>/findings/``; without one, $DRIVERKIT_FINDINGS or the temporary directory), ready for
``driverkit replay``. Each shard draws twice the hypothesis profile's ``max_examples``: ``quick`` by default,
``--hypothesis-profile=thorough`` for a long run. Select with ``-m fuzz`` (or ``-k fuzz``). On the Node SDK
(``--sdk=node``) each Node run is also compared with the Python SDK's async run of the same delivery and ledger.

spec/000 "Mix browser, computer, and ordinary functions", "Streaming and interrupted actions", "Choose which tools
can run early", "Bound the native input sent on each request"; spec/002 "Mix browser actions with other tools",
"Handle failures", "Stream and resume".
"""

from __future__ import annotations

import pytest
from hypothesis import settings

from conformance.assertions import ClauseViolation
from conformance.contracts.runner._fuzz import (
    GeneratedStreamFinding,
    findings_directory,
    minimal_finding,
    report,
    search,
    write_finding,
)
from conformance.hypothesis_profiles import QUICK
from conformance.rig import ALL_MODES, Mode
from conformance.rig.modes import active_modes
from conformance.streams import known
from conformance.streams.strategies import RUN_FAULTS, RunFault

# Shards spread one budget over both test workers. Each searches runs with one kind of fault at a time, then the
# last mixes every kind: hypothesis draws related runs one after another, so one search over all kinds at once
# can spend a small budget without meeting some kind at all.
SHARD_FAULTS: tuple[tuple[tuple[RunFault, ...], ...], ...] = (
    (("arguments",), ("call_status",), ("no_answer",)),
    (("server_failed",), ("ending",), ("undeclared_server",)),
    (("http",), ("cut",), ("repeat",)),
    (RUN_FAULTS,),
)
SHARDS = len(SHARD_FAULTS)
# Cassettes per shard for each example the hypothesis profile allows (quick: 12, so 96 cassettes in all, each run
# in every mode: well under the minute the test command may grow by; thorough: 250, so 2,000).
EXAMPLES_PER_PROFILE_EXAMPLE = 2
# Every clause a generated run can be found breaking (conformance/streams/properties.py names each rule's).
CLAUSES = (
    "RN-LOOP-001",
    "RN-LOOP-002",
    "RN-LOOP-003",
    "RN-LOOP-004",
    "RN-STREAM-001",
    "RN-STREAM-002",
    "RN-STREAM-005",
    "RN-STREAM-006",
    "RN-STREAM-008",
    "RN-STREAM-009",
    "RN-STREAM-010",
    "RN-STREAM-011",
    "RN-STREAM-012",
    "RN-SERVER-001",
    "RN-SERVER-002",
    "RN-ERR-001",
    "RN-MCP-005",
    "RN-STEPS-001",
    "RN-STEPS-002",
    "RN-LEDGER-001",
    "RN-LEDGER-002",
    "RN-LEDGER-005",
    "RN-LEDGER-006",
)


def _recognizers() -> tuple[known.Active, ...]:
    python = known.active()
    if active_modes()[0].flavour != "node":
        return python
    from conformance.deviations import load_deviations
    from conformance.node.sdk.subject import NODE_DEVIATIONS_DIR, node_sdk_version

    # Both SDKs' recorded deviations: the Node runs are judged, the Python runs they are compared with are set
    # aside where the Python SDK's own deviation explains them.
    return (*known.active(load_deviations(node_sdk_version(), NODE_DEVIATIONS_DIR)), *python)


def _compared_with() -> tuple[Mode, ...]:
    """In a Node SDK run, the Python SDK's async modes each Node run is compared with; otherwise none."""
    if active_modes()[0].flavour != "node":
        return ()
    return tuple(mode for mode in ALL_MODES if mode.flavour == "async")


def fuzz(shard: int, certificate: str | None) -> None:
    """One shard of the fuzz check: search, and on a finding shrink it, write it and fail on its clause."""
    profile = settings()
    # The quick budget replays the same cassettes every run (a fixed seed per shard), so the test command is
    # repeatable; a longer profile draws fresh ones each time.
    seed = shard if profile.max_examples <= settings.get_profile(QUICK).max_examples else None
    groups = SHARD_FAULTS[shard]
    examples = max(1, profile.max_examples * EXAMPLES_PER_PROFILE_EXAMPLE // len(groups))
    try:
        for number, kinds in enumerate(groups):
            chosen = None if seed is None else seed * 100 + number
            search(
                active_modes(),
                _recognizers(),
                examples=examples,
                seed=chosen,
                faults_from=kinds,
                compare_with=_compared_with(),
            )
    except GeneratedStreamFinding as finding:
        reduction = minimal_finding(finding.cassette, finding.violation, _recognizers())
        path = write_finding(reduction.cassette, finding.violation, findings_directory(certificate))
        raise ClauseViolation(finding.violation.clause, report(finding, reduction, path)) from None


@pytest.mark.fuzz
@pytest.mark.node_sdk  # fuzzes the modes of the SDK under check, the Node SDK's too
@pytest.mark.clause(*CLAUSES)
@pytest.mark.parametrize("shard", range(SHARDS))
def test_fuzz_generated_streams(shard: int, request: pytest.FixtureRequest) -> None:
    fuzz(shard, request.config.getoption("--certificate", None))
