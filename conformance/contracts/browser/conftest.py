"""The browser suite's own fixtures: its fixture-server endpoints and its precondition (the harness's fixtures are
in conformance.harness.fixtures)."""

from __future__ import annotations

import pytest

from conformance.harness.fixtures import HARNESS_KEY
from conformance.harness.subject import BrowserSubject

from ._effects import start_page_shown
from ._endpoints import ENDPOINTS


@pytest.fixture
def shows_start_page(subject: BrowserSubject) -> None:
    """Precondition of every browser check: the driver shows the check's start page.

    A driver that never showed it fails the start-page clause here, in setup, and no clause the check was about
    (browser check modules request this fixture with ``pytestmark``).
    """
    start_page_shown(subject)


@pytest.fixture(scope="session", autouse=True)
def _browser_endpoints(pytestconfig: pytest.Config) -> None:
    """The endpoints this suite's pages use, served by the run's fixture server before the first check."""
    harness = pytestconfig.stash.get(HARNESS_KEY, None)
    if harness is not None:
        harness.server.add_endpoints(ENDPOINTS)
