"""A small real run recorded through the kit's recorder, shared by the replay tests and the replay timeline tests.

Turn 1 reads the page through a browser probe and looks up "A"; turn 2 looks up "B"; turn 3 answers "Done.".
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from openai.lib.browser import BrowserToolset
from openai.lib.responses_tool_runner import RegisteredFunction, ResponsesToolRunner, ToolRunnerError

from conformance import cassettes
from conformance.cassette_builder import CassetteBuilder, function_call, message
from conformance.contracts.runner._scenario import function_tool
from conformance.fake_responses import CassetteTransport
from conformance.probes import ProbeBrowser
from conformance.recording import record_client


def lookup_source() -> cassettes.Cassette:
    """The model's side of the run, as a cassette the recorded client is answered from."""
    return (
        CassetteBuilder("source")
        .turn(
            function_call("browser_get_page_text", {"tab_id": None}, call_id="c1"),
            function_call("lookup", {"reference": "A"}, call_id="c2"),
        )
        .turn(function_call("lookup", {"reference": "B"}, call_id="c3"))
        .turn(message("Done."))
        .build()
    )


def record_lookup_run(path: Path, source: cassettes.Cassette, *, stream: bool = True, eager: bool = False) -> None:
    """Run the app side against ``source`` through a recording client, writing the recording to ``path``."""
    answers = {"A": "found A", "B": [{"type": "input_text", "text": "found B"}]}
    function = RegisteredFunction(
        tool=function_tool("lookup"),
        execute=lambda arguments: answers[str(arguments["reference"])],  # type: ignore[arg-type]
    )
    browser = BrowserToolset(ProbeBrowser(["get_page_text"], replies={"get_page_text": "a real page"}))
    runner = ResponsesToolRunner(browser=browser, functions=[function])
    # Some sources end in a failure on purpose; the recording of that failure is what the test needs.
    with (
        record_client(
            path,
            api_key="sk-test",
            base_url="http://rec.invalid/v1",
            max_retries=0,
            transport=CassetteTransport(source, match="endpoint"),
        ) as client,
        contextlib.suppress(ToolRunnerError),
    ):
        runner.run(client, {"model": "m", "input": "hi", "tool_choice": "auto"}, stream=stream, eager=eager)
