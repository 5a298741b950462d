"""The computer harness for ``--computer-driver=node:...``: one Node host per pytest process (so per xdist worker).

It is a :class:`~conformance.harness.computer.ComputerHarness` whose factory opens the JavaScript driver in the
host and whose subjects call the Node SDK, so the desktop, the per-check lifecycle, the notes and the certificate
are the Python driver's. The host starts with the harness and loads the module once (again after a restart); it
stops, closing what the JavaScript factory shared, when the harness closes.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import cast

from conformance.harness.computer import ComputerHarness
from conformance.harness.computer_environment import ComputerEnvironment
from conformance.harness.computer_subject import ComputerSubject
from conformance.harness.loop import HarnessLoop
from conformance.node.drivers.computer_driver import NodeComputerDriverView, desktop_json
from conformance.node.drivers.computer_subject import NodeComputerSubject
from conformance.node.drivers.driver import NodeSpec, start_and_load

OPTION = "--computer-driver"


class NodeComputerHarness(ComputerHarness):
    def __init__(self, spec: str, loop: HarnessLoop, factory_timeout: float, search: tuple[Path, ...] = ()) -> None:
        """Start the host and load the module; a module that cannot load is a :class:`DriverSetupError`."""
        self.node_spec = NodeSpec.parse(spec, OPTION, search)
        self.host, self.loaded_software = start_and_load(self.node_spec, "computer_load")
        super().__init__(spec, self.open_driver, loop, factory_timeout)

    def open_driver(self, env: ComputerEnvironment) -> contextlib.closing[NodeComputerDriverView]:
        """The factory the harness calls for each check: the JavaScript driver's view, closed after the check
        (which runs the driver's own close())."""
        opened = self.host.request(
            "computer_open", timeout=self.factory_timeout, what="the driver factory", env=desktop_json(env)
        )
        methods = dict(opened["methods"])
        return contextlib.closing(
            NodeComputerDriverView(
                self.host, str(opened["handle"]), methods, self.loaded_software, lambda: self.loop.timeout
            )
        )

    def describe(self, driver: object) -> dict[str, str]:
        return dict(cast(NodeComputerDriverView, driver).software)

    def make_subject(self, driver: object, env: ComputerEnvironment) -> ComputerSubject:
        return NodeComputerSubject(cast(NodeComputerDriverView, driver), self.loop, env)

    def close(self) -> list[str]:
        return super().close() + self.host.stop()
