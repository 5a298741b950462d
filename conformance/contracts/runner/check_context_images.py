"""context_budget and images: what counts toward ``max_input_images`` and which screenshots must stay.

spec/000 "Bound the native input sent on each request". Every check here keeps the input far below the byte limit,
so only the image limit can make the runner ask the policy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from openai.lib.responses_tool_runner import ToolRunnerError

from conformance.assertions import expect
from conformance.contracts.runner._scenario import CapturedRun, Function, Mode, ScenarioRun, Setup, load, modes

# Far above anything these scenarios send: a policy call can only come from the image limit.
BYTE_LIMIT = 1_000_000

REMOTE_IMAGE: dict[str, object] = {
    "type": "input_image",
    "image_url": "https://images.example/page.png",
    "detail": "auto",
}
FILE_IMAGE: dict[str, object] = {"type": "input_image", "file_id": "file-kit-image-1", "detail": "auto"}
FILE_SCREENSHOT: dict[str, object] = {"type": "computer_screenshot", "file_id": "file-kit-screen-1"}
REMOTE_SCREENSHOT: dict[str, object] = {"type": "computer_screenshot", "image_url": "https://images.example/s.png"}


def _user_message(*images: dict[str, object]) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [{"type": "input_text", "text": "hi"}, *images]}]


def _snap(image: dict[str, object]) -> Function:
    """An ordinary function answering with output content parts: a caption and one image."""
    return Function("snap", reply=[{"type": "input_text", "text": "captured"}, image])


@dataclass(frozen=True)
class PolicyCall:
    """One call of the compaction policy, with how many requests had been sent when it came."""

    before_request: int
    eligible: frozenset[str]
    input_images: int
    input_bytes: int


@dataclass
class RecordingPolicy:
    """A ``compact`` callback that records every snapshot and drops every eligible call (or nothing)."""

    drop_eligible: bool = True
    calls: list[PolicyCall] = field(default_factory=list)
    harness: ScenarioRun | None = None

    def __call__(self, snapshot: Any) -> Any:
        assert self.harness is not None, "attach the policy to a harness before running"
        eligible = list(snapshot["eligible_call_ids"])
        self.calls.append(
            PolicyCall(
                self.harness.transport.served,
                frozenset(eligible),
                snapshot["input_images"],
                snapshot["input_bytes"],
            )
        )
        return {"drop_call_ids": eligible if self.drop_eligible else []}


def _run(
    cassette: str,
    setup: Setup,
    mode: Mode,
    *,
    max_images: int,
    keep: int | None = None,
    drop_eligible: bool = True,
    entry: str = "run",
) -> tuple[CapturedRun, RecordingPolicy]:
    """Run ``cassette`` with an image budget through ``runner.run`` or ``runner.iterate`` (both take the budget)."""
    policy = RecordingPolicy(drop_eligible)
    budget: dict[str, Any] = {"max_input_bytes": BYTE_LIMIT, "max_input_images": max_images, "compact": policy}
    if keep is not None:
        budget["keep_recent_screenshots"] = keep
    setup.run_options["context_budget"] = budget
    harness = ScenarioRun(load(cassette), setup, mode)
    policy.harness = harness
    if entry == "iterate":
        return harness.iterate(lambda turn: None), policy
    return harness.run(), policy


# The documents give context_budget to both entry points; the checks that decide a request run through each.
ENTRIES = pytest.mark.parametrize("entry", ["run", "iterate"])


def _computer_outputs(items: list[dict[str, Any]]) -> list[str]:
    return [str(item["call_id"]) for item in items if item.get("type") == "computer_call_output"]


def _images_in(items: list[dict[str, Any]]) -> int:
    """The kit's own count, read from the documents: image blocks of messages and function outputs, plus one
    per computer screenshot, whatever the image source."""
    count = 0
    for item in items:
        kind = item.get("type", "message")
        if kind == "computer_call_output":
            count += 1
        blocks = {"message": item.get("content"), "function_call_output": item.get("output")}.get(kind)
        if isinstance(blocks, list):
            count += sum(1 for block in blocks if isinstance(block, dict) and block.get("type") == "input_image")
    return count


def _expect_eligible_per_policy_call(
    policy: RecordingPolicy, expected: list[tuple[int, frozenset[str]]], clause_id: str, why: str | None = None
) -> None:
    """The policy was called exactly before the ``expected`` requests, offered exactly those call IDs each time
    (``why`` explains the expectation; without it the failure names the expected calls)."""
    calls = [(call.before_request, call.eligible) for call in policy.calls]
    explained = f", expected {expected}" if why is None else f"; {why}"
    expect(calls == expected, clause_id, f"(request, eligible) per policy call: {calls}{explained}")


def _sent_call_ids(items: list[dict[str, Any]]) -> set[str]:
    return {str(item["call_id"]) for item in items if "call_id" in item}


# ------------------------------------------------------------------------------------------ what counts


@dataclass(frozen=True)
class ImageSource:
    """Where a scenario's images come from, and how many the runner must count before which request."""

    cassette: str
    make_setup: Callable[[], Setup]
    images: int
    # Index of the first request whose input holds ``images`` images (earlier inputs hold fewer).
    request: int
    total_requests: int


