"""A pytest plugin that turns a run red at its end, the way syrupy does when a run leaves snapshots unused (as
``driverkit certify --sdk=node`` did, running only the Node forms of the checks). A certification's exit status
must follow its verdict regardless: tests load this with ``-p tests.red_exit_plugin``."""

from __future__ import annotations

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
