"""The mutation tool end to end: the control conforms, a real defect is killed, an argued survivor is accounted for.

Three child certifications of the reference browser driver, each with only the click checks (``--checks``; the
whole suite three times took about two minutes of the test command): the control, a variant that clicks nothing
(every click check must kill it), and a variant that returns click's previous answer (click always answers the same
text, so nothing can tell it apart; a test list argues it equivalent).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools.mutate import __main__ as cli

KILLED = "drop-effect:click"
EQUIVALENT = "stale:click"
# The checks named after clicking (three: click, and click_at twice); a variant of click stands or falls on them.
CLICK_CHECKS = "click"


@pytest.mark.slow
@pytest.mark.child_run
def test_the_tool_kills_a_defect_and_accounts_for_an_equivalent_survivor(tmp_path: Path) -> None:
    listed = tmp_path / "equivalent.toml"
    listed.write_text(
        f'[[equivalent]]\nid = "{EQUIVALENT}"\nwhy = "click answers the same text every time, so its previous '
        'answer is the current one"\n'
    )
    out = tmp_path / "report"
    status = cli.main(
        [
            *("--variant", KILLED, "--variant", EQUIVALENT, "--checks", CLICK_CHECKS),
            *("--equivalent", str(listed), "--out", str(out)),
        ]
    )
    assert status == 0
    data = json.loads((out / "report.json").read_text())
    # Only the click checks ran, so the certificates are "not fully checked": every other clause is deselected.
    assert [control["verdict"] for control in data["controls"]] == ["not fully checked"]
    outcomes = {item["id"]: item for item in data["variants"]}
    assert outcomes[KILLED]["status"] == "killed" and outcomes[KILLED]["failed_clauses"], outcomes[KILLED]
    assert outcomes[KILLED]["reason"].startswith(outcomes[KILLED]["failed_clauses"][0])
    assert outcomes[EQUIVALENT]["status"] == "survived", outcomes[EQUIVALENT]
    assert outcomes[EQUIVALENT]["reason"] == "conforms on the selected checks"
    assert data["survivors"] == [] and data["survivors_equivalent"] == [EQUIVALENT]
    assert data["score"]["line"] == "100.0% killed: 1 / (2 certified - 1 argued equivalent) = 1 / 1"
    markdown = (out / "report.md").read_text()
    assert f"`{EQUIVALENT}`: click returns its previous call's result" in markdown
    assert "| drop-effect | wrapper | drop a side effect |" in markdown
    assert f"checks: {CLICK_CHECKS};" in markdown
