"""What every example shares: choosing rehearsal or live mode, the clients for each, the local fixture pages and
console approvals."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Final, Literal

import openai
from openai.lib.responses_tool_runner import ResponsesToolRunner

from conformance import cassettes, resources
from conformance.fake_responses import CassetteTransport
from conformance.harness.fixture_server import Effect, FixtureServer
from conformance.rig import cassette_client

RunMode = Literal["rehearse", "live"]
STREAMS_DIR: Final = resources.streams("examples")
REHEARSAL_MODEL: Final = "gpt-test"


class ExampleConfigurationError(RuntimeError):
    """The example cannot start as configured (missing key, model or cassette); the message says what to set."""


@dataclass
class ExampleResult:
    """How a run ended. ``verified`` comes only from the independent record; ``answer`` is the model's text."""

    verified: bool
    evidence: str
    answer: str = ""
    approvals: list[str] = field(default_factory=list)

    def report(self) -> int:
        print(f"model said: {self.answer or '(nothing)'}")
        print(("VERIFIED: " if self.verified else "NOT VERIFIED: ") + self.evidence)
        return 0 if self.verified else 1


@dataclass(frozen=True)
class Options:
    mode: RunMode
    yes: bool


def parse_options(description: str, argv: Sequence[str] | None) -> Options:
    parser = argparse.ArgumentParser(description=description)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--rehearse", dest="mode", action="store_const", const="rehearse", help="replay (default)")
    group.add_argument("--live", dest="mode", action="store_const", const="live", help="use the real API")
    parser.add_argument("--yes", action="store_true", help="approve every action without asking (live mode)")
    parser.set_defaults(mode="rehearse")
    parsed = parser.parse_args(argv)
    return Options(parsed.mode, parsed.yes)


def live_model() -> str:
    missing = [name for name in ("OPENAI_API_KEY", "OPENAI_MODEL") if not os.environ.get(name)]
    if missing:
        raise ExampleConfigurationError(f"--live needs {' and '.join(missing)} in the environment")
    return os.environ["OPENAI_MODEL"]


def load_cassette(name: str) -> cassettes.Cassette:
    path = STREAMS_DIR / f"{name}.jsonl"
    if not path.is_file():
        raise ExampleConfigurationError(
            f"rehearsal cassette {path} is missing; run python -m tools.cassettes --write from the repository root"
        )
    return cassettes.load(path)


def rehearsal_client(cassette: str | cassettes.Cassette) -> tuple[openai.OpenAI, CassetteTransport]:
    """A real sync client whose requests are answered from a cassette (endpoint-matched, no network); a name
    means ``fixtures/streams/examples/<name>.jsonl``."""
    transport = _rehearsal_transport(cassette)
    return cassette_client(transport, "sync"), transport


def rehearsal_async_client(cassette: str | cassettes.Cassette) -> tuple[openai.AsyncOpenAI, CassetteTransport]:
    transport = _rehearsal_transport(cassette)
    return cassette_client(transport, "async"), transport


def _rehearsal_transport(cassette: str | cassettes.Cassette) -> CassetteTransport:
    loaded = load_cassette(cassette) if isinstance(cassette, str) else cassette
    return CassetteTransport(loaded, match="endpoint")


Approve = Callable[[str], bool]
SyncExample = Callable[[openai.OpenAI, str, Approve], ExampleResult]
AsyncExample = Callable[[openai.AsyncOpenAI, str, Approve], Awaitable[ExampleResult]]


def main_sync(doc: str | None, argv: Sequence[str] | None, cassette: str | cassettes.Cassette, run: SyncExample) -> int:
    """The command line every sync example shares: rehearse against ``cassette`` (default) or run ``--live``."""
    options = parse_options(doc or "", argv)
    try:
        if options.mode == "live":
            model = live_model()
            with openai.OpenAI() as client:
                return run(client, model, console_approval(options.yes)).report()
        client, transport = rehearsal_client(cassette)
        with client:
            outcome = run(client, REHEARSAL_MODEL, console_approval(True))
        check_rehearsal(transport)
        return outcome.report()
    except ExampleConfigurationError as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2


def main_async(doc: str | None, argv: Sequence[str] | None, cassette: str, run: AsyncExample) -> int:
    """The async twin of :func:`main_sync`."""
    options = parse_options(doc or "", argv)

    async def live(model: str) -> ExampleResult:
        async with openai.AsyncOpenAI() as client:
            return await run(client, model, console_approval(options.yes))

    async def rehearse(client: openai.AsyncOpenAI) -> ExampleResult:
        async with client:
            return await run(client, REHEARSAL_MODEL, console_approval(True))

    try:
        if options.mode == "live":
            return asyncio.run(live(live_model())).report()
        client, transport = rehearsal_async_client(cassette)
        outcome = asyncio.run(rehearse(client))
        check_rehearsal(transport)
        return outcome.report()
    except ExampleConfigurationError as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2


@dataclass
class PageSession:
    """The fixture pages served on loopback for one run, and the record of what they observed."""

    server: FixtureServer
    token: str

    @property
    def origin(self) -> str:
        return self.server.origin("main")

    def url(self, page: str) -> str:
        return f"{self.origin}/s/{self.token}/{page}"

    def effects(self, kind: str) -> list[Effect]:
        return [effect for effect in self.server.store.effects(self.token) if effect.get("kind") == kind]

    def wait_for(self, kind: str, timeout: float = 5.0) -> Effect | None:
        return self.server.store.wait(self.token, lambda effect: effect.get("kind") == kind, timeout)

    def settle(self) -> None:
        self.server.store.settle(self.token, quiet=0.2, limit=3.0)


@contextmanager
def fixture_pages() -> Iterator[PageSession]:
    with FixtureServer() as server:
        sessions = server.session()
        token = next(sessions)
        try:
            yield PageSession(server, token)
        finally:
            sessions.close()


def console_approval(auto: bool) -> Callable[[str], bool]:
    """Ask on the terminal (or approve automatically); returns exactly True only for an explicit yes."""

    def approve(description: str) -> bool:
        print(f"approval requested: {description}")
        if auto:
            print("  approved automatically")
            return True
        if not sys.stdin.isatty():
            print("  refused: no terminal to ask on (pass --yes to approve automatically)")
            return False
        return input("  approve? type yes: ").strip() == "yes"

    return approve


def describe_call(member: str, arguments: object) -> str:
    return f"{member} {json.dumps(arguments, sort_keys=True)}"


def check_rehearsal(transport: CassetteTransport) -> None:
    """Say so when the run left the recorded path: the recording then no longer matches this code."""
    if transport.divergence is not None:
        print(f"rehearsal diverged from the recording: {transport.divergence.reason}", file=sys.stderr)
    elif not transport.exhausted:
        print(
            f"rehearsal stopped after {transport.served} of {len(transport.cassette.exchanges)} recorded exchanges",
            file=sys.stderr,
        )


def final_text(response: object) -> str:
    text = getattr(response, "output_text", "")
    return text if isinstance(text, str) else ""


def answer_of(runner: ResponsesToolRunner, client: openai.OpenAI, model: str, task: str, max_steps: int) -> str:
    """The model's final answer to ``task`` under ``runner``. A run that stops early is reported as the answer
    instead of raised: the page's or desktop's own record still says what happened, and that is the verdict."""
    try:
        response = runner.run(client, {"model": model, "input": task, "store": False}, max_steps=max_steps)
        return final_text(response)
    except Exception as error:
        return f"(run stopped: {type(error).__name__})"