def _message_images(*images: dict[str, object]) -> ImageSource:
    """Images in the caller's message: all of them are in the first request."""
    return ImageSource(
        "context-images-message",
        lambda: Setup(params={"model": "gpt-test", "input": _user_message(*images)}),
        images=len(images),
        request=0,
        total_requests=2,
    )


def _function_images(image: dict[str, object]) -> ImageSource:
    """Two calls of `snap`, one image each: both images are in the third request."""
    return ImageSource(
        "context-images-functions", lambda: Setup(functions=(_snap(image),)), images=2, request=2, total_requests=3
    )


def _computer_screenshots(screenshot: dict[str, object] | None) -> ImageSource:
    """Four clicks, one screenshot each (``screenshot``, or the probe's inline PNG): all four are in the fifth
    request."""
    return ImageSource(
        "context-images-computer",
        lambda: Setup(computer=True, computer_screenshot=screenshot),
        images=4,
        request=4,
        total_requests=5,
    )


IMAGE_SOURCES = {
    "message-remote-url": _message_images(REMOTE_IMAGE, REMOTE_IMAGE),
    "message-file-id": _message_images(FILE_IMAGE, FILE_IMAGE),
    "function-remote-url": _function_images(REMOTE_IMAGE),
    "function-file-id": _function_images(FILE_IMAGE),
    "computer-inline": _computer_screenshots(None),
    "computer-file-id": _computer_screenshots(FILE_SCREENSHOT),
    "computer-remote-url": _computer_screenshots(REMOTE_SCREENSHOT),
}


@pytest.mark.clause("RN-BUDGET-005")
@pytest.mark.parametrize("source", list(IMAGE_SOURCES))
@pytest.mark.parametrize("mode", modes())
def test_images_at_the_limit_are_sent_without_the_policy(source: str, mode: Mode) -> None:
    # Exactly at the limit nothing is over: an image counted twice (or a text part counted) would call the policy.
    case = IMAGE_SOURCES[source]
    outcome, policy = _run(case.cassette, case.make_setup(), mode, max_images=case.images)
    outcome.finished("RN-BUDGET-005")
    expect(
        not policy.calls,
        "RN-BUDGET-005",
        f"{case.images} images against a limit of {case.images} called the policy: {policy.calls}",
    )
    expect(len(outcome.requests) == case.total_requests, "RN-BUDGET-005", f"{len(outcome.requests)} requests sent")
    # The scenario really puts that many images into that request (otherwise this check could not fail).
    sent = _images_in(outcome.input_of(case.request))
    expect(sent == case.images, "RN-BUDGET-005", f"request {case.request} carried {sent} images, not {case.images}")


