"""The checks written for the coverage map's browser-driver gaps catch their defect, on their clause alone.

Each case certifies one driver from ``tests/broken/gap_drivers.py`` (the reference driver with exactly one defect)
in a child pytest run restricted to the checks the defect touches, in the manner of ``test_broken_drivers.py``: the
expected clause must be failed and no other clause may be.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from tests.broken import gap_drivers
from tests.broken.drivers import BrokenDriver
from tests.conformance.contracts.browser.test_broken_drivers import SDK, Case

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.child_run]

MODULE = "tests.broken.gap_drivers"

GAP_DEFECTS: tuple[Case, ...] = (
    Case(
        "set_checked_no_op_skips_the_ref",
        "test_set_checked_no_op_still_refuses_a_replaced_control or test_set_checked_refuses_a_replaced_control",
        ("BR-CHK-005",),
    ),
    Case(
        "hold_keys_skips_unknown_keys",
        "test_hold_keys_with_an_unsupported_key_holds_nothing or test_hold_keys_holds_for_the_duration_then_releases",
        ("BR-PTR-011",),
    ),
    Case(
        "scope_refs_follow_their_label",
        "test_scope_refs_expire_when_their_section_is_re_rendered_or_hidden"
        " or test_scope_refs_expire_with_their_document",
        ("BR-SCOPE-011",),
    ),
    Case(
        "scoped_read_clicks_a_button",
        "test_opt_in_reads_change_nothing_on_the_page or test_reads_change_nothing_on_the_page",
        ("BR-READ-022",),
    ),
    Case(
        "scripts_run_in_blank_tabs",
        "test_a_script_in_a_page_nobody_allowed_is_refused or test_a_script_runs_once_in_the_page_and_returns_text",
        ("BR-SCRIPT-005",),
    ),
    Case(
        "defines_list_tabs",
        "test_the_driver_leaves_list_tabs_to_the_toolset or test_state_reports_the_page_shown",
        ("BR-STATE-006",),
        (SDK,),
    ),
    Case(
        "coordinates_follow_the_new_page",
        "test_bound_consent_refuses_coordinate_input_after_the_page_changed"
        " or test_bound_consent_refuses_focus_dependent_input",
        ("BR-BIND-004",),
    ),
    Case(
        "state_ignores_cancellation",
        "test_a_pending_state_read_ends_when_cancelled or test_a_running_wait_stops_when_cancelled",
        ("BR-CANCEL-004",),
    ),
    Case(
        "switch_reported_as_navigation",
        "test_switching_tabs_is_observed or test_opening_and_closing_a_tab_is_observed",
        ("BR-OBS-010",),
    ),
    Case(
        "policy_refusal_reported_as_unsupported",
        "test_a_refused_navigation_is_observed or test_a_navigation_is_observed",
        ("BR-OBS-011",),
    ),
    Case(
        "download_reported_as_refused_navigation",
        "test_a_download_attempt_is_observed or test_observation_metadata_is_well_formed_and_not_consumed",
        ("BR-OBS-012",),
    ),
    Case(
        "history_keeps_the_oldest",
        "test_a_full_change_history_drops_its_oldest_changes or test_a_navigation_is_observed",
        ("BR-OBS-013",),
        # The reference underneath keeps a longer history, so a later read may list a change an earlier one counted
        # as dropped: that is the same defect seen from BR-OBS-005.
        ("BR-OBS-005",),
    ),
    Case(
        "profile_carries_user_cookies",
        "test_the_session_starts_from_a_fresh_profile or test_read_page_keeps_private_fields_private",
        ("BR-PRIV-006",),
    ),
)


@pytest.mark.parametrize("case", GAP_DEFECTS, ids=lambda case: case.factory)
def test_the_suite_blames_the_gap_clause(case: Case, tmp_path: Path) -> None:
    case.certify_and_expect_blamed(MODULE, tmp_path)


def test_every_gap_driver_has_exactly_one_case() -> None:
    classes = {
        name
        for name, value in vars(gap_drivers).items()
        if inspect.isclass(value) and issubclass(value, BrokenDriver) and value.__module__ == gap_drivers.__name__
    }
    factories = {value.__name__ for value in vars(gap_drivers).values() if inspect.isfunction(value)} & classes
    assert factories == classes, "every gap driver class needs one --driver factory"
    named = [case.factory for case in GAP_DEFECTS]
    assert len(named) == len(set(named)), "a gap driver has two cases"
    by_factory = {
        name: value.__name__
        for name, value in vars(gap_drivers).items()
        if inspect.isfunction(value) and value.__name__ in classes
    }
    assert sorted(named) == sorted(by_factory), "every gap factory needs a case (and every case a factory)"
