"""The mutation tool's parts, without certifying anything: operators, generation, sampling, judging, reporting.

The end-to-end run (controls and real certifications) is in test_mutate_end_to_end.py.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from openai.lib.browser import BrowserError

from conformance.session import DESELECTED
from tools.mutate import __main__ as cli
from tools.mutate import equivalent, report, runner, shapes, source_ops, variants, wrapped, wrapper_ops
from tools.mutate.model import OPERATORS, Variant, split_id
from tools.mutate.runner import ChildRun, Control, ControlFailed, Outcome


@pytest.fixture(scope="module")
def generated() -> variants.Generated:
    return variants.generate(("browser", "computer"))


# ----- generation ---------------------------------------------------------------------------------------------


def test_generation_is_deterministic_with_unique_ids(generated: variants.Generated) -> None:
    again = variants.generate(("browser", "computer"))
    assert [(v.id, v.description, v.edit) for v in again.variants] == [
        (v.id, v.description, v.edit) for v in generated.variants
    ]
    ids = [variant.id for variant in generated.variants]
    assert len(ids) == len(set(ids))
    for variant in generated.variants:
        operator, location = split_id(variant.id)
        assert operator == variant.operator and location == variant.location
        assert variant.description and "\n" not in variant.description


def test_every_operator_generates_variants(generated: variants.Generated) -> None:
    found = {variant.operator for variant in generated.variants}
    assert found == set(OPERATORS)


def test_a_variant_id_does_not_depend_on_what_else_is_generated(generated: variants.Generated) -> None:
    # Generating one file alone gives the same IDs and edits as generating everything: --variant can find it again.
    alone, _ = source_ops.generate_file("reference/browser/_tabs.py", "browser")
    everything = generated.by_id()
    assert alone and all(everything[variant.id] == variant for variant in alone)
    picked = variants.find(generated, [alone[0].id, "stale:read_page"])
    assert [variant.id for variant in picked] == [alone[0].id, "stale:read_page"]


def test_an_unknown_variant_id_suggests_near_ones(generated: variants.Generated) -> None:
    with pytest.raises(ValueError, match="did you mean stale:read_page"):
        variants.find(generated, ["stale:read_pag"])
    with pytest.raises(ValueError, match="not a variant ID"):
        split_id("no-such-operator:x")


# Small files of each kind of driver code, whose every variant is parsed (all ~3,000 would take half a minute).
PARSED_FILES = ("reference/browser/_tabs.py", "reference/browser/_actions.py", "reference/policy.py")


def test_a_source_mutant_differs_from_the_reference_in_exactly_one_place(generated: variants.Generated) -> None:
    sources: dict[str, bytes] = {}
    parsed = 0
    for variant in generated.variants:
        if variant.edit is None:
            continue
        path = variant.edit.path
        original = sources.setdefault(path, (runner.REPOSITORY / path).read_bytes())
        mutated = variant.edit.apply(original)
        # Every byte before and after the one edited span is the reference's own...
        assert mutated[: variant.edit.start] == original[: variant.edit.start]
        assert mutated[len(mutated) - (len(original) - variant.edit.end) :] == original[variant.edit.end :]
        assert mutated != original, variant.id
        if path in PARSED_FILES:
            # ...and the result is valid Python that is different code, not just different text.
            assert ast.dump(ast.parse(mutated)) != ast.dump(ast.parse(original)), variant.id
            parsed += 1
    assert parsed > 100


TOY = """\
LIMITS = {"low": 1, "high": 10}


def check(value, seen, step):
    if value > 3 and value in seen:
        raise ValueError("refused")
    seen.append(value)
    step += len(seen)
    return "accepted"
