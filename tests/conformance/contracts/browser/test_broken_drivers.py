"""The contract suite catches each deliberate defect, on the clause that defect breaks and on no unrelated one.

Every case certifies one driver from ``tests/broken/drivers.py`` (the reference driver with exactly one defect) in a
child pytest run, restricted with ``-k`` to the checks that exercise the broken behaviour, and reads the
certificate it writes. A case passes only when

- every expected clause has status ``failed`` (the suite noticed, and blamed the right clause), and
- every failed clause is either expected or listed as a consequence of the same defect (the suite did not blame
  something the defect does not touch).

Some cases are variants the documents allow; for them the suite must fail nothing at all. One driver implements
a member no check can exercise (its reads are text): its certificate must say so instead of "conforms".
"""

from __future__ import annotations

import inspect
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest
from openai.lib._tool_lifecycle import callable_flavor

from conformance.certificate import verdict_of
from conformance.harness.environment import Environment
from conformance.harness.profile import DriverProfile, declares_cancelled
from conformance.members import DRIVER_METHOD_NAMES
from conformance.requirements import NETWORK_POLICY
from tests.broken import drivers
from tests.broken.certification import Certification, certify

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.child_run]

MODULE = "tests.broken.drivers"


@dataclass(frozen=True)
class Case:
    """One broken driver, the checks that expose it, and what its certificate must say."""

    factory: str
    checks: str  # a -k expression naming the check functions relevant to the defect
    expected: tuple[str, ...]  # clauses that must be "failed"
    related: tuple[str, ...] = ()  # other clauses the same defect may also break (an ID, or a prefix ending in "-")
    options: tuple[str, ...] = ()  # more pytest options for the child run

    def may_fail(self, clause_id: str) -> bool:
        return clause_id in self.expected or any(
            clause_id.startswith(allowed) if allowed.endswith("-") else clause_id == allowed for allowed in self.related
        )

    def certify_and_expect_blamed(self, module: str, directory: Path) -> Certification:
        """Certify this case's driver from ``module`` on its checks: every expected clause failed, and nothing the
        defect is unrelated to. Returns the run for checks of their own."""
        run = certify(f"{module}:{self.factory}", directory, selection=self.checks)
        assert run.certificate is not None, f"the run wrote no certificate:\n{run.tail()}"
        failed = run.with_status("failed")
        missed = [clause_id for clause_id in self.expected if clause_id not in failed]
        assert not missed, (
            f"{self.factory}: the suite did not fail {missed}; failed: {failed}\n"
            f"{run.reasons(list(self.expected))}\n{run.tail(15)}"
        )
        unrelated = [clause_id for clause_id in failed if not self.may_fail(clause_id)]
        assert not unrelated, f"{self.factory}: clauses unrelated to the defect failed:\n{run.reasons(unrelated)}"
        return run


READ_FORM = "test_read_page_reports_the_form"
# The SDK refuses a report that breaks the same rule; that refusal is the defect's consequence, not another one.
SDK = "BR-SDK-001"

