"""The browser suite's own precondition fixture (the harness's fixtures are in conformance.harness.fixtures)."""

from __future__ import annotations

import pytest

from conformance.harness.subject import BrowserSubject

from ._effects import start_page_shown


@pytest.fixture
def shows_start_page(subject: BrowserSubject) -> None:
    """Precondition of every browser check: the driver shows the check's start page.

    A driver that never showed it fails the start-page clause here, in setup, and no clause the check was about
    (browser check modules request this fixture with ``pytestmark``).
    """
    start_page_shown(subject)
