"""The ``node:`` form of ``--driver``, and a JavaScript driver as the Python side of the kit sees it.

``--driver=node:./drivers/my-driver.mjs#makeDriver`` names a module file (relative to the working directory, else
to pytest's rootdir) and the name of its exported factory. The factory receives the check's environment as plain
JSON (plus ``url()`` and ``shared()``, see the docs' "JavaScript drivers" page) and returns the driver or a promise
of it; the driver's own optional ``close()`` runs after each check.

:class:`NodeDriverView` is a real Python object with one method per member the JavaScript driver implements, each
a call through the Node host: the kit's driver profile, its direct calls and its cancellation checks read it
exactly as they read a Python driver. A member whose JavaScript function declares the options parameter
(``(args, { signal })``, so ``fn.length >= 2``) gets a ``cancelled`` keyword, the way a Python method that names
``cancelled`` does; the Node SDK itself hands every member the options object either way.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from conformance.harness.calls import CallRecord
from conformance.harness.environment import Environment
from conformance.harness.errors import DriverSetupError, DriverTimeout, describe_error
from conformance.harness.factory import SpecError
from conformance.node.bridge import NodeError, NodeHost, NodeHostError, node_argv, rebuild_error

NODE_PREFIX: Final = "node:"
MODULE_SUFFIXES: Final = (".mjs", ".js", ".cjs", ".ts", ".mts", ".cts")


def is_node_spec(spec: str) -> bool:
    return spec.startswith(NODE_PREFIX)


@dataclass(frozen=True)
class NodeSpec:
    """A parsed ``node:PATH#EXPORT`` value."""

    module: Path
    export: str

    @classmethod
    def parse(cls, spec: str, option: str, search: Iterable[Path] = ()) -> NodeSpec:
        """Read ``spec``; the module must exist (relative paths: the working directory, then ``search``)."""
        body = spec[len(NODE_PREFIX) :]
        path_text, hash_mark, export = body.rpartition("#")
        if not hash_mark or not path_text or not export:
            raise SpecError(
                f"{option}={spec!r}: expected node:PATH#EXPORT, e.g. node:./drivers/my-driver.mjs#makeDriver"
            )
        if not export.isidentifier():
            raise SpecError(f"{option}={spec!r}: {export!r} is not a JavaScript export name")
        written = Path(path_text)
        if written.suffix not in MODULE_SUFFIXES:
            raise SpecError(
                f"{option}={spec!r}: {path_text!r} is not a JavaScript or TypeScript module "
                f"({', '.join(MODULE_SUFFIXES)})"
            )
        candidates = (
            [written] if written.is_absolute() else [Path.cwd() / written, *(folder / written for folder in search)]
        )
        for candidate in candidates:
            if candidate.is_file():
                return cls(candidate.resolve(), export)
        tried = "\n".join(f"  {candidate}" for candidate in candidates)
        raise SpecError(f"{option}={spec!r}: module file not found; tried:\n{tried}")


# Importing the driver module (and the Node SDK it runs under) may compile TypeScript: generous, but bounded.
LOAD_SECONDS = 60.0


def start_and_load(node_spec: NodeSpec, load_op: str) -> tuple[NodeHost, dict[str, str]]:
    """Start a Node host and load the driver module with ``load_op`` (``load`` for browser drivers,
    ``computer_load`` for computer drivers): the host and the software the module reported.

    A host that cannot start or a module that cannot load is a :class:`DriverSetupError` (and the host is stopped).
    """
    try:
        host = NodeHost(node_argv(node_spec.module)).start()
    except NodeHostError as error:
        raise DriverSetupError(str(error)) from None
    try:
        loaded = host.boot(
            load_op,
            timeout=LOAD_SECONDS,
            what="loading the driver module",
            module=str(node_spec.module),
            export=node_spec.export,
        )
    except (NodeError, NodeHostError, DriverTimeout) as error:
        host.stop()
        raise DriverSetupError(f"loading {node_spec.module} failed: {describe_error(error)}") from None
    return host, {str(key): str(value) for key, value in loaded["software"].items()}


class UnhandledRejections(RuntimeError):
    """Promise rejections the driver left unhandled during a check (Node would have ended the process)."""


class Unserializable:
    """What a driver returned that has no JSON form (a cycle, say): the host's description of it."""

    def __init__(self, description: str) -> None:
        self.description = description

    def __repr__(self) -> str:
        return f"<a JavaScript value with no JSON form: {self.description}>"