DEFECTS: tuple[Case, ...] = (
    # Tab state
    Case("no_active_tab", "test_state_reports_the_page_shown", ("BR-STATE-003",), (SDK,)),
    Case("duplicate_tab_ids", "test_state_reports_the_page_shown", ("BR-STATE-002",), (SDK,)),
    Case(
        "two_active_tabs",
        "test_state_rules_hold_with_several_tabs or test_switch_and_close_change_the_real_tabs",
        ("BR-STATE-003",),
        (SDK, "BR-TAB-"),
    ),
    Case("credentials_in_state_url", "test_credentials_in_a_url_are_never_reported", ("BR-URL-001",)),
    # Observation metadata
    Case(
        "observation_sequence_off_by_one",
        "test_observation_metadata_is_well_formed_and_not_consumed",
        (SDK,),
        ("BR-OBS-",),
    ),
    Case("title_cut_inside_a_character", "test_a_long_title_is_cut_on_a_character_boundary", ("BR-OBS-008",), (SDK,)),
    Case("title_cut_without_flag", "test_a_long_title_is_cut_on_a_character_boundary", ("BR-OBS-008",), (SDK,)),
    # Reads
    Case("duplicate_refs", READ_FORM, ("BR-READ-005",), (SDK,)),
    Case("role_outside_the_seven", READ_FORM, ("BR-READ-006",), (SDK,)),
    Case("empty_label", READ_FORM, ("BR-READ-007",), (SDK,)),
    Case("oversized_ref", READ_FORM, ("BR-READ-008",), (SDK,)),
    Case("unknown_omission_code", READ_FORM, ("BR-READ-012",), (SDK,)),
    Case("checked_on_a_button", READ_FORM, ("BR-READ-010",), (SDK,)),
    Case("page_text_with_elements", "test_page_text_is_reported_intact", ("BR-READ-013",), (SDK,)),
    Case("read_clicks_a_button", "test_reads_change_nothing_on_the_page", ("BR-READ-021",)),
    Case("private_value_in_read", "test_read_page_keeps_private_fields_private", ("BR-PRIV-001",)),
    # The refs checks cannot get a ref from such reads: they say so (unverified), never fail on the kit's own code.
    Case("refs_only_in_text", f"check_refs or {READ_FORM}", ("BR-READ-018",), (SDK,)),
    # Refs and errors
    Case(
        "stale_ref_accepted",
        "check_refs or test_set_checked_refuses_a_replaced_control",
        ("BR-REF-002", "BR-CHK-003"),
        ("BR-ERR-003",),
    ),
    Case("error_with_page_content", "test_browser_errors_are_safe_and_recoverable", ("BR-ERR-001",)),
    # Actions
    Case("type_ignores_focus", "test_type_with_a_null_target_types_at_the_focus", ("BR-ACT-005",)),
    Case(
        "wait_for_returns_at_once",
        "test_wait_for_finds_text_that_appears_late or test_wait_for_absent_text_fails_after_about_its_timeout",
        ("BR-ACT-009", "BR-ACT-010"),
    ),
    Case(
        "set_checked_toggles",
        "check_set_checked",
        ("BR-CHK-002",),
        ("BR-CHK-001", "BR-CHK-004"),
    ),
    Case("ignores_cancellation", "test_an_already_cancelled_call_has_no_effect", ("BR-CANCEL-001",)),
    # Images and pointer input
    Case("screenshot_at_half_size", "test_screenshot_shows_the_current_viewport", ("BR-IMG-002",)),
    # A hover is input too: the screenshot check must count it, not only clicks and keys.
    Case("screenshot_hovers", "test_screenshot_shows_the_current_viewport", ("BR-IMG-006",)),
    # Neither a data URL nor an http(s) URL: a defect the kit judges, not a picture it cannot inspect.
    Case("screenshot_as_bare_base64", "check_images", ("BR-IMG-001",), (SDK,)),
    Case("zoom_ignores_region", "test_zoom_returns_exactly_the_requested_region", ("BR-IMG-004",)),
    Case("click_at_offset", "test_click_at_uses_the_point_button_and_click_count", ("BR-PTR-001",), ("BR-PTR-002",)),
    # Opt-in members
    Case("scoped_read_as_text", "test_a_null_root_discovers_the_visible_sections", ("BR-SCOPE-001",), (SDK,)),
    Case("script_runs_twice", "test_a_script_runs_once_in_the_page_and_returns_text", ("BR-SCRIPT-002",)),
    Case("upload_grant_reused", "test_an_upload_grant_is_honoured_once", ("BR-FILE-005",)),
    # Refs, reads and the start page
    Case("refs_change_between_reads", "test_refs_are_stable_while_the_page_is_unchanged", ("BR-REF-001",)),
    Case("page_text_drops_emoji", "test_page_text_is_reported_intact", ("BR-READ-015",)),
    Case("find_reports_the_first_control", "test_find_reports_the_matching_control", ("BR-READ-020",)),
    Case("errors_carry_library_text", "test_browser_errors_are_safe_and_recoverable", ("BR-ERR-002",)),
    # A driver that never showed its start page is blamed for that, not for what the checks could not then see.
    Case(
        "start_page_never_shown",
        "test_click_activates_exactly_the_referenced_control or test_page_dialogs_are_dismissed_and_never_quoted"
        " or test_screenshot_shows_the_current_viewport or test_read_page_reports_the_form",
        ("BR-STATE-005",),
    ),
    # Ref-based actions
    Case("click_lands_on_the_neighbour", "test_click_activates_exactly_the_referenced_control", ("BR-ACT-002",)),
    # read_page is text only: the refs come from find, and the click that does nothing is caught.
    Case("find_refs_click_never_clicks", "test_click_activates_exactly_the_referenced_control", ("BR-ACT-002",)),
    Case("type_appends", "test_type_fills_the_referenced_control", ("BR-ACT-004",)),
    Case("select_option_by_label", "test_select_option_selects_exactly_the_requested_values", ("BR-ACT-012",)),
    Case("scroll_ignores_direction", "test_scroll_moves_the_page_in_each_direction", ("BR-ACT-007",)),
    Case("scroll_to_does_nothing", "test_scroll_to_brings_an_observed_target_into_view", ("BR-ACT-008",)),
    Case("hover_clicks", "test_hover_puts_the_pointer_over_the_target_without_pressing", ("BR-ACT-013",)),
    Case(
        "bound_consent_still_types_at_the_focus", "test_bound_consent_refuses_focus_dependent_input", ("BR-BIND-001",)
    ),
    Case("key_presses_one_at_a_time", "test_key_presses_keys_and_chords_in_the_focused_control", ("BR-ACT-006",)),
    # Tabs and navigation
    Case("closed_tab_stays_active", "test_switch_and_close_change_the_real_tabs", ("BR-TAB-004",), ("BR-STATE-",)),
    Case("new_tab_ignores_url", "test_new_tab_with_a_url_opens_that_page", ("BR-TAB-001",)),
    Case("switch_tab_does_nothing", "test_switch_and_close_change_the_real_tabs", ("BR-TAB-003",)),
    Case("navigate_ignores_tab_id", "test_navigate_with_a_tab_id_loads_that_tab_only", ("BR-NAV-002",)),
    Case("unknown_tab_scrolls_the_active_tab", "test_unknown_tab_ids_are_refused_and_touch_no_tab", ("BR-TAB-007",)),
    # Network policy and dialogs
    Case("redirect_followed", "test_a_navigation_redirected_away_is_stopped", ("BR-NET-003",)),
    Case("policy_only_in_navigate", "test_popups_to_a_non_permitted_origin_never_reach_it", ("BR-NET-005",)),
    # The check judges confirm() before prompt(), so the accepted prompt is not reached once confirm has failed.
    Case("dialogs_accepted_silently", "test_page_dialogs_are_dismissed_and_never_quoted", ("BR-DLG-002",)),
    # Images, observation, cancellation
    Case("screenshot_is_fixed", "test_a_screenshot_follows_the_page_it_shows", ("BR-IMG-003",)),
    # A history that restarts during a call goes backwards between the SDK's own state reads around it: the SDK
    # rejects that state and would stop the run, which is the failure a driver author sees first.
    Case("observation_restarts_each_call", "test_opening_and_closing_a_tab_is_observed", (SDK,), ("BR-OBS-",)),
    Case("cancelled_honoured_by_some_members", "test_an_already_cancelled_call_has_no_effect", ("BR-CANCEL-001",)),
    # Pointer input
    Case("hover_at_clicks", "test_hover_at_moves_without_pressing", ("BR-PTR-005",)),
    Case("drag_path_skips_the_middle", "test_drag_path_presses_follows_every_point_and_releases", ("BR-PTR-006",)),
    Case("hold_keys_lets_go_at_once", "test_hold_keys_holds_for_the_duration_then_releases", ("BR-PTR-008",)),
    Case("click_at_always_left", "test_click_at_uses_the_point_button_and_click_count", ("BR-PTR-002",)),
    # Opt-in members
    Case("scoped_read_ignores_depth", "test_a_scope_root_and_depth_bound_the_read", ("BR-SCOPE-005",)),
    Case("diagnostics_ignore_the_limit", "test_console_diagnostics_are_bounded_and_filtered", ("BR-DIAG-002",)),
    Case("script_returns_a_number", "test_a_script_runs_once_in_the_page_and_returns_text", ("BR-SCRIPT-001",), (SDK,)),
    Case("download_beyond_its_grant", "test_a_download_grant_is_honoured_once_within_its_limit", ("BR-FILE-011",)),
)