@pytest.mark.clause("RN-BUDGET-005", "RN-BUDGET-006", "RN-BUDGET-002")
@pytest.mark.parametrize("source", list(IMAGE_SOURCES))
@pytest.mark.parametrize("mode", modes())
@ENTRIES
def test_one_image_over_the_limit_calls_the_policy_once(source: str, mode: Mode, entry: str) -> None:
    case = IMAGE_SOURCES[source]
    limit = case.images - 1
    # For screenshots, pin all but one so that only the request holding every screenshot is over the limit.
    keep = limit if source.startswith("computer") else None
    outcome, policy = _run(case.cassette, case.make_setup(), mode, max_images=limit, keep=keep, entry=entry)
    expect(policy.calls, "RN-BUDGET-005", f"{case.images} images against a limit of {limit}: no policy call")
    expect(
        len(policy.calls) == 1,
        "RN-BUDGET-006",
        f"one over-limit request, {len(policy.calls)} policy calls: {policy.calls}",
    )
    first = policy.calls[0]
    expect(
        first.input_images == case.images,
        "RN-BUDGET-005",
        f"snapshot counted {first.input_images} images, expected {case.images}",
    )
    expect(
        first.before_request == case.request,
        "RN-BUDGET-006",
        f"policy came with {first.before_request} requests sent; it must come before request {case.request}",
    )
    expect(
        first.input_bytes <= BYTE_LIMIT, "RN-BUDGET-006", f"input of {first.input_bytes} bytes is over the byte limit"
    )
    if case.request == 0:
        return  # message images can never be dropped; that stop is checked under RN-BUDGET-010
    expect(outcome.error is None, "RN-BUDGET-002", f"run failed after dropping the eligible calls: {outcome.error!r}")
    sent = _images_in(outcome.input_of(case.request))
    expect(sent <= limit, "RN-BUDGET-002", f"request {case.request} carried {sent} images, over the limit {limit}")


# ------------------------------------------------------------------------------------------ what stays


@pytest.mark.clause("RN-BUDGET-008", "RN-BUDGET-002")
@pytest.mark.parametrize("keep", [None, 1, 2, 3], ids=["default", "keep-1", "keep-2", "keep-3"])
@pytest.mark.parametrize("mode", modes())
def test_recent_screenshots_stay_and_older_ones_are_eligible(keep: int | None, mode: Mode) -> None:
    kept = 1 if keep is None else keep
    outcome, policy = _run("context-images-computer", Setup(computer=True), mode, max_images=kept, keep=keep)
    outcome.finished("RN-BUDGET-008")
    # Before request r the history holds r screenshots (c1..cr); every one older than the newest `kept` may go.
    expected = [(request, frozenset(f"c{n}" for n in range(1, request - kept + 1))) for request in range(kept + 1, 5)]
    _expect_eligible_per_policy_call(policy, expected, "RN-BUDGET-008")
    for request, body in enumerate(outcome.bodies):
        newest = [f"c{n}" for n in range(max(1, request - kept + 1), request + 1)]
        sent = _computer_outputs(list(body["input"]))
        expect(sent == newest, "RN-BUDGET-008", f"request {request} carried screenshots {sent}, expected {newest}")
        dropped = [f"c{n}" for n in range(1, request - kept + 1)]
        notes = " ".join(str(item.get("content")) for item in body["input"] if item.get("role") == "user")
        expect(
            all(call_id in notes for call_id in dropped) and (not dropped or "computer" in notes),
            "RN-BUDGET-002",
            f"request {request}: no receipt naming the dropped computer calls {dropped}: {notes[:300]}",
        )


