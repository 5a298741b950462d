"""Known SDK deviations for the runner checks, applied as strict xfails for the SDK version they were found in.

The checks stay written to the documents; where openai 3.57.0 disagrees, the check is expected to fail on that
version only, and ``strict`` turns an unexpected pass into a failure so a fix in the SDK is noticed.
(The kit-wide deviation registry, conformance/deviations.py, did not exist when these were found; the lead can
move these entries into conformance/known_deviations/3.57.0.toml.)
"""

from __future__ import annotations

from importlib.metadata import version

import pytest

# (SDK version, test name prefix, mode-id fragment or "" for every mode, why it deviates)
RUNNER_DEVIATIONS: tuple[tuple[str, str, str, str], ...] = (
    (
        "3.57.0",
        "test_gap_defers_suffix_then_continues",
        "eager",
        "eager runs stop with 'Completed response differs from collected stream output.' when an index is never "
        "streamed, although spec/000 says the suffix after a gap waits for the completed response; the same "
        "cassette succeeds without eager (a mode difference)",
    ),
    (
        "3.57.0",
        "test_browser_failure_skips_rest_of_response_and_recovers",
        "ledger",
        "with a ledger a recoverable BrowserError stops the run ('Browser result requires reconciliation before "
        "another call.'), although spec/000 (browser failures) and spec/002 'Handle failures' say the runner "
        "skips later browser calls in that response and lets the model recover next turn, with no ledger caveat",
    ),
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    installed = version("openai")
    for item in items:
        for sdk, name, mode_fragment, reason in RUNNER_DEVIATIONS:
            if sdk != installed or not item.name.startswith(name + "["):
                continue
            mode_id = item.name[len(name) + 1 : -1]
            if mode_fragment in mode_id.split("-"):
                item.add_marker(pytest.mark.xfail(strict=True, reason=f"known deviation in openai {sdk}: {reason}"))
