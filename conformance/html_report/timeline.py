"""The replay timeline (``driverkit replay CASSETTE --html OUT.html``): a replayed run, turn by turn, on one page.

A turn is one recorded exchange: the request the runner sent for it (the input items new since the previous
request, so tool outputs show where they were sent), the recorded response with its streamed events grouped by
output item, the tool calls that response asked for with the output the runner sent back for each, the local
calls made in between (probe drivers and recorded functions) with their times, and, on the turn where the run
first diverged from the recording, the reason and the diff of sent against recorded. Exchanges the run never
requested are listed as such.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from conformance._safe_text import bounded
from conformance.html_report.document import esc, page

if TYPE_CHECKING:
    from conformance.replay import ReplayReport

VALUE_LIMIT = 1_500
CALL_TYPES = ("function_call", "computer_call", "mcp_call", "custom_tool_call")
OUTPUT_TYPES = ("function_call_output", "computer_call_output", "custom_tool_call_output")


def _text(value: object, limit: int = VALUE_LIMIT) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=1, default=repr)
    return bounded(text, limit)


def _pre(value: object) -> str:
    return f"<pre>{esc(_text(value))}</pre>"


def _items(body: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    found = (body or {}).get("input")
    return [item for item in found if isinstance(item, Mapping)] if isinstance(found, list) else []


def _response_items(response: Any) -> list[Mapping[str, Any]]:
    """The output items of a recorded response: from its done events when streamed, else from its body."""
    if response.events is not None:
        return [
            event["item"]
            for event in response.events
            if event.get("type") == "response.output_item.done" and isinstance(event.get("item"), Mapping)
        ]
    output = (response.body or {}).get("output")
    return [item for item in output if isinstance(item, Mapping)] if isinstance(output, list) else []


def _events(events: Sequence[Mapping[str, Any]] | None) -> str:
    if events is None:
        return '<p class="note">not streamed: one JSON body</p>'
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for event in events:
        index = event.get("output_index")
        key = "the response" if index is None else f"output item {index}"
        groups.setdefault(key, []).append(event)
    parts = []
    for key, grouped in groups.items():
        kinds: dict[str, int] = {}
        for event in grouped:
            kinds[str(event.get("type"))] = kinds.get(str(event.get("type")), 0) + 1
        summary = ", ".join(f"{kind} x{count}" if count > 1 else kind for kind, count in kinds.items())
        count = f"{len(grouped)} event{'' if len(grouped) == 1 else 's'}"
        parts.append(
            f"<details><summary>{esc(key)}: {count} ({esc(summary)})</summary>"
            f"{_pre([dict(event) for event in grouped])}</details>"
        )
    return "".join(parts)


def _diff(diff: str) -> str:
    lines = []
    for line in diff.removesuffix("\n").split("\n"):  # as replay.unified_diff made them (not at a \x85 too)
        kind = (
            "hunk"
            if line.startswith("@@")
            else "add"
            if line.startswith("+")
            else "del"
            if line.startswith("-")
            else ""
        )
        lines.append(f'<span class="{kind}">{esc(line)}</span>' if kind else esc(line))
    return f'<pre class="diff">{chr(10).join(lines)}</pre>'


def _tool_calls(items: Sequence[Mapping[str, Any]], next_input: Sequence[Mapping[str, Any]]) -> str:
    outputs = {item.get("call_id"): item for item in next_input if item.get("type") in OUTPUT_TYPES}
    rows = []
    for item in items:
        if item.get("type") not in CALL_TYPES:
            continue
        what = item.get("name") or item.get("type")
        asked = item.get("arguments") if "arguments" in item else item.get("actions") or item.get("action")
        sent = outputs.get(item.get("call_id"))
        answer = _pre(sent.get("output")) if sent else '<p class="note">no output sent back</p>'
        rows.append(
            f"<tr><td><code>{esc(what)}</code><br><small>{esc(item.get('call_id', ''))}</small></td>"
            f"<td>{_pre(asked)}</td><td>{answer}</td></tr>"
        )
    if not rows:
        return ""
    return (
        "<h4>Tool calls, and the output sent back</h4><table class='calls'><tr><th>call</th><th>arguments</th>"
        f"<th>output</th></tr>{''.join(rows)}</table>"
    )


def _local_calls(calls: Sequence[tuple[float, str, object]]) -> str:
    if not calls:
        return ""
    rows = "".join(
        f"<tr><td>{at:.3f} s</td><td><code>{esc(name)}</code></td><td>{_pre(argument)}</td></tr>"
        for at, name, argument in calls
    )
    header = "<tr><th>at</th><th>call</th><th>argument</th></tr>"
    return f"<h4>Local calls made</h4><table class='calls'>{header}{rows}</table>"


def render(report: ReplayReport) -> str:
    """The whole timeline page of ``report`` (a replay that kept its trace)."""
    trace = report.trace
    if trace is None:
        raise ValueError("this replay report kept no trace to draw a timeline from")
    exchanges = trace.cassette.exchanges
    divergence = report.divergence
    turns = []
    for index, exchange in enumerate(exchanges):
        sent = trace.requests[index] if index < len(trace.requests) else None
        following = trace.requests[index + 1] if index + 1 < len(trace.requests) else None
        diverged = divergence is not None and divergence.index == index
        heading = f"Turn {index + 1}"
        if sent is None:
            turns.append(f'<section class="turn"><h3>{heading}: never requested</h3></section>')
            continue
        at, request = sent
        previous = _items(trace.requests[index - 1][1].body) if index > 0 else []
        new_items = _items(request.body)[len(previous) :] if index > 0 else _items(request.body)
        parts = [f"<h3>{heading}: request sent at {at:.3f} s</h3>"]
        if diverged and divergence is not None:
            parts.append(
                f'<p id="divergence"><span class="badge failed">first divergence</span> {esc(divergence.reason)}</p>'
                + (_diff(report.diff) if report.diff else "")
            )
        parts.append(
            f"<details><summary>the request: {len(new_items)} new input item(s)</summary>{_pre(new_items)}</details>"
        )
        if diverged:
            turns.append(f'<section class="turn diverged">{"".join(parts)}</section>')
            continue
        response = exchange.response
        faults = ", ".join(fault.kind for fault in exchange.faults)
        parts.append(
            f"<h4>Recorded response: HTTP {response.status}{esc(f' (faults: {faults})' if faults else '')}</h4>"
            + _events(response.events)
        )
        parts.append(_tool_calls(_response_items(response), _items(following[1].body) if following else []))
        until = following[0] if following else float("inf")
        parts.append(_local_calls([call for call in trace.local_calls if at <= call[0] < until]))
        turns.append(f'<section class="turn">{"".join(parts)}</section>')
    if divergence is not None and divergence.index >= len(exchanges):
        turns.append(
            f'<section class="turn diverged"><h3>Request {divergence.index + 1}: beyond the recording</h3>'
            f'<p id="divergence"><span class="badge failed">first divergence</span> {esc(divergence.reason)}</p>'
            f"{_diff(report.diff) if report.diff else ''}</section>"
        )
    ending = (
        f"runner stopped: {report.error}"
        if report.error
        else f"final output text: {report.final_text!r}"
        if report.final_text is not None
        else ""
    )
    verdict = "MATCH" if report.ok else "DIVERGED"
    body = (
        f'<header><h1>Replay of {esc(report.cassette)}: <span class="verdict {"good" if report.ok else "bad"}" '
        f'id="verdict">{verdict}</span></h1><p>mode <b id="mode">{esc(report.mode)}</b>; requests sent: '
        f"{report.requests_sent} of {report.exchanges} recorded"
        + (f"; recorded run settings: {esc(report.settings)}" if report.settings else "")
        + f"</p><p>{esc(ending)}</p></header><main>{''.join(turns)}</main>"
    )
    return page(f"Replay of {report.cassette}: {verdict}", body)