def decode_returned(event: dict[str, Any]) -> Any:
    """The value of a host ``end`` event (absent means ``undefined``, which Python reads as None)."""
    if "unserializable" in event:
        return Unserializable(str(event["unserializable"]))
    return event.get("value")


def record_driver_call(event: dict[str, Any], running: list[CallRecord], calls: list[CallRecord]) -> None:
    """Fold one ``begin`` or ``end`` event of a driver method the Node SDK called into its :class:`CallRecord`.

    ``begin`` opens a record (appended to ``calls`` and to the ``running`` stack); ``end`` closes the innermost
    one with what the method returned or raised.
    """
    if event["event"] == "begin":
        record = CallRecord(str(event["member"]), event.get("arguments"), bool(event.get("options")))
        running.append(record)
        calls.append(record)
        return
    record = running.pop()
    if "raised" in event:
        record.raised = rebuild_error(event["raised"])
    else:
        record.returned = decode_returned(event)
    record.finished, record.ended = True, time.monotonic()


class NodeDriverView:
    """A driver living in the Node host: ``state()`` and one method per implemented member."""

    call_op = "call"  # the host op that calls one of this kind of driver's methods directly

    def __init__(
        self,
        host: NodeHost,
        handle: str,
        members: dict[str, bool],
        software: dict[str, str],
        timeout: Callable[[], float],
        state_takes_options: bool = True,
    ) -> None:
        self.host = host
        self.handle = handle
        # Whether the JavaScript state() declares its options ({signal}): only then does it accept cancellation.
        self.state_takes_options = state_takes_options
        self.generation = host.generation
        self.takes_options = dict(members)
        self.software = dict(software)
        self._timeout = timeout
        for member, takes_options in members.items():
            setattr(self, member, self._method(member, takes_options))

    @property
    def timeout(self) -> float:
        return self._timeout()

    def _method(self, member: str, takes_options: bool) -> Callable[..., Any]:
        def with_signal(arguments: dict[str, Any], *, cancelled: Callable[[], bool] | None = None) -> Any:
            return self.invoke(member, arguments, cancelled)

        def without_signal(arguments: dict[str, Any]) -> Any:
            return self.invoke(member, arguments, None)

        method = with_signal if takes_options else without_signal
        method.__name__ = method.__qualname__ = member
        return method

    def invoke(self, member: str, arguments: dict[str, Any] | None, cancelled: Callable[[], bool] | None) -> Any:
        """Call ``member`` of the JavaScript driver directly, under the driver deadline."""
        return self.host.request(
            self.call_op,
            timeout=self.timeout,
            what=member,
            cancelled=cancelled,
            handle=self.handle,
            member=member,
            args=arguments,
        )

    def state(self, *, cancelled: Callable[[], bool] | None = None) -> Any:
        # The host hands the JavaScript state() a {signal} whatever it declares, so a stop request reaches it.
        return self.invoke("state", None, cancelled)

    def close(self) -> None:
        """The driver's own ``close()`` (if it has one), unless the host restarted since the driver was made."""
        if not self.host.serves(self.generation):
            raise RuntimeError(
                "the Node host ended (a call hung or the driver crashed it); the driver was abandoned without close()"
            )
        report = self.host.request("close", timeout=self.timeout, what="the driver's close()", handle=self.handle)
        if report and report.get("unhandled"):
            examples = "; ".join(str(example) for example in report.get("examples", []))
            raise UnhandledRejections(f"{report['unhandled']} promise rejection(s) nobody handled, e.g. {examples}")


def environment_json(env: Environment) -> dict[str, Any]:
    """The check's environment as the JavaScript factory receives it (plain JSON)."""
    hints = env.hints
    return {
        "start_url": env.start_url,
        "main_origin": env.main_origin,
        "other_origin": env.other_origin,
        "allowed_origins": list(env.allowed_origins),
        "session_base": {"main": env.url("", origin="main"), "other": env.url("", origin="other")},
        "hints": {
            "viewport": list(hints.viewport),
            "observation": hints.observation,
            "bind_targets": hints.bind_targets,
            "members": list(hints.members),
            "limits": dict(hints.limits),
            "grants": [
                {
                    "grant_id": grant.grant_id,
                    "kind": grant.kind,
                    "file_name": grant.file_name,
                    "content_base64": base64.b64encode(grant.content).decode(),
                    "max_bytes": grant.max_bytes,
                    "expires_in_s": grant.expires_in_s,
                }
                for grant in hints.grants
            ],
        },
    }