ALLOWED_VARIANTS: tuple[Case, ...] = (
    Case("full_url_in_state", "check_state or check_navigation", ()),
    Case("title_left_for_the_sdk", "test_a_long_title_is_cut_on_a_character_boundary", ()),
    # Checks must not lean on the reference's habits: when a member returns, which tab a new one leaves active,
    # and whether a driver keeps serving calls after refusing a redirect are the driver's to decide.
    Case("new_tab_stays_in_background", "check_tabs or check_navigation or check_refs", ()),
    Case("navigate_returns_before_load", "check_tabs or check_navigation", ()),
    Case("ends_itself_after_a_refused_redirect", "test_a_navigation_redirected_away_is_stopped", ()),
    # A hint ignored by a driver that never had key: nothing shows whether it meant to bind consent.
    Case(
        "ignores_bind_hint_without_key",
        "test_bound_consent_refuses_focus_dependent_input or test_type_with_a_null_target_types_at_the_focus",
        (),
    ),
    # A hint ignored by a driver with every member: coordinate input acting on a replaced page is no defect then.
    Case(
        "ignores_bind_hint",
        "test_bound_consent_refuses_coordinate_input_after_the_page_changed"
        " or test_bound_consent_refuses_focus_dependent_input or test_type_with_a_null_target_types_at_the_focus",
        (),
    ),
    # Its child run sleeps a second per member call: 93 s serial, the longest test of the test command, holding one
    # worker of the outer run while the cores sit idle. Four workers of its own bring it to about 35 s, for the
    # few core-seconds their startup costs; its longest check alone takes 13 s.
    Case(
        "slow_but_correct",
        "check_actions or check_pointer or check_tabs or check_images",
        (),
        options=("-n", "4", "--dist", "worksteal"),
    ),
)


