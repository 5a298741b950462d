"""The service refuses to run code unconfined: without the sandbox's tools it does not start, and says why."""

from __future__ import annotations

import os
import shutil

import pytest

from reference.execution import ExecutionService, SandboxUnavailable
from reference.execution.sandbox import x11_socket

from ._http import execute, texts
from .conftest import TEST_LIMITS

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.desktop, pytest.mark.container]


def test_no_bwrap_means_no_service(monkeypatch: pytest.MonkeyPatch, token: str) -> None:
    real_which = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name: None if name == "bwrap" else real_which(name))
    with pytest.raises(SandboxUnavailable, match="bwrap not found"):
        ExecutionService(token, display=None, limits=TEST_LIMITS)


def test_only_a_local_display_socket_is_granted(x_display: str) -> None:
    socket = x11_socket(x_display)
    assert socket is not None and socket.name == f"X{x_display[1:]}"
    assert x11_socket("remote.example:0") is None
    assert x11_socket(None) is None


def test_each_session_has_its_own_private_scratch_folder(service: ExecutionService, token: str) -> None:
    probe = (
        "import os\n"
        "open('mine-' + {name!r}, 'w').close()\n"
        "folder = os.stat('.')\n"
        "names = sorted(n for n in os.listdir('.') if n != 'Xauthority')\n"
        "log('%o %d %s' % (folder.st_mode & 0o777, folder.st_uid, names))"
    )
    seen = {}
    for session in ("one", "two"):
        seen[session] = texts(execute(service.endpoint, token, session, probe.format(name=session)))
        runtime = service.pool.runtime(session)
        assert runtime is not None
        mode, owner, names = seen[session][0].split(" ", 2)
        assert mode == "700"
        assert int(owner) == (runtime.uid if os.geteuid() == 0 else os.geteuid())
        assert names == f"['mine-{session}']", "a session sees another's files, or its scratch is not its own"
    uids = {runtime.uid for runtime in (service.pool.runtime("one"), service.pool.runtime("two")) if runtime}
    if os.geteuid() == 0:
        # Started by root: a uid per runtime, none of them root.
        assert len(uids) == 2 and 0 not in uids


def test_scratch_is_bounded_in_total_and_never_reaches_the_host(service: ExecutionService, token: str) -> None:
    limit = TEST_LIMITS.scratch_bytes
    code = (
        "written = 0\n"
        "try:\n"
        f"    while written < {2 * limit}:\n"
        "        with open('fill-%d' % (written >> 24), 'ab') as out:\n"
        "            out.write(b'x' * (1 << 20))\n"
        "        written += 1 << 20\n"
        "except OSError as error:\n"
        "    log('stopped at %d: %s' % (written, type(error).__name__))\n"
        "else:\n"
        "    log('wrote %d' % written)"
    )
    said = texts(execute(service.endpoint, token, "filler", code))
    assert said and said[0].startswith("stopped at"), said
    assert int(said[0].split()[2].rstrip(":")) <= limit
