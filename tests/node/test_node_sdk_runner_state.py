"""The runner-state checks with a Node form fail on a Node SDK with the matching defect: each patch plants one defect
in a copy of npm ``openai`` (tests/node/npm_patches.py) and the check must blame exactly its clause, while an
unpatched copy passes the same checks (the Python SDK's patches: tests/test_sdk_findings_runner_state.py).
"""

from __future__ import annotations

import pytest

from tests.node.npm_patches import (
    TOOL_RUNNER_MODULE,
    NpmPatch,
    patched_copies_fail_exactly_their_clause,
    unpatched_copy_passes,
)

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.child_run, pytest.mark.node]


PATCHES: dict[str, NpmPatch] = {
    # Without Web Crypto the declaration is saved as given, raw URL included.
    "raw-url-without-webcrypto": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "throw new TypeError('MCP checkpoint storage requires Web Crypto SHA-256 support.');",
        "return registry;",
        "conformance/contracts/runner/check_node_webcrypto.py::test_no_raw_mcp_url_is_saved_without_webcrypto",
        "RN-MCP-016",
    ),
}


test_a_patched_node_sdk_fails_exactly_its_clause = patched_copies_fail_exactly_their_clause(PATCHES)


test_an_unpatched_copy_passes_the_same_checks = unpatched_copy_passes(PATCHES)