"""


def _toy_variants(tmp_path: Path) -> dict[str, str]:
    """The toy module's variants: ID -> the mutated module's text."""
    (tmp_path / "toy.py").write_text(TOY)
    found, incompetent = source_ops.generate_file("toy.py", "browser", root=tmp_path)
    assert not incompetent
    return {variant.id: variant.edit.apply(TOY.encode()).decode() for variant in found if variant.edit is not None}


def test_each_source_operator_makes_its_edit(tmp_path: Path) -> None:
    changed = {
        variant_id: [line for line in text.splitlines() if line not in TOY.splitlines()]
        for variant_id, text in _toy_variants(tmp_path).items()
    }
    assert changed == {
        "swap-dict:toy.py:1": ['LIMITS = {"low": 10, "high": 1}'],
        "const+1:toy.py:1:17": ['LIMITS = {"low": 2, "high": 10}'],
        "const-1:toy.py:1:17": ['LIMITS = {"low": 0, "high": 10}'],
        "const+1:toy.py:1:28": ['LIMITS = {"low": 1, "high": 11}'],
        "const-1:toy.py:1:28": ['LIMITS = {"low": 1, "high": 9}'],
        "skip-if:toy.py:5": ["    if False:"],
        "negate-if:toy.py:5": ["    if not (value > 3 and value in seen):"],
        "drop-operand:toy.py:5:7": ["    if (value in seen):"],
        "drop-operand:toy.py:5:21": ["    if (value > 3):"],
        "boundary:toy.py:5": ["    if (value >= 3) and value in seen:"],
        "const+1:toy.py:5": ["    if value > 4 and value in seen:"],
        "const-1:toy.py:5": ["    if value > 2 and value in seen:"],
        # A refusal becomes the function's own success answer.
        "raise-to-return:toy.py:6": ['        return "accepted"'],
        "drop-call:toy.py:7": ["    pass"],
        "repeat-call:toy.py:7": ["    seen.append(value); seen.append(value)"],
        "aug+1:toy.py:8": ["    step += (len(seen)) + 1"],
    }


def test_an_edit_that_does_not_compile_is_incompetent(tmp_path: Path) -> None:
    # A raise in a class body inside a function would become a return outside any function.
    (tmp_path / "toy.py").write_text('def make():\n    class Inner:\n        raise ValueError("x")\n    return "ok"\n')
    found, incompetent = source_ops.generate_file("toy.py", "browser", root=tmp_path)
    assert [item.id for item in incompetent] == ["raise-to-return:toy.py:3"]
    assert "outside function" in incompetent[0].reason
    assert "raise-to-return:toy.py:3" not in {variant.id for variant in found}


def test_annotations_and_fstrings_are_not_mutated(tmp_path: Path) -> None:
    (tmp_path / "toy.py").write_text(
        "from typing import Literal\n\n\ndef f(x: Literal[1] = 2) -> str:\n    return f'{x:5}'\n"
    )
    found, _ = source_ops.generate_file("toy.py", "browser", root=tmp_path)
    assert sorted(variant.id for variant in found) == ["const+1:toy.py:4", "const-1:toy.py:4"]


# ----- sampling -----------------------------------------------------------------------------------------------


def test_the_sample_is_seeded_sized_and_represents_every_operator(generated: variants.Generated) -> None:
    first = variants.sample(generated.variants, 60, seed=29)
    assert [variant.id for variant in first] == [variant.id for variant in variants.sample(generated.variants, 60, 29)]
    assert len(first) == 60
    assert {variant.operator for variant in first} == set(OPERATORS)
    other = variants.sample(generated.variants, 60, seed=30)
    assert [variant.id for variant in other] != [variant.id for variant in first]


def test_allocation_gives_each_operator_its_floor_then_shares_by_pool() -> None:
    chosen = variants.allocate({"a": 100, "b": 2, "c": 10, "d": 0}, 12)
    # Floors 3, 2 (its whole pool), 3; the 4 left go by what remains of the pools (97 and 7 of 104).
    assert chosen == {"a": 7, "b": 2, "c": 3}
    assert variants.allocate({"a": 2, "b": 1}, 10) == {"a": 2, "b": 1}
    with pytest.raises(ValueError, match="cannot represent"):
        variants.allocate({"a": 5, "b": 5, "c": 5}, 2)


# ----- behavioural operators ----------------------------------------------------------------------------------


class Forward:
    """A stand-in for the reference member: records what it was called with and answers from a script."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.calls: list[tuple[Any, ...]] = []

    def __call__(self, *arguments: Any) -> Any:
        self.calls.append(arguments)
        answer = self.answers[min(len(self.calls), len(self.answers)) - 1]
        if isinstance(answer, BaseException):
            raise answer
        return answer


def _hook(variant_id: str) -> Any:
    hooks = wrapper_ops.hooks(variant_id)
    assert len(hooks) == 1
    return next(iter(hooks.values()))


