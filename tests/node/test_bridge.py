"""The Node bridge on its own: errors, cancellation, hangs and crashes of a JavaScript driver, without a browser.

The driver is tests/broken/node/plain.mjs (one fixed tab, members that return, refuse, throw, hang, block the
host, crash it, or report what their AbortSignal did).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from openai.lib.browser import BrowserError

from conformance.harness.errors import DriverSetupError, DriverTimeout
from conformance.harness.factory import SpecError
from conformance.harness.loop import HarnessLoop
from conformance.node.bridge import (
    NodeError,
    NodeHostCrashed,
    NodeHostError,
    find_node,
    find_tsx,
    node_argv,
    node_version,
)
from conformance.node.drivers.driver import NodeSpec
from conformance.node.drivers.harness import NodeBrowserHarness
from conformance.node.drivers.subject import NodeBrowserSubject

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser, pytest.mark.node]

HERE = Path(__file__).resolve().parent
FAKES = HERE.parent / "broken" / "node"
PLAIN = f"node:{FAKES / 'plain.mjs'}#makeDriver"


@pytest.fixture(scope="module")
def harness() -> Iterator[NodeBrowserHarness]:
    made = NodeBrowserHarness(PLAIN, HarnessLoop(timeout=2.0))
    try:
        yield made
    finally:
        made.close()
        made.loop.close()


@pytest.fixture
def subject(harness: NodeBrowserHarness) -> Iterator[NodeBrowserSubject]:
    with harness.subject("blank.html", note=lambda _text: None) as made:
        assert isinstance(made, NodeBrowserSubject)
        yield made


def test_the_sdk_half_runs_in_the_node_sdk_and_records_each_driver_call(subject: NodeBrowserSubject) -> None:
    # The Node SDK awaits every member: a JavaScript driver is certified as the async kind.
    assert subject.profile.flavour == "async"
    outcome = subject.call("get_page_text", tab_id=None)
    assert outcome.payload is not None and outcome.payload["ok"] is True
    assert outcome.payload["result"] == "plain text"
    assert [call.member for call in outcome.calls] == ["state", "get_page_text", "state"]
    assert outcome.raw == "plain text"
    # The Node SDK hands the member an options object; with no signal given, its signal is undefined.
    assert outcome.member_call is not None and outcome.member_call.cancelled_passed is False
    assert outcome.member_call.seconds is not None


def test_the_node_sdks_browser_error_is_a_safe_refusal_in_python(subject: NodeBrowserSubject) -> None:
    outcome = subject.call("click", target="gone", tab_id=None)
    assert isinstance(outcome.raised, BrowserError)
    assert outcome.payload is not None and outcome.payload["ok"] is False
    assert outcome.describe().startswith("click raised BrowserError: That ref is unknown")


def test_other_javascript_errors_keep_their_class_name(subject: NodeBrowserSubject) -> None:
    outcome = subject.call("key", keys=["a"], tab_id=None)
    assert isinstance(outcome.raised, NodeError) and not isinstance(outcome.raised, BrowserError)
    assert type(outcome.raised).__name__ == "TypeError"
    assert str(outcome.raised) == "keys must be strings"


def test_an_already_true_cancelled_becomes_an_aborted_signal(subject: NodeBrowserSubject) -> None:
    assert subject.call_direct("wait_for", {"text": "x"}, cancelled=lambda: True) == "aborted before the call"
    assert subject.call_direct("wait_for", {"text": "x"}) == "no signal"


def test_a_cancelled_that_turns_true_aborts_the_running_call(subject: NodeBrowserSubject) -> None:
    started = time.monotonic()
    answer = subject.call_direct("wait_for", {"text": "x"}, cancelled=lambda: time.monotonic() - started > 0.3)
    assert answer == "aborted during the call"
    assert time.monotonic() - started < 1.5


def test_only_members_that_declare_the_options_parameter_take_cancelled(subject: NodeBrowserSubject) -> None:
    from conformance.harness.profile import declares_cancelled

    assert declares_cancelled(subject.driver.wait_for)
    assert not declares_cancelled(subject.driver.find)


def test_a_call_that_never_settles_fails_on_the_deadline_and_the_host_starts_afresh(
    harness: NodeBrowserHarness,
) -> None:
    generation = harness.host.generation
    with harness.subject("blank.html", note=lambda _text: None) as subject:
        started = time.monotonic()
        with pytest.raises(DriverTimeout, match="hover"):
            subject.call("hover", target="x", tab_id=None)
        assert time.monotonic() - started < 6.0
    assert harness.host.generation == generation + 1
    with harness.subject("blank.html", note=lambda _text: None) as fresh:
        assert fresh.call("get_page_text", tab_id=None).raw == "plain text"


def test_a_driver_that_blocks_the_host_fails_on_the_deadline(harness: NodeBrowserHarness) -> None:
    with (
        harness.subject("blank.html", note=lambda _text: None) as subject,
        pytest.raises(DriverTimeout, match="scroll"),
    ):
        subject.call_direct("scroll", {"direction": "down", "amount": 1, "tab_id": None})
    with harness.subject("blank.html", note=lambda _text: None) as fresh:
        assert fresh.state()["tabs"][0]["id"] == "tab-1"


def test_a_driver_that_ends_the_host_fails_its_call_with_the_exit_and_its_output(harness: NodeBrowserHarness) -> None:
    notes: list[str] = []
    crash = pytest.raises(NodeHostCrashed, match=r"status 3.*navigate: about to exit")
    with harness.subject("blank.html", note=notes.append) as subject, crash:
        subject.call("navigate", url=subject.env.start_url, tab_id=None)
    # The driver died with its host: its close() cannot run, which is a note, and the next check gets a new host.
    assert any("abandoned" in note for note in notes), notes
    with harness.subject("blank.html", note=lambda _text: None) as fresh:
        assert fresh.call("get_page_text", tab_id=None).raw == "plain text"


def test_unhandled_rejections_are_a_note_not_a_crash(harness: NodeBrowserHarness) -> None:
    notes: list[str] = []
    generation = harness.host.generation
    with harness.subject("blank.html", note=notes.append) as subject:
        subject.call_direct("hover_at", {"tab_id": None, "x": 1, "y": 1})
    assert harness.host.generation == generation
    assert any("1 promise rejection(s) nobody handled, e.g. Error: stray failure" in note for note in notes), notes


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("node:tests/broken/node/plain.mjs", "expected node:PATH#EXPORT"),
        ("node:tests/broken/node/missing.mjs#makeDriver", "module file not found"),
        ("node:tests/broken/node/plain.py#makeDriver", "not a JavaScript or TypeScript module"),
        ("node:tests/broken/node/plain.mjs#make-driver", "not a JavaScript export name"),
    ],
)
def test_a_bad_node_spec_says_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        NodeSpec.parse(spec, "--driver", [HERE.parents[1]])


@pytest.mark.parametrize(
    ("export", "message"),
    [("notAFunction", "exports no function notAFunction"), ("nowhere", "exports no function nowhere")],
)
def test_an_export_that_is_not_a_factory_is_a_setup_error(export: str, message: str) -> None:
    loop = HarnessLoop(timeout=2.0)
    try:
        with pytest.raises(DriverSetupError, match=message):
            NodeBrowserHarness(f"node:{FAKES / 'plain.mjs'}#{export}", loop)
    finally:
        loop.close()


def test_a_factory_that_returns_no_driver_fails_the_probe() -> None:
    harness = NodeBrowserHarness(f"node:{FAKES / 'plain.mjs'}#returnsNothing", HarnessLoop(timeout=2.0))
    try:
        with pytest.raises(DriverSetupError, match="not a driver with state"):
            harness.probe()
    finally:
        harness.close()
        harness.loop.close()


def test_a_typescript_driver_runs_with_its_types_stripped() -> None:
    harness = NodeBrowserHarness(f"node:{FAKES / 'typed.ts'}#makeDriver", HarnessLoop(timeout=5.0))
    try:
        with harness.subject("blank.html", note=lambda _text: None) as subject:
            assert subject.call("get_page_text", tab_id=None).raw == "typed text"
            assert isinstance(subject.call("click", target="x", tab_id=None).raised, BrowserError)
    finally:
        harness.close()
        harness.loop.close()


def test_typescript_without_a_way_to_strip_types_is_a_setup_error(tmp_path: Path) -> None:
    module = tmp_path / "driver.ts"
    module.write_text("export const makeDriver = (env: unknown) => env;\n")
    if node_version(find_node()) >= (22, 6):
        pytest.skip("this Node strips types itself")
    assert find_tsx(tmp_path) is not None  # the kit's own tsx is the fallback
    with pytest.raises(NodeHostError, match="npm install --save-dev tsx"):
        node_argv(module, kit_fallback=False)
