"""The browser harness for ``--driver=node:...``: one Node host per pytest process (so per xdist worker).

It is a :class:`~conformance.harness.browser.BrowserHarness` whose factory opens the JavaScript driver in the host
(:meth:`NodeBrowserHarness.open_driver`) and whose subjects call the Node SDK, so the probe, the
per-check lifecycle, the notes and the certificate are the Python driver's. The host starts with the harness and
loads the driver module once (again after a restart); it stops, closing what the JavaScript factory shared, when
the harness closes.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace
from pathlib import Path
from typing import cast

from conformance.harness.browser import BrowserHarness
from conformance.harness.environment import Environment
from conformance.harness.fixture_host import FixtureHost
from conformance.harness.loop import HarnessLoop
from conformance.harness.profile import DriverProfile
from conformance.harness.subject import BrowserSubject
from conformance.node.drivers.driver import NodeDriverView, NodeSpec, environment_json, start_and_load
from conformance.node.drivers.subject import NodeBrowserSubject


class NodeBrowserHarness(BrowserHarness):
    def __init__(
        self,
        spec: str,
        loop: HarnessLoop | None = None,
        factory_timeout: float | None = None,
        search: tuple[Path, ...] = (),
        fixture_host: FixtureHost | None = None,
    ) -> None:
        """Start the host and load the module; a module that cannot load is a :class:`DriverSetupError`."""
        self.node_spec = NodeSpec.parse(spec, "--driver", search)
        self.host, self.software = start_and_load(self.node_spec, "load")
        try:
            super().__init__(spec, self.open_driver, loop, factory_timeout, fixture_host)
        except OSError:
            self.host.stop()
            raise

    def open_driver(self, env: Environment) -> contextlib.closing[NodeDriverView]:
        """The factory the harness calls for each check: the JavaScript driver's view, closed after the check
        (which runs the driver's own close())."""
        opened = self.host.request(
            "open", timeout=self.factory_timeout, what="the driver factory", env=environment_json(env)
        )
        members = dict(opened["members"])
        state_takes_options = bool(opened.get("state_takes_options", True))
        return contextlib.closing(
            NodeDriverView(
                self.host, str(opened["handle"]), members, self.software, lambda: self.loop.timeout, state_takes_options
            )
        )

    def profile_of(self, driver: object) -> DriverProfile:
        # The Node SDK awaits every member, whether the JavaScript function returns a value or a promise, so a
        # JavaScript driver is certified as the async kind. (The view's Python methods block on the bridge; the
        # Node subject calls them on the calling thread, so this flavour never routes a call.)
        return replace(DriverProfile.of(driver), flavour="async")

    def describe(self, driver: object) -> dict[str, str]:
        return dict(cast(NodeDriverView, driver).software)

    def make_subject(self, driver: object, profile: DriverProfile, env: Environment) -> BrowserSubject:
        return NodeBrowserSubject(cast(NodeDriverView, driver), profile, self.loop, env)

    def close(self) -> list[str]:
        problems = super().close()
        return problems + self.host.stop()
