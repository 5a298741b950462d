"""The certificate's one-line verdict follows the worst clause status it found."""

from __future__ import annotations

import pytest

from conformance.assertions import CheckSkipped, not_checked, not_implemented, not_provoked, unverified
from conformance.certificate import verdict_of
from conformance.certificate_format import load as load_certificate
from conformance.clauses import Clause
from conformance.reporting import exit_status
from conformance.session import CertificationSession, CheckResult


@pytest.mark.parametrize(
    ("counts", "verdict"),
    [
        ({"passed": 10}, "conforms"),
        ({"passed": 8, "not_implemented": 2}, "conforms"),
        ({"passed": 8, "deviation": 2}, "conforms except for known deviations"),
        ({"passed": 8, "not_checked": 2}, "not fully checked"),
        ({"passed": 6, "not_checked": 2, "deviation": 2}, "not fully checked"),
        ({"passed": 8, "failed": 1, "not_checked": 1}, "does not conform"),
        ({"failed": 1, "deviation": 1}, "does not conform"),
    ],
)
def test_verdict_follows_the_worst_status(counts: dict[str, int], verdict: str) -> None:
    assert verdict_of(counts) == verdict


@pytest.mark.parametrize(
    ("counts", "members", "verdict"),
    [
        ({"passed": 8, "unverified": 3}, ("click", "click", "hover"), "conforms, 2 implemented members unverified"),
        ({"passed": 8, "unverified": 1}, ("click",), "conforms, 1 implemented member unverified"),
        ({"passed": 8, "unverified": 2}, (), "conforms, 2 clauses unverified"),
        ({"passed": 8, "unverified": 2, "not_checked": 1}, ("click",), "not fully checked"),
        ({"passed": 8, "unverified": 2, "failed": 1}, ("click",), "does not conform"),
    ],
)
def test_unverified_members_keep_the_verdict_from_plain_conforms(
    counts: dict[str, int], members: tuple[str, ...], verdict: str
) -> None:
    assert verdict_of(counts, members) == verdict


def test_skips_carry_their_kind_and_member_as_data() -> None:
    for raise_skip, kind, member in (
        (lambda: not_implemented("zoom"), "not_implemented", "zoom"),
        (lambda: unverified("click", "needs a structured read_page"), "unverified", "click"),
        (lambda: not_provoked("the page never opened its popup"), "not_provoked", None),
        (lambda: not_checked("Chromium did not start"), "not_checked", None),
    ):
        with pytest.raises(CheckSkipped) as caught:
            raise_skip()
        assert caught.value.kind == kind
        assert caught.value.member == member or kind == "not_implemented"
        # Still an ordinary pytest skip to pytest itself.
        assert isinstance(caught.value, pytest.skip.Exception)


def test_a_clause_one_check_passed_is_passed_even_if_another_was_unverified() -> None:
    clause = Clause("BR-X-001", "002", "s", "summary", member="click")
    passed = CheckResult("a", (clause.id,), "passed")
    stuck = CheckResult("b", (clause.id,), "unverified", reason="needs refs", member="click")
    absent = CheckResult("c", (clause.id,), "not_implemented", reason="read_page")
    broken_env = CheckResult("d", (clause.id,), "not_checked", reason="environment: no browser")
    session = CertificationSession([passed, stuck, absent, broken_env])
    assert [r.status for r in session.clause_results([clause])] == ["passed"]
    session = CertificationSession([stuck, absent, broken_env])
    (result,) = session.clause_results([clause])
    assert (result.status, result.members, result.reasons) == ("unverified", ["click"], ["needs refs"])
    session = CertificationSession([broken_env])
    (result,) = session.clause_results([clause])
    assert (result.status, result.reasons) == ("not_checked", ["environment: no browser"])


STATUS_WORDS = (
    "driverkit: not implemented: zoom; driverkit unverified: click: x; driverkit: not checked: y; passed failed"
)


@pytest.mark.parametrize("message", ["an ordinary skip", STATUS_WORDS])
def test_a_skip_message_never_decides_a_status(pytester: pytest.Pytester, message: str) -> None:
    # Only the kit's typed outcomes carry a status; whatever words a plain pytest skip holds, it is just a skip.
    pytester.makepyfile(
        test_words=f"""
        import pytest

        @pytest.mark.clause("BR-STATE-001")
        def test_skips():
            pytest.skip({message!r})
        """
    )
    pytester.runpytest("--certificate=out", "-p", "no:randomly", "-p", "no:cacheprovider")
    data = dict(load_certificate(pytester.path / "out" / "certificate.json"))
    clause = next(clause for clause in data["clauses"] if clause["id"] == "BR-STATE-001")
    assert (clause["status"], clause["why"], clause["members"]) == ("not_checked", "not_run", [])
    assert data["verdict"] == "not fully checked"


@pytest.mark.parametrize(
    ("verdict", "current", "expected"),
    [
        ("conforms", 1, 0),
        ("conforms except for known deviations", 1, 0),
        ("conforms, 2 implemented members unverified", 1, 0),
        ("does not conform", 0, 1),
        ("not fully checked", 0, 0),
        ("not fully checked", 1, 1),
        ("conforms", 2, 2),  # interrupted
        ("conforms", 3, 3),  # internal error
        ("does not conform", 4, 4),  # usage error
    ],
)
def test_the_exit_status_follows_the_verdict(verdict: str, current: int, expected: int) -> None:
    assert exit_status(verdict, current) == expected