@pytest.mark.parametrize("case", DEFECTS, ids=lambda case: case.factory)
def test_the_suite_blames_the_broken_clause(case: Case, tmp_path: Path) -> None:
    run = case.certify_and_expect_blamed(MODULE, tmp_path)
    assert run.profile().get("flavour") == "sync", f"the broken driver lost its flavour: {run.profile()}"


@pytest.mark.parametrize("case", ALLOWED_VARIANTS, ids=lambda case: case.factory)
def test_the_suite_accepts_what_the_documents_allow(case: Case, tmp_path: Path) -> None:
    run = certify(f"{MODULE}:{case.factory}", tmp_path, selection=case.checks, options=case.options)
    assert run.certificate is not None, f"the run wrote no certificate:\n{run.tail()}"
    failed = run.with_status("failed")
    assert not failed, f"{case.factory} is allowed by the documents, yet these failed:\n{run.reasons(failed)}"
    assert run.with_status("passed"), f"no check passed, so nothing was checked:\n{run.tail(15)}"


# ----- one defect, one finding: a broken precondition blocks what stands on it ---------------------------------


@dataclass(frozen=True)
class RootCase:
    """A defect many checks stand on, and what its certificate must say: the root failed and first, the rest
    blocked by it (never failed, never a reason claiming the driver returned nothing)."""

    factory: str
    checks: str | None  # -k expression, or None for the whole browser suite
    root: str
    blocked: tuple[str, ...]  # clauses that must read "not checked: blocked by <root>"
    options: tuple[str, ...] = ()
    also_failed: tuple[str, ...] = ()  # at most one more clause the same defect may fail


