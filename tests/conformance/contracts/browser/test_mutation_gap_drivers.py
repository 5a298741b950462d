"""The checks written for mutation testing's real gaps catch their defect, on their clause alone.

Each case certifies one driver from ``tests/broken/mutation_gap_drivers.py`` (the reference driver with one defect, a
surviving mutant of tools/mutate/SURVIVORS.md made by hand) in a child pytest run restricted to the checks the defect
touches, in the manner of ``test_broken_drivers.py``: the expected clause must be failed and no other clause may be.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from tests.broken import mutation_gap_drivers
from tests.broken.drivers import BrokenDriver
from tests.conformance.contracts.browser.test_broken_drivers import Case

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.child_run]

MODULE = "tests.broken.mutation_gap_drivers"

MUTATION_GAP_DEFECTS: tuple[Case, ...] = (
    Case(
        "new_tab_refusal_reported_as_success",
        "test_new_tab_to_a_non_permitted_origin_is_refused or test_navigate_to_a_non_permitted_origin_is_refused",
        ("BR-NET-008",),
    ),
    Case(
        "modifiers_released_twice",
        "test_click_at_holds_modifiers_only_for_the_click or test_click_at_uses_the_point_button_and_click_count",
        ("BR-PTR-004",),
    ),
    Case(
        "dismissed_dialogs_never_noticed",
        "test_each_dismissed_dialog_is_noticed_with_its_kind or test_page_dialogs_are_dismissed_and_never_quoted",
        ("BR-DLG-004",),
    ),
    Case(
        "gives_up_on_a_slow_page",
        "test_navigate_to_a_slow_page_waits_for_it or test_navigate_loads_the_page_in_the_active_tab",
        ("BR-NAV-001",),
    ),
)


@pytest.mark.parametrize("case", MUTATION_GAP_DEFECTS, ids=lambda case: case.factory)
def test_the_suite_blames_the_mutation_gap_clause(case: Case, tmp_path: Path) -> None:
    case.certify_and_expect_blamed(MODULE, tmp_path)


def test_every_mutation_gap_driver_has_exactly_one_case() -> None:
    classes = {
        name
        for name, value in vars(mutation_gap_drivers).items()
        if inspect.isclass(value)
        and issubclass(value, BrokenDriver)
        and value.__module__ == mutation_gap_drivers.__name__
    }
    factories = {value.__name__ for value in vars(mutation_gap_drivers).values() if inspect.isfunction(value)}
    assert factories & classes == classes, "every mutation gap driver class needs one --driver factory"
    named = [case.factory for case in MUTATION_GAP_DEFECTS]
    assert len(named) == len(set(named)), "a mutation gap driver has two cases"
    by_factory = [
        name
        for name, value in vars(mutation_gap_drivers).items()
        if inspect.isfunction(value) and value.__name__ in classes
    ]
    assert sorted(named) == sorted(by_factory), "every mutation gap factory needs a case (and every case a factory)"
