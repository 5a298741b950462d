"""The test tiers rest on telling a test's processes apart: these command lines are what the kit's tests start."""

from __future__ import annotations

import sys

import pytest

from tests.process_kinds import kind_of


@pytest.mark.parametrize(
    ("executable", "arguments", "kind"),
    [
        ("/usr/bin/chromium", ["/usr/bin/chromium", "--headless"], "browser"),
        (
            "/venv/lib/python3.11/site-packages/playwright/driver/node",
            ["node", "/venv/lib/python3.11/site-packages/playwright/driver/package/cli.js", "run-driver"],
            "browser",
        ),
        ("/usr/bin/node", ["node", "/kit/conformance/node/js/host.mjs"], "node"),
        ("/usr/bin/Xvfb", ["Xvfb", ":99", "-screen", "0", "1280x800x24"], "desktop"),
        (None, ["xdotool", "mousemove", "1", "2"], "desktop"),
        ("/usr/bin/docker", ["docker", "run", "--rm", "kit/desktop"], "container"),
        (sys.executable, [sys.executable, "-m", "pytest", "--driver=x:y"], "child_run"),
        (sys.executable, [sys.executable, "-m", "conformance.cli", "certify"], "child_run"),
        ("/venv/bin/driverkit", ["driverkit", "certify"], "child_run"),
        (sys.executable, [sys.executable, "-c", "print(1)"], None),
        ("/usr/bin/git", ["git", "status"], None),
        (None, "ls -l", None),
    ],
)
def test_a_command_line_names_the_marker_its_test_needs(executable: str | None, arguments: object, kind: str) -> None:
    assert kind_of(executable, arguments) == kind