ROOT_CASES: tuple[RootCase, ...] = (
    # Before root-cause blame, the whole suite failed 53 clauses for this one defect, with reasons such as
    # "get_page_text returned None" where the SDK had rejected the state and the member never ran.
    RootCase(
        "no_active_tab",
        None,
        "BR-STATE-003",
        ("BR-READ-015", "BR-READ-020", "BR-ACT-002", "BR-TAB-001", "BR-IMG-001", "BR-NET-002"),
        options=("-n", "2"),
    ),
    # Two tabs claim to be active from the first state on (one real, one ghost).
    RootCase(
        "ghost_active_tab",
        "check_state or check_reads or check_tabs or check_refs",
        "BR-STATE-003",
        ("BR-STATE-001", "BR-READ-018", "BR-REF-001", "BR-REF-004", "BR-TAB-001", "BR-TAB-004"),
    ),
    # The SDK rejects a state whose observation sequence is NaN: the rule broken is named, not "the SDK rejected".
    RootCase(
        "observation_sequence_not_a_number",
        "check_observation or check_dialogs or exploration or long_page_address",
        "BR-OBS-001",
        ("BR-OBS-013",),
    ),
    # A rescaled screenshot is BR-IMG-002's defect; where the picture shows the page is judged in its own scale.
    RootCase("screenshot_at_half_size", "check_images", "BR-IMG-002", ()),
)


@pytest.mark.parametrize("case", ROOT_CASES, ids=lambda case: case.factory)
def test_one_defect_is_one_finding_and_the_first_thing_to_fix(case: RootCase, tmp_path: Path) -> None:
    run = certify(f"{MODULE}:{case.factory}", tmp_path, selection=case.checks, options=case.options)
    assert run.certificate is not None, f"the run wrote no certificate:\n{run.tail()}"
    failed = run.with_status("failed")
    assert case.root in failed, f"{case.factory}: the root {case.root} did not fail; failed: {failed}"
    extra = [clause_id for clause_id in failed if clause_id not in (case.root, *case.also_failed)]
    assert not extra, f"{case.factory}: one defect failed more clauses:\n{run.reasons(extra)}"
    assert run.certificate["fix_first"][0]["clause"] == case.root, run.certificate["fix_first"]
    clauses = {clause["id"]: clause for clause in run.certificate["clauses"]}
    for clause_id in case.blocked:
        clause = clauses[clause_id]
        assert (clause["status"], clause["why"], clause["blocked_by"]) == ("not_checked", "blocked", case.root), (
            f"{clause_id}: {clause['status']} {clause['why']} {clause['blocked_by']} {clause['reasons']}"
        )
    assert set(case.blocked) <= set(run.certificate["fix_first"][0]["blocks"])
    claims = [clause["id"] for clause in clauses.values() if any("returned None" in r for r in clause["reasons"])]
    assert not claims, f"reasons claim a member returned None:\n{run.reasons(claims)}"
    page = (tmp_path / "certificate.md").read_text("utf-8")
    assert page.index("## What to fix first") < page.index(f"1. **{case.root}**") < page.index("## All clauses")


# One requirement missed on several paths is one cause. An allow-list enforced only in navigate and new_tab lets
# redirects, links, popups, subresources and downloads through: five clauses, because the kit checks each path, but
# the documents state one requirement (conformance/requirements.py: the driver's own network policy), so "What to
# fix first" has one entry naming the other paths.
ONE_REQUIREMENT = "policy_only_in_navigate"


def test_one_requirement_missed_on_several_paths_is_one_entry_to_fix(tmp_path: Path) -> None:
    run = certify(f"{MODULE}:{ONE_REQUIREMENT}", tmp_path, selection="check_network")
    assert run.certificate is not None, f"the run wrote no certificate:\n{run.tail()}"
    failed = run.with_status("failed")
    assert len(failed) >= 2 and set(failed) <= set(NETWORK_POLICY.clauses), run.reasons(failed)
    causes = run.certificate["fix_first"]
    assert len(causes) == 1, causes
    assert sorted([causes[0]["clause"], *causes[0]["same_cause"]]) == failed, causes
    page = (tmp_path / "certificate.md").read_text("utf-8")
    assert f"the same requirement also fails {', '.join(causes[0]['same_cause'])}" in page


# A check that needs the page to act first confirms it did: a popup never attempted is not a popup let through.
NOT_PROVOKED = "popup_page_loses_its_query"