@pytest.mark.clause("RN-BUDGET-008")
@pytest.mark.parametrize("keep", [1, 2], ids=["keep-1", "keep-2"])
@pytest.mark.parametrize("mode", modes())
def test_browser_and_computer_screenshots_share_one_window(keep: int, mode: Mode) -> None:
    # c1 is a browser screenshot but no longer the latest browser state (the read c2 is); c3 is the newest
    # screenshot. One window of `keep` screenshots spans both tools: with 1 only c3 stays, with 2 c1 stays too.
    setup = Setup(computer=True, browser=("screenshot", "get_page_text"))
    outcome, policy = _run("context-images-browser-screenshot-then-click", setup, mode, max_images=1, keep=keep)
    _expect_eligible_per_policy_call(policy, [(2, frozenset({"c1"}) if keep == 1 else frozenset())], "RN-BUDGET-008")
    if keep == 1:
        outcome.finished("RN-BUDGET-008")


@pytest.mark.clause("RN-BUDGET-007")
@pytest.mark.parametrize("mode", modes())
def test_latest_computer_pair_stays_after_a_newer_screenshot(mode: Mode) -> None:
    # A browser screenshot (c2) is the newest screenshot, so only the latest-pair rule keeps the click c1.
    setup = Setup(computer=True, browser=("screenshot",), functions=(_snap(FILE_IMAGE),))
    outcome, policy = _run("context-images-computer-then-browser", setup, mode, max_images=2)
    outcome.finished("RN-BUDGET-007")
    _expect_eligible_per_policy_call(
        policy, [(2, frozenset({"c3"}))], "RN-BUDGET-007", "the latest computer pair c1 must not be eligible"
    )
    last = list(outcome.bodies[-1]["input"])
    expect(_computer_outputs(last) == ["c1"], "RN-BUDGET-007", f"latest computer pair not sent: {_sent_call_ids(last)}")


@pytest.mark.clause("RN-BUDGET-007")
@pytest.mark.parametrize("mode", modes())
def test_computer_call_with_safety_checks_is_never_eligible(mode: Mode) -> None:
    # Three screenshots, limit two: c3 is the latest pair and newest screenshot, c1 carries a safety check.
    setup = Setup(computer=True, run_options={"approve_safety_checks": lambda call: True})
    outcome, policy = _run("context-images-safety", setup, mode, max_images=2)
    outcome.finished("RN-BUDGET-007")
    _expect_eligible_per_policy_call(
        policy, [(3, frozenset({"c2"}))], "RN-BUDGET-007", "c1 carries a safety check and must stay"
    )
    last = list(outcome.bodies[-1]["input"])
    expect(_computer_outputs(last) == ["c1", "c3"], "RN-BUDGET-007", f"screenshots sent: {_computer_outputs(last)}")


# ------------------------------------------------------------------------------------------ function images


@pytest.mark.clause("RN-BUDGET-009")
@pytest.mark.parametrize("mode", modes())
def test_function_image_does_not_displace_recent_screenshots(mode: Mode) -> None:
    # Keep two screenshots: c1 and c2 are the two newest screenshots; the newer function image c3 is not one.
    setup = Setup(computer=True, functions=(_snap(FILE_IMAGE),))
    outcome, policy = _run("context-images-computer-then-function", setup, mode, max_images=2, keep=2)
    outcome.finished("RN-BUDGET-009")
    calls = [(call.before_request, call.input_images, call.eligible) for call in policy.calls]
    expect(
        calls == [(3, 3, frozenset({"c3"}))],
        "RN-BUDGET-009",
        f"(request, images, eligible) per policy call: {calls}; the function image counts but is no screenshot",
    )