def test_behavioural_variants_cover_the_reference_members() -> None:
    generated = wrapper_ops.generate()
    members = wrapper_ops.implemented_members()
    assert "state" in members and "navigate" in members and "list_tabs" not in members
    ids = {variant.id for variant in generated}
    assert {"drop-effect:click", "repeat:click", "ignore-arg:navigate.tab_id", "stale:state"} <= ids
    assert {"swap-fields:state.tabs[].title/url", "field+1:state.observation.sequence", "swallow-error:click"} <= ids
    # Reads change nothing, so they have no effect to drop or repeat.
    assert "drop-effect:read_page" not in ids and "repeat:read_page" not in ids


def test_drop_effect_answers_success_without_forwarding() -> None:
    forward = Forward("Clicked.")
    assert _hook("drop-effect:click")({"tab_id": None, "target": "r1"}, forward) == shapes.SUCCESS_TEXT
    assert forward.calls == []
    outcome = _hook("drop-effect:upload_file")({"grant_id": "g"}, Forward())
    assert (outcome["status"], outcome["effect"]) == ("completed", "completed")


def test_repeat_forwards_twice_and_hides_a_refused_repeat() -> None:
    forward = Forward("Closed tab-2.", BrowserError("Unknown tab ID."))
    assert _hook("repeat:close_tab")({"tab_id": "tab-2"}, forward) == "Closed tab-2."
    assert len(forward.calls) == 2


def test_ignore_arg_uses_the_default_a_fixed_literal_or_the_first_value() -> None:
    forward = Forward("ok")
    _hook("ignore-arg:navigate.tab_id")({"tab_id": "tab-2", "url": "http://a/"}, forward)
    assert forward.calls[-1] == ({"tab_id": None, "url": "http://a/"},)
    direction = _hook("ignore-arg:scroll.direction")
    direction({"tab_id": None, "direction": "down", "amount": 3}, forward)
    assert forward.calls[-1][0]["direction"] == "up"
    amount = _hook("ignore-arg:scroll.amount")
    amount({"tab_id": None, "direction": "down", "amount": 3}, forward)
    amount({"tab_id": None, "direction": "down", "amount": 7}, forward)
    assert [call[0]["amount"] for call in forward.calls[-2:]] == [3, 3]


def test_stale_returns_the_previous_result() -> None:
    stale = _hook("stale:state")
    forward = Forward({"tabs": [1]}, {"tabs": [2]}, {"tabs": [3]})
    assert [stale(forward) for _ in range(3)] == [{"tabs": [1]}, {"tabs": [1]}, {"tabs": [2]}]


def _state() -> dict[str, Any]:
    return {
        "tabs": [{"id": "tab-1", "title": "T", "url": "http://a", "active": True}],
        "observation": {
            "version": 1,
            "sequence": 2,
            "dropped_changes": 0,
            "title_truncated": False,
            "changes": [
                {"type": "tab_opened", "tab_id": "tab-1", "sequence": 1},
                {"type": "navigation", "tab_id": "tab-1", "sequence": 2},
            ],
        },
    }


def test_swap_fields_and_off_by_one_change_only_their_fields() -> None:
    state = _state()
    swapped = _hook("swap-fields:state.tabs[].title/url")(Forward(state))
    assert swapped["tabs"][0] == {"id": "tab-1", "title": "http://a", "url": "T", "active": True}
    assert state == _state()  # the reference's own result is never edited in place
    higher = _hook("field+1:state.observation.changes[].sequence")(Forward(state))
    assert [change["sequence"] for change in higher["observation"]["changes"]] == [2, 3]
    lower = _hook("field-1:state.observation.sequence")(Forward(state))
    assert lower["observation"]["sequence"] == 1 and lower["tabs"] == state["tabs"]
    image = _hook("swap-fields:screenshot.file_id/image_url")(
        {"tab_id": None}, Forward({"type": "input_image", "image_url": "x"})
    )
    assert image == {"type": "input_image", "file_id": "x"}


def test_swallow_error_turns_a_refusal_into_the_last_success() -> None:
    swallow = _hook("swallow-error:navigate")
    forward = Forward("Navigated.", BrowserError("That URL is not permitted in this browser."))
    assert swallow({"tab_id": None, "url": "http://a/"}, forward) == "Navigated."
    assert swallow({"tab_id": None, "url": "http://evil/"}, forward) == "Navigated."
    assert _hook("swallow-error:click")({"tab_id": None, "target": "x"}, Forward(BrowserError("no"))) == "Done."


