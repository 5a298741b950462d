"""The pytest fixtures browser checks use: ``env`` and ``subject``.

A check picks its start page with ``@pytest.mark.page("forms.html")`` and its driver hints with
``@pytest.mark.hints(observation=False)``; both default to a blank page and :class:`DriverHints` defaults.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from conformance.environment import DriverHints, Environment
from conformance.harness import BrowserHarness
from conformance.subject import Subject

HARNESS_KEY = pytest.StashKey[BrowserHarness]()
NOTE_PROPERTY = "driverkit-note"
# The versions a computer driver runs on (conformance.software), carried like a note.
SOFTWARE_PROPERTY = "driverkit-computer-software"


def _harness(request: pytest.FixtureRequest) -> BrowserHarness:
    harness = request.config.stash.get(HARNESS_KEY, None)
    if harness is None:
        pytest.skip("browser checks need --driver=module:factory")
    return harness


def _start_page(request: pytest.FixtureRequest) -> str:
    marker = request.node.get_closest_marker("page")
    return str(marker.args[0]) if marker and marker.args else "blank.html"


def _hints(request: pytest.FixtureRequest) -> DriverHints:
    marker = request.node.get_closest_marker("hints")
    return DriverHints(**marker.kwargs) if marker else DriverHints()


@pytest.fixture
def subject(request: pytest.FixtureRequest) -> Iterator[Subject]:
    """The driver under test, made by the factory for this check and showing the check's start page."""
    harness = _harness(request)

    def note(text: str) -> None:
        # Carried (to the xdist controller too) in the teardown report, and listed on the certificate.
        request.node.user_properties.append((NOTE_PROPERTY, f"{request.node.nodeid}: {text}"))

    with harness.subject(_start_page(request), _hints(request), note) as made:
        yield made


@pytest.fixture
def env(subject: Subject) -> Environment:
    """This check's environment: fixture page URLs, origins, the page's effect record, hints."""
    return subject.env


@pytest.fixture
def shows_start_page(subject: Subject) -> None:
    """Precondition of every browser check: the driver shows the check's start page.

    A driver that never showed it fails the start-page clause here, in setup, and no clause the check was about
    (browser check modules request this fixture with ``pytestmark``).
    """
    from conformance.contracts.browser._act_support import start_page_shown

    start_page_shown(subject)