def test_a_behaviour_the_page_never_showed_is_not_provoked_not_failed(tmp_path: Path) -> None:
    run = certify(
        f"{MODULE}:{NOT_PROVOKED}", tmp_path, selection="test_popups_to_a_non_permitted_origin_never_reach_it"
    )
    assert run.certificate is not None, f"the run wrote no certificate:\n{run.tail()}"
    clause = next(clause for clause in run.certificate["clauses"] if clause["id"] == "BR-NET-005")
    assert (clause["status"], clause["why"]) == ("not_checked", "not_provoked"), clause
    assert "never recorded opening its popup" in clause["reasons"][0], clause["reasons"]
    assert run.with_status("failed") == [], run.reasons(run.with_status("failed"))
    assert run.certificate["verdict"] == "not fully checked"


# A check's own page refused by a driver that permits less than the task (exact page URLs): nothing was tried on it.
EXACT_URLS = "opens_only_exact_page_urls"


def test_a_page_the_driver_refuses_to_open_leaves_its_network_checks_not_provoked(tmp_path: Path) -> None:
    run = certify(f"{MODULE}:{EXACT_URLS}", tmp_path, selection="check_network")
    assert run.certificate is not None, f"the run wrote no certificate:\n{run.tail()}"
    assert run.with_status("failed") == [], run.reasons(run.with_status("failed"))
    clauses = {clause["id"]: clause for clause in run.certificate["clauses"]}
    for clause_id in ("BR-NET-004", "BR-NET-005", "BR-NET-006", "BR-NET-007"):
        clause = clauses[clause_id]
        assert (clause["status"], clause["why"]) == ("not_checked", "not_provoked"), clause
        assert "the driver refused to open" in clause["reasons"][0], clause["reasons"]
    assert clauses["BR-NET-001"]["status"] == "passed", clauses["BR-NET-001"]


# Shown but silent: a guard that blocks the fixture pages' reports is an environment finding with its fix, told
# apart from a page never shown by the driver's own state(); after the first check proves it, none waits long.
SILENT = "guard_blocks_the_recorder"


def test_pages_shown_whose_reports_are_blocked_are_an_environment_finding(tmp_path: Path) -> None:
    run = certify(f"{MODULE}:{SILENT}", tmp_path, selection="check_reads or check_actions")
    assert run.certificate is not None, f"the run wrote no certificate:\n{run.tail()}"
    assert run.with_status("failed") == [], run.reasons(run.with_status("failed"))
    judged = [clause for clause in run.certificate["clauses"] if clause["why"] != "not_run"]
    assert judged and all(clause["why"] == "environment" for clause in judged), run.reasons([c["id"] for c in judged])
    reason = judged[0]["reasons"][0]
    assert "is shown (state() reports its title" in reason and "allow the kit's fixture origins" in reason
    assert len(run.certificate["run"]["notes"]) <= 1, run.certificate["run"]["notes"]  # said in the reasons, once
    assert run.certificate["verdict"] == "not fully checked"


# ----- a driver the kit cannot fully exercise: unverified, never "conforms" -------------------------------------

# Issue 22's case: reads are plain text and no scoped read is offered, and click checks its target, then does nothing.
UNEXERCISABLE = "text_reads_click_never_clicks"
# The ref-based members such a driver implements, which no check can reach without a structured read.
NEEDS_REFS = {
    "BR-ACT-002": "click",
    "BR-ACT-004": "type",
    "BR-ACT-008": "scroll_to",
    "BR-ACT-012": "select_option",
    "BR-ACT-013": "hover",
}
# What the same checks exercise without any ref: type at the focus, key, scroll, wait_for.
REACHABLE = ("BR-ACT-005", "BR-ACT-006", "BR-ACT-007", "BR-ACT-009", "BR-ACT-010")