def test_the_probe_finds_which_variants_a_call_would_change() -> None:
    # click always answers the same text, so a stale click is the reference at every call.
    stale_click = _hook("stale:click")
    arguments = ({"tab_id": None, "target": "r1"},)
    assert not wrapped._differs(stale_click, arguments, "Clicked.", None)
    assert not wrapped._differs(stale_click, arguments, "Clicked.", None)
    assert wrapped._differs(_hook("drop-effect:click"), arguments, "Clicked.", None)
    assert wrapped._differs(_hook("repeat:click"), arguments, "Clicked.", None)
    refusal = BrowserError("Unknown tab ID.")
    assert wrapped._differs(_hook("swallow-error:click"), arguments, None, refusal)
    assert not wrapped._differs(_hook("swallow-error:click"), arguments, "Clicked.", None)
    assert not wrapped._differs(_hook("ignore-arg:click.tab_id"), arguments, "Clicked.", None)
    assert wrapped._differs(_hook("ignore-arg:click.tab_id"), ({"tab_id": "tab-2", "target": "r1"},), "ok", None)


def test_result_shapes_come_from_the_annotations() -> None:
    state = wrapper_ops.result_annotation("state")
    assert shapes.int_paths(state) == [
        "observation.sequence",
        "observation.dropped_changes",
        "observation.changes[].sequence",
    ]
    assert ("tabs[]", "title", "url") in shapes.swappable_pairs(state)
    assert shapes.synthesize(wrapper_ops.result_annotation("read_page")) == {
        "version": 1,
        "text": "",
        "elements": [],
        "omitted": [],
    }


# ----- judging, controls, report ------------------------------------------------------------------------------


def _certificate(verdict: str, statuses: dict[str, str], incomplete: list[str] | None = None) -> dict[str, Any]:
    return {
        "verdict": verdict,
        "clauses": [
            {"id": key, "status": value, "reasons": [f"{key} saw it"], "checks": []} for key, value in statuses.items()
        ],
        "run": {"incomplete": incomplete or []},
    }


def test_judging_kills_on_a_failed_clause_a_verdict_a_timeout_or_no_certificate() -> None:
    ok = ChildRun(0, "", 12.0)
    failed = runner.judge(
        "v", ChildRun(1, "", 5.0), _certificate("does not conform", {"BR-A-001": "passed", "BR-B-002": "failed"}), 60
    )
    assert (failed.status, failed.failed_clauses) == ("killed", ("BR-B-002",))
    assert failed.reason.startswith("BR-B-002: BR-B-002 saw it")
    stopped = runner.judge("v", ok, _certificate("not fully checked", {"BR-A-001": "not_checked"}, ["stopped"]), 60)
    assert stopped.status == "killed" and "not fully checked" in stopped.reason
    assert runner.judge("v", ChildRun(None, "", 60.0), None, 60).reason.startswith("timeout")
    assert runner.judge("v", ChildRun(3, "boom\n", 1.0), None, 60).reason.startswith("no certificate (exit 3): boom")
    assert runner.judge("v", ok, _certificate("conforms", {"BR-A-001": "passed"}), 60).status == "survived"


def test_with_checks_selected_only_deselected_clauses_may_stay_unchecked() -> None:
    ok = ChildRun(0, "", 3.0)
    subset = _certificate("not fully checked", {"BR-A-001": "passed", "BR-B-002": "not_checked"})
    subset["clauses"][1]["reasons"] = [DESELECTED]
    assert runner.judge("v", ok, subset, 60, selected=True).reason == "conforms on the selected checks"
    assert runner.judge("v", ok, subset, 60).status == "killed"  # the whole suite was asked for
    stopped = _certificate("not fully checked", {"BR-A-001": "passed", "BR-B-002": "not_checked"})
    assert runner.judge("v", ok, stopped, 60, selected=True).status == "killed"  # a check stopped before it
    unverified = _certificate("not fully checked", {"BR-A-001": "passed", "BR-B-002": "unverified"})
    assert runner.judge("v", ok, unverified, 60, selected=True).status == "killed"


