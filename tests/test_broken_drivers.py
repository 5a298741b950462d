"""The contract suite catches each deliberate defect, on the clause that defect breaks and on no unrelated one.

Every case certifies one driver from ``tests/broken/drivers.py`` (the reference driver with exactly one defect) in a
child pytest run, restricted with ``-k`` to the checks that exercise the broken behaviour, and reads the
certificate it writes. A case passes only when

- every expected clause has status ``failed`` (the suite noticed, and blamed the right clause), and
- every failed clause is either expected or listed as a consequence of the same defect (the suite did not blame
  something the defect does not touch).

Two cases are variants the documents allow; for them the suite must fail nothing at all.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest
from openai.lib._tool_lifecycle import callable_flavor

from conformance.driver import DriverProfile
from conformance.environment import Environment
from conformance.members import DRIVER_METHOD_NAMES
from conformance.subject import declares_cancelled
from tests.broken import drivers
from tests.broken.certification import certify

MODULE = "tests.broken.drivers"


@dataclass(frozen=True)
class Case:
    """One broken driver, the checks that expose it, and what its certificate must say."""

    factory: str
    checks: str  # a -k expression naming the check functions relevant to the defect
    expected: tuple[str, ...]  # clauses that must be "failed"
    related: tuple[str, ...] = ()  # other clauses the same defect may also break (an ID, or a prefix ending in "-")

    def may_fail(self, clause_id: str) -> bool:
        return clause_id in self.expected or any(
            clause_id.startswith(allowed) if allowed.endswith("-") else clause_id == allowed for allowed in self.related
        )


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
    Case("zoom_ignores_region", "test_zoom_returns_exactly_the_requested_region", ("BR-IMG-004",)),
    Case("click_at_offset", "test_click_at_uses_the_point_button_and_click_count", ("BR-PTR-001",), ("BR-PTR-002",)),
    # Opt-in members
    Case("scoped_read_as_text", "test_a_null_root_discovers_the_visible_sections", ("BR-SCOPE-001",), (SDK,)),
    Case("script_runs_twice", "test_a_script_runs_once_in_the_page_and_returns_text", ("BR-SCRIPT-002",)),
    Case("upload_grant_reused", "test_an_upload_grant_is_honoured_once", ("BR-FILE-005",)),
)

ALLOWED_VARIANTS: tuple[Case, ...] = (
    Case("full_url_in_state", "check_state or check_navigation", ()),
    Case("title_left_for_the_sdk", "test_a_long_title_is_cut_on_a_character_boundary", ()),
)


@pytest.mark.parametrize("case", DEFECTS, ids=lambda case: case.factory)
def test_the_suite_blames_the_broken_clause(case: Case, tmp_path: Path) -> None:
    run = certify(f"{MODULE}:{case.factory}", tmp_path, selection=case.checks)
    assert run.certificate is not None, f"the run wrote no certificate:\n{run.tail()}"
    assert run.profile().get("flavour") == "sync", f"the broken driver lost its flavour: {run.profile()}"
    failed = run.with_status("failed")
    missed = [clause_id for clause_id in case.expected if clause_id not in failed]
    assert not missed, (
        f"{case.factory}: the suite did not fail {missed}; failed: {failed}\n"
        f"{run.reasons(list(case.expected))}\n{run.tail(15)}"
    )
    unrelated = [clause_id for clause_id in failed if not case.may_fail(clause_id)]
    assert not unrelated, f"{case.factory}: clauses unrelated to the defect failed:\n{run.reasons(unrelated)}"


@pytest.mark.parametrize("case", ALLOWED_VARIANTS, ids=lambda case: case.factory)
def test_the_suite_accepts_what_the_documents_allow(case: Case, tmp_path: Path) -> None:
    run = certify(f"{MODULE}:{case.factory}", tmp_path, selection=case.checks)
    assert run.certificate is not None, f"the run wrote no certificate:\n{run.tail()}"
    failed = run.with_status("failed")
    assert not failed, f"{case.factory} is allowed by the documents, yet these failed:\n{run.reasons(failed)}"
    assert run.with_status("passed"), f"no check passed, so nothing was checked:\n{run.tail(15)}"


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
    named = [case.factory for case in (*DEFECTS, *ALLOWED_VARIANTS)]
    assert sorted(named) == sorted(factories), "every factory needs exactly one case (and every case a factory)"


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
            method = getattr(broken, name)
            assert declares_cancelled(method) is declared, f"{value.__name__}.{name} changed the cancelled keyword"
            # The SDK's own flavour test (what BrowserToolset applies to each selected member).
            assert callable_flavor(method) is not True, f"{value.__name__}.{name} looks asynchronous to the SDK"
