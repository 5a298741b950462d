"""Replay overhead: a 200-turn cassette through ``conformance.replay`` versus the same run on a bare mock.

Target: replay (cassette loading excluded, request matching included) takes at most 1.2x the time of the same
runner work over ``httpx2.MockTransport`` serving prebuilt response bodies. Both sides run the same runner
configuration, interleaved, several times; the best time of each is compared so machine noise (other processes
on a shared machine) does not decide the ratio.

    .venv/bin/python tests/benchmarks/bench_replay.py [--turns 200] [--repeat 2] [--mode sync-plain]

The cassette is generated at run time by the builder and recorded once, never committed. Expect minutes at 200
turns: the SDK's per-request parameter transform walks the whole growing history, so one 200-turn run costs
far more than the fake transport (profiling shows >95% of the time inside ``openai._utils._transform``);
``--turns 40`` gives a quick reading.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2
from openai.lib.responses_tool_runner import (
    AsyncRegisteredFunction,
    AsyncResponsesToolRunner,
    RegisteredFunction,
    ResponsesToolRunner,
)

from conformance import cassettes
from conformance.cassette_builder import CassetteBuilder, function_call, message
from conformance.fake_responses import CassetteTransport, derived_events, fake_async_client, fake_client
from conformance.recording import record_client
from conformance.replay import MODES, replay

TOOL: dict[str, Any] = {
    "type": "function",
    "name": "lookup",
    "description": "Look up a reference",
    "parameters": {
        "type": "object",
        "properties": {"reference": {"type": "string"}},
        "required": ["reference"],
        "additionalProperties": False,
    },
    "strict": True,
}
PARAMS: dict[str, Any] = {"model": "gpt-test", "input": "Walk through every reference."}


def build(turns: int) -> cassettes.Cassette:
    builder = CassetteBuilder("bench", description=f"{turns} turns of one function call each")
    for step in range(1, turns):
        builder.turn(function_call("lookup", {"reference": f"r{step}"}, call_id=f"c{step}"))
    return builder.turn(message("Done.")).build()


def answer(arguments: dict[str, object]) -> str:
    return f"value of {arguments['reference']}"


def record(source: cassettes.Cassette, path: Path, turns: int, stream: bool) -> cassettes.Cassette:
    """Run once against the built cassette while recording, so the replayed cassette pins every request body."""
    runner = ResponsesToolRunner(functions=[RegisteredFunction(tool=TOOL, execute=answer)])  # type: ignore[arg-type]
    with record_client(
        path,
        api_key="sk-bench",
        base_url="http://bench.invalid/v1",
        max_retries=0,
        transport=CassetteTransport(source, match="endpoint"),
    ) as client:
        runner.run(client, dict(PARAMS), max_steps=turns, stream=stream)
    return cassettes.load(path)


def prebuilt_bodies(cassette: cassettes.Cassette, stream: bool) -> list[tuple[str, bytes]]:
    bodies = []
    for exchange in cassette.exchanges:
        final = exchange.response.final_response() or {}
        if stream:
            events = list(exchange.response.events or derived_events(final))
            data = b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events)
            bodies.append(("text/event-stream", data))
        else:
            bodies.append(("application/json", json.dumps(final).encode()))
    return bodies


def run_bare(bodies: list[tuple[str, bytes]], mode: str, turns: int) -> float:
    chosen = MODES[mode]
    flavour, stream, eager = chosen.flavour, chosen.stream, chosen.eager
    served = iter(bodies)

    def handler(request: httpx2.Request) -> httpx2.Response:
        content_type, body = next(served)
        return httpx2.Response(200, headers={"content-type": content_type}, content=body)

    transport = httpx2.MockTransport(handler)
    started = time.perf_counter()
    if flavour == "sync":
        runner = ResponsesToolRunner(functions=[RegisteredFunction(tool=TOOL, execute=answer)])  # type: ignore[arg-type]
        runner.run(fake_client(transport), dict(PARAMS), max_steps=turns, stream=stream, eager=eager)
    else:

        async def execute(arguments: dict[str, object]) -> str:
            return answer(arguments)

        async def go() -> None:
            runner = AsyncResponsesToolRunner(functions=[AsyncRegisteredFunction(tool=TOOL, execute=execute)])  # type: ignore[arg-type]
            await runner.run(fake_async_client(transport), dict(PARAMS), max_steps=turns, stream=stream, eager=eager)

        asyncio.run(go())
    return time.perf_counter() - started


def run_replay(cassette: cassettes.Cassette, mode: str, turns: int) -> float:
    started = time.perf_counter()
    report = replay(cassette, mode=mode, max_steps=turns)
    elapsed = time.perf_counter() - started
    if not report.ok:
        raise SystemExit(f"replay did not match:\n{report.render()}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--mode", choices=sorted(MODES), default="sync-plain")
    args = parser.parse_args()
    stream = MODES[args.mode].stream
    with tempfile.TemporaryDirectory() as directory:
        cassette = record(build(args.turns), Path(directory) / "bench.jsonl", args.turns, stream)
    bodies = prebuilt_bodies(cassette, stream)
    bare_times, replay_times = [], []
    for _ in range(args.repeat):
        bare_times.append(run_bare(bodies, args.mode, args.turns))
        replay_times.append(run_replay(cassette, args.mode, args.turns))
    bare, replayed = min(bare_times), min(replay_times)
    print(f"mode {args.mode}, {args.turns} turns, best of {args.repeat}")
    print(f"bare httpx2.MockTransport: {bare:.3f} s")
    print(f"conformance.replay:        {replayed:.3f} s")
    print(f"ratio replay/bare: {replayed / bare:.3f} (target <= 1.2)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