@pytest.mark.clause("RN-BUDGET-009", "RN-BUDGET-008")
@pytest.mark.parametrize("keep", [None, 3], ids=["default", "keep-3"])
@pytest.mark.parametrize("origin", ["function", "browser-screenshot"])
@pytest.mark.parametrize("mode", modes())
def test_only_browser_screenshots_are_kept_as_screenshots(origin: str, keep: int | None, mode: Mode) -> None:
    # Same shape both ways: an image (c1) then a page read (c2, the latest browser state), one message image,
    # limit one. A registered-browser screenshot is the recent screenshot and stays; a function image may go.
    if origin == "function":
        cassette, setup = (
            "context-images-function-then-read",
            Setup(browser=("get_page_text",), functions=(_snap(FILE_IMAGE),)),
        )
    else:
        cassette, setup = "context-images-browser-screenshot-then-read", Setup(browser=("screenshot", "get_page_text"))
    setup = setup.with_params(input=_user_message(REMOTE_IMAGE))
    outcome, policy = _run(cassette, setup, mode, max_images=1, keep=keep)
    eligible = [sorted(call.eligible) for call in policy.calls]
    if origin == "function":
        expect(eligible == [["c1"]], "RN-BUDGET-009", f"eligible per policy call: {eligible}")
        outcome.finished("RN-BUDGET-009")
    else:
        expect(eligible == [[]], "RN-BUDGET-008", f"the browser screenshot must stay: eligible {eligible}")


# ------------------------------------------------------------------------------------------ stopping


@dataclass(frozen=True)
class StuckCase:
    """A scenario where the policy cannot get under the image limit before request ``stops_before``."""

    cassette: str
    make_setup: Callable[[], Setup]
    max_images: int
    keep: int | None
    drop_eligible: bool
    stops_before: int
    executed: int  # local actions (functions and computer actions) that ran before the stop


STUCK_CASES = {
    # The policy declines to drop anything although both function images are eligible.
    "policy-drops-nothing": StuckCase(
        "context-images-functions",
        lambda: Setup(functions=(_snap(FILE_IMAGE),)),
        max_images=1,
        keep=None,
        drop_eligible=False,
        stops_before=2,
        executed=2,
    ),
    # Both screenshots are pinned by keep_recent_screenshots=2, so dropping all eligible calls is not enough.
    "pinned-screenshots": StuckCase(
        "context-images-computer",
        lambda: Setup(computer=True),
        max_images=1,
        keep=2,
        drop_eligible=True,
        stops_before=2,
        executed=2,
    ),
    # Message images can never be dropped: the very first request is refused.
    "message-images": StuckCase(
        "context-images-message",
        lambda: Setup(params={"model": "gpt-test", "input": _user_message(FILE_IMAGE, REMOTE_IMAGE)}),
        max_images=1,
        keep=None,
        drop_eligible=True,
        stops_before=0,
        executed=0,
    ),
}


@pytest.mark.clause("RN-BUDGET-010")
@pytest.mark.parametrize("case_name", list(STUCK_CASES))
@pytest.mark.parametrize("mode", modes())
@ENTRIES
def test_still_too_many_images_stops_before_the_request(case_name: str, mode: Mode, entry: str) -> None:
    case = STUCK_CASES[case_name]
    outcome, policy = _run(
        case.cassette,
        case.make_setup(),
        mode,
        max_images=case.max_images,
        keep=case.keep,
        drop_eligible=case.drop_eligible,
        entry=entry,
    )
    expect(isinstance(outcome.error, ToolRunnerError), "RN-BUDGET-010", f"the run must stop: {outcome.error!r}")
    expect(
        len(policy.calls) == 1 and policy.calls[0].before_request == case.stops_before,
        "RN-BUDGET-010",
        f"policy calls {policy.calls}; expected one before request {case.stops_before}",
    )
    expect(
        len(outcome.requests) == case.stops_before,
        "RN-BUDGET-010",
        f"{len(outcome.requests)} requests sent, the refused request {case.stops_before} must not be",
    )
    actions = [line for line in outcome.timeline.entries if line.startswith("call:")]
    expect(len(actions) == case.executed, "RN-BUDGET-010", f"local actions after the stop: {actions}")
    admitted = [checkpoint["consumed_requests"] for checkpoint in outcome.checkpoints]
    expect(
        all(consumed <= case.stops_before for consumed in admitted),
        "RN-BUDGET-010",
        f"a request admission was saved for the refused request: consumed_requests {admitted}",
    )
