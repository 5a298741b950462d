"""The rig's modes: one list for the runner suite and replay, named the same way everywhere."""

from __future__ import annotations

import pytest

from conformance.rig import ALL_MODES, Mode, ModeError, parse_mode


def test_every_flavour_delivery_and_ledger_combination_once() -> None:
    ids = [mode.id for mode in ALL_MODES]
    assert len(ids) == len(set(ids)) == 12
    assert ids[:3] == ["sync-plain", "sync-plain-ledger", "sync-stream"]


@pytest.mark.parametrize("mode", ALL_MODES, ids=lambda mode: mode.id)
def test_a_mode_name_reads_back_as_the_mode(mode: Mode) -> None:
    assert parse_mode(mode.id) == mode


def test_delivery_selects_the_run_keywords() -> None:
    assert Mode.of("async", "eager").run_options() == {"stream": True, "eager": True}
    assert Mode.of("sync", "stream").run_options() == {"stream": True, "eager": False}
    assert Mode.of("sync", "plain").run_options() == {"stream": False, "eager": False}


def test_an_unknown_name_lists_the_choices() -> None:
    with pytest.raises(ModeError, match=r"unknown mode 'sync-fast' \(choose from sync-plain, "):
        parse_mode("sync-fast")


def test_eager_without_streaming_is_refused() -> None:
    with pytest.raises(ModeError, match="eager delivery needs a streamed run"):
        Mode("sync", stream=False, eager=True)
