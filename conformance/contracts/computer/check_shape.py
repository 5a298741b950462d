"""The driver's shape: the nine methods, and a flavour the matching SDK helper accepts."""

from __future__ import annotations

import pytest

from conformance.assertions import expect
from conformance.harness.computer_subject import ComputerSubject
from conformance.members import COMPUTER_METHODS


@pytest.mark.clause("CO-SHAPE-001")
def test_driver_implements_all_nine_methods(computer_subject: ComputerSubject) -> None:
    missing = [name for name in COMPUTER_METHODS if not callable(getattr(computer_subject.driver, name, None))]
    expect(not missing, "CO-SHAPE-001", f"driver lacks callable methods {missing}")


@pytest.mark.clause("CO-SHAPE-002")
def test_matching_toolset_accepts_the_driver(computer_subject: ComputerSubject) -> None:
    # The subject builds the toolset the driver really runs under (a JavaScript driver's is the Node SDK's).
    refusal = computer_subject.toolset_refusal()
    expect(refusal is None, "CO-SHAPE-002", refusal or "")
