"""The reference browser drivers conform: the whole browser suite fails no clause, for both flavours.

This is the kit certifying its own reference implementation exactly as the README's main job does
(``driverkit certify --driver reference.browser:sync_factory --out DIR``), so it also proves the CLI and the harness
can carry a full run end to end. Each run takes a minute or more with a real browser, hence the ``slow`` mark.

CI would otherwise certify the sync driver a second time for the README's main job: with
``KIT_REFERENCE_CERTIFICATES=DIR`` set, each run writes into ``DIR/<flavour>`` (which must not exist yet, so a
stale certificate is never read back) and CI checks that certificate instead of certifying again.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conformance.members import DRIVER_METHOD_NAMES
from tests.broken.certification import certify

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser, pytest.mark.child_run]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("factory", "flavour"),
    [("reference.browser:sync_factory", "sync"), ("reference.browser:async_factory", "async")],
    ids=["sync", "async"],
)
def test_the_reference_driver_is_certified(factory: str, flavour: str, tmp_path: Path) -> None:
    # The async run also carries a plugin that marks the run failed at its end (as syrupy does for unused
    # snapshots): the exit status must still follow the verdict (expect_conforms checks it is 0).
    options = ("-p", "tests.red_exit_plugin") if flavour == "async" else ()
    run = certify(factory, _certificate_folder(flavour, tmp_path), timeout=900.0, cli=True, options=options)
    assert run.certificate is not None, f"the run wrote no certificate:\n{run.tail()}"
    profile = run.profile()
    assert profile.get("flavour") == flavour, f"the harness saw flavour {profile.get('flavour')!r}"
    missing = sorted(set(DRIVER_METHOD_NAMES) - set(profile.get("implemented", ())))
    assert not missing, f"the reference driver does not implement {missing}"
    not_implemented = run.with_status("not_implemented")
    assert not not_implemented, f"checks found capabilities missing:\n{run.reasons(not_implemented)}"
    run.expect_conforms("the reference driver")


def _certificate_folder(flavour: str, tmp_path: Path) -> Path:
    kept = os.environ.get("KIT_REFERENCE_CERTIFICATES")
    if not kept:
        return tmp_path
    folder = Path(kept) / flavour
    try:
        folder.mkdir(parents=True)
    except FileExistsError:
        raise FileExistsError(f"KIT_REFERENCE_CERTIFICATES: {folder} already exists; give a fresh folder") from None
    return folder