def test_members_the_kit_cannot_exercise_are_unverified_not_conforming(tmp_path: Path) -> None:
    run = certify(f"{MODULE}:{UNEXERCISABLE}", tmp_path, selection="check_actions")
    assert run.certificate is not None, f"the run wrote no certificate:\n{run.tail()}"
    clauses = {clause["id"]: clause for clause in run.certificate["clauses"]}
    for clause_id, member in NEEDS_REFS.items():
        clause = clauses[clause_id]
        assert clause["status"] == "unverified", f"{clause_id}: {clause['status']} {clause['reasons']}"
        assert member in clause["members"], f"{clause_id} does not name {member}: {clause['members']}"
        assert any("structured read" in reason for reason in clause["reasons"]), clause["reasons"]
    assert [clause_id for clause_id in REACHABLE if clauses[clause_id]["status"] != "passed"] == [], run.reasons(
        list(REACHABLE)
    )
    # The verdict of the clauses this run judged (deselected checks leave the rest "not checked").
    judged = [clause for clause in clauses.values() if clause["status"] != "not_checked"]
    counts = Counter(clause["status"] for clause in judged)
    members = [member for clause in judged for member in clause.get("members") or []]
    verdict = verdict_of(counts, members)
    assert verdict == f"conforms, {len(set(NEEDS_REFS.values()))} implemented members unverified", (
        verdict,
        run.reasons(sorted(clauses)),
    )


# ----- the broken drivers themselves: one case each, and wrappers the SDK sees exactly like the reference -------


def test_every_broken_driver_has_exactly_one_case() -> None:
    classes = {
        name
        for name, value in vars(drivers).items()
        if inspect.isclass(value) and issubclass(value, drivers.BrokenDriver) and value is not drivers.BrokenDriver
    }
    factories = {
        name: value.__name__
        for name, value in vars(drivers).items()
        if inspect.isfunction(value) and value.__name__ in classes
    }
    assert sorted(factories.values()) == sorted(classes), "every broken driver class needs one --driver factory"
    named = [case.factory for case in (*DEFECTS, *ALLOWED_VARIANTS)] + [UNEXERCISABLE, NOT_PROVOKED, EXACT_URLS, SILENT]
    assert len(named) == len(set(named)), "a broken driver has two cases that judge its clauses"
    # A root-cause case may certify a driver another case already blames, on more checks.
    named += [case.factory for case in ROOT_CASES if case.factory not in named]
    assert sorted(named) == sorted(factories), "every factory needs a case (and every case a factory)"


class _Inner:
    """A stand-in reference driver: every member takes the cancelled keyword, as the reference's do."""

    def state(self, *, cancelled: Any = None) -> dict[str, Any]:
        return {"tabs": [{"id": "t1", "title": "", "url": "about:blank", "active": True}]}

    def __getattr__(self, name: str) -> Any:
        if name not in DRIVER_METHOD_NAMES:
            raise AttributeError(name)

        def member(arguments: dict[str, Any], *, cancelled: Any = None) -> None:
            return None

        return member


class _PlainInner(_Inner):
    """The same stand-in with no cancelled keyword anywhere: wrappers must not invent one."""

    def state(self) -> dict[str, Any]:  # type: ignore[override]
        return super().state()

    def __getattr__(self, name: str) -> Any:
        if name not in DRIVER_METHOD_NAMES:
            raise AttributeError(name)

        def member(arguments: dict[str, Any]) -> None:
            return None

        return member


@pytest.mark.parametrize("inner_type", [_Inner, _PlainInner], ids=["declares-cancelled", "plain"])
def test_wrappers_keep_the_flavour_and_the_cancelled_keyword(inner_type: type[_Inner]) -> None:
    declared = inner_type is _Inner
    for value in vars(drivers).values():
        if not (inspect.isclass(value) and issubclass(value, drivers.BrokenDriver)):
            continue
        broken = value(inner_type(), cast(Environment, None))  # no member runs, so no environment is needed
        assert DriverProfile.of(broken).flavour == "sync", value.__name__
        for name in ("state", *DRIVER_METHOD_NAMES):
            if name in value.HIDDEN:
                assert not hasattr(broken, name), f"{value.__name__} still offers the hidden {name}"
                continue
            method = getattr(broken, name)
            assert declares_cancelled(method) is declared, f"{value.__name__}.{name} changed the cancelled keyword"
            # The SDK's own flavour test (what BrowserToolset applies to each selected member).
            assert callable_flavor(method) is not True, f"{value.__name__}.{name} looks asynchronous to the SDK"