def test_a_control_that_does_not_conform_stops_the_tool(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def refuse(target: str, base: Path, timeout: float, origin: Path, checks: Sequence[str]) -> Control:
        raise ControlFailed("the unmutated reference (browser) does not conform: BR-TAB-001")

    monkeypatch.setattr(runner, "run_control", refuse)
    monkeypatch.setattr(runner, "certify_all", lambda *args, **kwargs: pytest.fail("certified after a failed control"))
    assert cli.main(["--variant", "stale:read_page", "--out", str(tmp_path)]) == 2
    assert "does not conform" in capsys.readouterr().err


def test_the_copy_shadows_the_checkout_and_a_broken_module_is_incompetent(tmp_path: Path) -> None:
    runner.prepare_copy(tmp_path / "plain", None)
    assert runner.import_check(tmp_path / "plain", ["reference.policy"]) is None
    size = len((runner.REPOSITORY / "reference/policy.py").read_bytes())
    broken = Variant(
        "drop-call:reference/policy.py:1",
        "drop-call",
        "browser",
        "test",
        edit=source_ops.Edit("reference/policy.py", size, size, "\nimport no_such_module_anywhere\n"),
    )
    runner.prepare_copy(tmp_path / "broken", broken)
    problem = runner.import_check(tmp_path / "broken", ["reference.policy"])
    assert problem is not None and "no_such_module_anywhere" in problem


def _run(outcomes: list[Outcome], chosen: list[Variant], entries: dict[str, equivalent.Entry]) -> report.Run:
    return report.Run(
        variants=chosen,
        outcomes=outcomes,
        equivalent=entries,
        stale_equivalents=[],
        pools={},
        incompetent=[],
        not_covered=[],
        controls=[Control("browser", "conforms", 40.0)],
        seconds=100.0,
        settings={"jobs": 2, "selection": "test", "targets": ["browser"]},
    )


def test_the_report_scores_killed_over_certified_minus_equivalent(
    generated: variants.Generated, tmp_path: Path
) -> None:
    chosen = variants.find(generated, ["drop-effect:click", "stale:read_page", "stale:state", "repeat:click"])
    outcomes = [
        Outcome("drop-effect:click", "killed", "BR-ACT-001: no click", ("BR-ACT-001",), "does not conform", 10.0),
        Outcome("stale:read_page", "survived", "conforms", (), "conforms", 40.0),
        Outcome("stale:state", "survived", "conforms", (), "conforms", 40.0),
        Outcome("repeat:click", "incompetent", "does not import: x"),
    ]
    entries = {"stale:state": equivalent.Entry("stale:state", "", "argued")}
    data = report.write(_run(outcomes, chosen, entries), tmp_path)
    # 1 killed / (3 certified - 1 equivalent); the incompetent variant counts nowhere.
    assert (data["score"]["killed"], data["score"]["certified"], data["score"]["equivalent"]) == (1, 3, 1)
    assert data["score"]["rate"] == 0.5
    assert data["survivors"] == ["stale:read_page"] and data["survivors_equivalent"] == ["stale:state"]
    markdown = (tmp_path / "report.md").read_text()
    assert "`stale:read_page`: read_page returns its previous call's result" in markdown
    assert json.loads((tmp_path / "report.json").read_text())["incompetent"] == [
        {"id": "repeat:click", "reason": "does not import: x"}
    ]
    row = next(row for row in data["operators"] if row["operator"] == "stale")
    assert (row["certified"], row["killed"], row["survived"], row["equivalent"]) == (2, 0, 2, 1)
    assert data["score"]["line"] == "50.0% killed: 1 / (3 certified - 1 argued equivalent) = 1 / 2"


def test_the_committed_equivalent_list_names_real_variants_with_reasons(generated: variants.Generated) -> None:
    entries = equivalent.load()
    valid, stale = equivalent.matching(entries, generated.variants)
    assert not stale, f"equivalent.toml entries that no longer name their change: {stale}"
    assert all(entry.why for entry in valid.values())


def test_a_stale_equivalent_entry_does_not_count(tmp_path: Path, generated: variants.Generated) -> None:
    path = tmp_path / "equivalent.toml"
    path.write_text(
        '[[equivalent]]\nid = "stale:click"\nchange = "something else"\nwhy = "x"\n'
        '[[equivalent]]\nid = "stale:state"\nwhy = "y"\n'
    )
    valid, stale = equivalent.matching(equivalent.load(path), generated.variants)
    assert list(valid) == ["stale:state"] and stale == ["stale:click"]


def test_the_command_lists_variants(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--list", "--target", "browser"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert "stale:read_page\tread_page returns its previous call's result instead of the current one" in listed
    assert not any(line.startswith("drop-call:reference/computer") for line in listed)


def test_the_package_runs_as_a_module() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "tools.mutate", "--help"],
        cwd=runner.REPOSITORY,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0 and "--variant" in completed.stdout
