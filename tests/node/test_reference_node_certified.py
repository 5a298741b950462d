"""The reference Node driver conforms through the Node bridge: the whole browser suite fails no clause.

The kit certifies it as a JavaScript driver author would
(``pytest --driver=node:reference/node/driver.mjs#makeDriver``), so the run also proves the bridge carries a full
certification end to end. It implements every member (list_tabs is the SDK's own), so nothing may be "not
implemented", failed or left unchecked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.broken.certification import certify

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.child_run, pytest.mark.node]

# Every browser member but list_tabs, the SDK's own.
SUBSET = (
    "navigate",
    "read_page",
    "get_page_text",
    "find",
    "click",
    "type",
    "key",
    "scroll",
    "scroll_to",
    "hover",
    "select_option",
    "set_checked",
    "click_at",
    "hover_at",
    "drag_path",
    "hold_keys",
    "read_page_scoped",
    "read_diagnostics",
    "run_script",
    "upload_file",
    "download_file",
    "wait_for",
    "screenshot",
    "zoom",
    "new_tab",
    "switch_tab",
    "close_tab",
)


@pytest.mark.slow
def test_the_reference_node_driver_is_certified(tmp_path: Path) -> None:
    run = certify("node:reference/node/driver.mjs#makeDriver", tmp_path, timeout=900.0)
    assert run.certificate is not None, f"the run wrote no certificate:\n{run.tail()}"
    profile = run.profile()
    assert sorted(profile.get("implemented", ())) == sorted(SUBSET), profile
    assert "openai (npm)" in profile.get("software", {}), profile
    assert profile.get("flavour") == "async", profile
    run.expect_conforms("the reference Node driver")
