"""The pickup rehearsal: judged by the page's own record, and a refused action reveals nothing."""

from __future__ import annotations

import pytest

from conformance.fake_responses import CassetteTransport, fake_client
from reference.examples import pickup
from tests.desktops import needs_x

pytestmark = [needs_x, pytest.mark.desktop]


def test_rehearsal_reveals_the_code_and_is_verified_by_the_page() -> None:
    transport = CassetteTransport(pickup.pickup_cassette(), match="endpoint")
    with fake_client(transport) as client:
        outcome = pickup.run(client, "gpt-test", lambda description: True)
    assert outcome.verified, outcome.evidence
    assert transport.exhausted and transport.divergence is None
    assert outcome.approvals[0].startswith("computer click")


def test_a_refused_click_reveals_nothing_and_is_not_verified() -> None:
    transport = CassetteTransport(pickup.pickup_cassette(), match="endpoint")
    with fake_client(transport) as client:
        outcome = pickup.run(client, "gpt-test", lambda description: False)
    assert not outcome.verified
    assert "0 reveal" in outcome.evidence
