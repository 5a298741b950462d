"""File transfers (opt-in upload_file / download_file): outcome shape, and grants honoured once and only when
valid (BR-FILE).

Grants reach the driver through ``env.hints.grants``. files.html records the name and size of any file put
into its file input and posts it to the fixture server, which records the bytes it received; downloads are
seen in the server's request log. The checks judge transfers by those records, not by the outcome alone.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from conformance.assertions import expect, unverified
from conformance.harness.environment import Environment, FileGrant
from conformance.harness.subject import BrowserSubject, CallOutcome
from conformance.members import FILE_CLEANUP_VALUES, FILE_OUTCOME_PAIRS

from ._expectations import is_browser_error

# Every check here starts on its fixture page; without it the start-page clause is blamed, in setup.
pytestmark = pytest.mark.usefixtures("shows_start_page")

UPLOAD = FileGrant("kit-upload-notes", "upload", "notes.txt", content=b"kit upload payload\n" * 3, max_bytes=10_000)
OVERSIZE = FileGrant("kit-upload-oversize", "upload", "big.txt", content=b"x" * 4096, max_bytes=100)
# Expires a twentieth of a second after the driver is made; the check waits past that before using it.
EXPIRED = FileGrant("kit-upload-expired", "upload", "old.txt", content=b"old\n", expires_in_s=0.05)
DOWNLOAD = FileGrant("kit-download-report", "download", "report.txt", max_bytes=10_000)
# The fixture server's report.txt is about thirty bytes; this grant allows five.
TINY_DOWNLOAD = FileGrant("kit-download-tiny", "download", "report.txt", max_bytes=5)
NEVER_ISSUED: tuple[str, ...] = ("kit-never-issued", "/etc/passwd", "__download/report.txt", "notes.txt")


def check_outcome_shape(outcome: CallOutcome, where: str) -> dict[str, Any] | None:
    """BR-FILE-001/002 for a returned outcome; None when the driver raised instead."""
    if outcome.raised is not None:
        return None
    raw = outcome.raw
    expect(
        isinstance(raw, dict) and set(raw) == {"version", "status", "effect", "cleanup"},
        "BR-FILE-001",
        f"{where}: the outcome must have exactly version, status, effect and cleanup, got {raw!r}"[:300],
    )
    expect(type(raw["version"]) is int and raw["version"] == 1, "BR-FILE-001", f"{where}: version is not 1")
    expect(
        (raw["status"], raw["effect"]) in FILE_OUTCOME_PAIRS,
        "BR-FILE-002",
        f"{where}: status/effect {raw['status']!r}/{raw['effect']!r} is not a documented pair",
    )
    expect(raw["cleanup"] in FILE_CLEANUP_VALUES, "BR-FILE-002", f"{where}: cleanup is {raw['cleanup']!r}")
    outcome.expect_sdk_accepted()
    return dict(raw)


def expect_refusal(outcome: CallOutcome, clause: str, where: str) -> None:
    """A refused grant: a refused/none outcome, or a BrowserError. Nothing else counts as refusing."""
    raw = check_outcome_shape(outcome, where)
    if raw is None:
        expect(
            is_browser_error(outcome.raised),
            clause,
            f"{where}: {outcome.describe()} instead of refusing",
        )
        return
    expect(
        raw["status"] == "refused" and raw["effect"] == "none",
        clause,
        f"{where}: expected a refused outcome, got {raw['status']}/{raw['effect']}",
    )


def _expect_first_use_completed(
    subject: BrowserSubject, member: str, grant: FileGrant, clause: str, transfer: str
) -> None:
    """``member`` with a valid ``grant`` used for the first time completes the ``transfer`` (``clause``)."""
    raw = check_outcome_shape(subject.call(member, grant_id=grant.grant_id), f"first {transfer}")
    if raw is None or raw["status"] == "refused":
        # Nothing was transferred with a valid grant: the driver does not take the kit's caller-issued grants.
        unverified(member, "the factory must issue env.hints.grants to the driver's file owner")
    expect(raw["status"] == "completed", clause, f"a valid {transfer} ended {raw['status']}/{raw['effect']}")


def uploads(env: Environment) -> list[Any]:
    return env.effects("file_chosen") + env.effects("upload")


def downloads(env: Environment) -> list[Any]:
    return [request for request in env.requests() if "__download/" in request.path]


@pytest.mark.page("files.html")
@pytest.mark.hints(grants=(UPLOAD,), members=("upload_file",))
@pytest.mark.clause("BR-FILE-001", "BR-FILE-002", "BR-FILE-003", "BR-FILE-004", "BR-FILE-005")
def test_an_upload_grant_is_honoured_once(subject: BrowserSubject, env: Environment) -> None:
    _expect_first_use_completed(subject, "upload_file", UPLOAD, "BR-FILE-003", "upload")
    chosen = env.wait_for_effect("file_chosen")
    expect(
        chosen.get("name") == UPLOAD.file_name and chosen.get("size") == len(UPLOAD.content),
        "BR-FILE-003",
        f"the page received {chosen.get('name')!r} ({chosen.get('size')} bytes), not the granted "
        f"{UPLOAD.file_name!r} ({len(UPLOAD.content)} bytes)",
    )
    env.wait_for_effect("upload")
    second = subject.call("upload_file", grant_id=UPLOAD.grant_id)
    expect_refusal(second, "BR-FILE-005", "second use of the same upload grant")
    env.settle()
    expect(
        len(env.effects("file_chosen")) == 1 and len(env.effects("upload")) == 1,
        "BR-FILE-005",
        f"the grant was used twice: the page saw {len(env.effects('file_chosen'))} files",
    )


@pytest.mark.page("files.html")
@pytest.mark.hints(grants=(OVERSIZE, EXPIRED, DOWNLOAD), members=("upload_file",))
@pytest.mark.clause(
    "BR-FILE-001", "BR-FILE-002", "BR-FILE-004", "BR-FILE-006", "BR-FILE-007", "BR-FILE-008", "BR-FILE-009"
)
def test_invalid_upload_grants_are_refused(subject: BrowserSubject, env: Environment) -> None:
    subject.require("upload_file")
    time.sleep(EXPIRED.expires_in_s + 0.2)
    cases: list[tuple[str, str, str]] = [
        (grant_id, "BR-FILE-006", f"a grant ID never issued ({grant_id!r})") for grant_id in NEVER_ISSUED
    ]
    cases += [
        (EXPIRED.grant_id, "BR-FILE-007", "an expired grant"),
        (OVERSIZE.grant_id, "BR-FILE-008", "a grant whose file exceeds its size limit"),
        (DOWNLOAD.grant_id, "BR-FILE-009", "a download grant used for upload_file"),
    ]
    for grant_id, clause, what in cases:
        before = len(uploads(env))
        outcome = subject.call("upload_file", grant_id=grant_id)
        expect_refusal(outcome, clause, what)
        env.settle()
        expect(len(uploads(env)) == before, "BR-FILE-004", f"{what} was refused but a file reached the page")


@pytest.mark.page("files.html")
@pytest.mark.hints(grants=(DOWNLOAD, TINY_DOWNLOAD, UPLOAD), members=("download_file",))
@pytest.mark.clause("BR-FILE-001", "BR-FILE-002", "BR-FILE-005", "BR-FILE-009", "BR-FILE-010", "BR-FILE-011")
def test_a_download_grant_is_honoured_once_within_its_limit(subject: BrowserSubject, env: Environment) -> None:
    _expect_first_use_completed(subject, "download_file", DOWNLOAD, "BR-FILE-010", "download")
    expect(downloads(env), "BR-FILE-010", "the download was reported completed but the server never sent it")
    again = subject.call("download_file", grant_id=DOWNLOAD.grant_id)
    expect_refusal(again, "BR-FILE-005", "second use of the same download grant")
    mismatched = subject.call("download_file", grant_id=UPLOAD.grant_id)
    expect_refusal(mismatched, "BR-FILE-009", "an upload grant used for download_file")
    tiny = subject.call("download_file", grant_id=TINY_DOWNLOAD.grant_id)
    tiny_raw = check_outcome_shape(tiny, "download over the grant's size limit")
    expect(
        tiny_raw is None or tiny_raw["status"] != "completed",
        "BR-FILE-011",
        "a download larger than the grant's 5-byte limit was reported completed",
    )
