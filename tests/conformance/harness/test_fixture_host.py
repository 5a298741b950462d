"""--fixture-host: where the fixture server listens, the host name its URLs carry, and the preflight that proves
the browser under test can load them (else one error naming the host, and a certificate saying nothing ran)."""

from __future__ import annotations

import urllib.request
from pathlib import Path

import pytest

from conformance.harness.fixture_host import FixtureHost, FixtureHostError
from conformance.harness.fixture_server import FixtureHostUnusable, FixtureServer
from conformance.harness.profile import ROUTE_NOT_REPORTED
from tests.conformance.harness.test_resilience import STATE_CHECK, certify

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser, pytest.mark.container, pytest.mark.child_run]


@pytest.mark.parametrize(
    ("text", "bind", "name"),
    [
        ("192.0.2.7", "192.0.2.7", "192.0.2.7"),
        ("0.0.0.0,host.docker.internal", "0.0.0.0", "host.docker.internal"),
        (" 127.0.0.1 , LocalHost. ", "127.0.0.1", "localhost"),
        ("::,fd00::2", "::", "fd00::2"),
        ("::1", "::1", "::1"),
    ],
)
def test_the_option_names_an_address_to_listen_on_and_a_name_for_the_browser(text: str, bind: str, name: str) -> None:
    assert FixtureHost.parse(text) == FixtureHost(bind, name)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "no listening address"),
        ("host.docker.internal", "not an IP address to listen on"),
        ("0.0.0.0", "add the name the browser reaches this machine by"),
        ("0.0.0.0,", "the name after the comma is empty"),
        ("0.0.0.0,bad name", "neither an IP address nor a host name"),
        ("0.0.0.0,-x.example", "neither an IP address nor a host name"),
        ("127.0.0.1,0.0.0.0", "not an address a browser can load pages from"),
    ],
)
def test_a_bad_fixture_host_says_what_is_wrong_and_the_expected_form(text: str, why: str) -> None:
    with pytest.raises(FixtureHostError, match=why) as raised:
        FixtureHost.parse(text)
    assert "--fixture-host=" in str(raised.value)


def test_both_origins_carry_the_name_on_two_ports_and_serve_there() -> None:
    with FixtureServer(host=FixtureHost("127.0.0.1", "localhost")) as server:
        main, other = server.origin("main"), server.origin("other")
        main_port, other_port = server.ports()
        assert (main, other) == (f"http://localhost:{main_port}", f"http://localhost:{other_port}")
        assert main_port != other_port
        session = server.session()
        token = next(session)
        with urllib.request.urlopen(f"{other}/s/{token}/blank.html", timeout=10) as response:
            assert response.status == 200
        assert [request.origin for request in server.store.requests(token)] == ["other"]
        session.close()


def test_an_ipv6_name_is_bracketed_in_urls() -> None:
    assert FixtureHost("::1", "::1").url_host == "[::1]"


def test_an_address_this_machine_does_not_have_is_a_clear_error() -> None:
    # 192.0.2.0/24 is reserved for documentation; .99 is on no interface of the test machine.
    with pytest.raises(FixtureHostUnusable, match=r"cannot listen on 192\.0\.2\.99 .*ip -brief address"):
        FixtureServer(host=FixtureHost("192.0.2.99", "192.0.2.99"))


def test_a_fixture_host_the_browser_never_loads_from_stops_the_run_and_the_certificate_says_why(
    tmp_path: Path,
) -> None:
    # state_only never loads env.start_url, exactly what a browser that cannot reach the host looks like.
    run = certify(tmp_path, "state_only", "--fixture-host=127.0.0.1,localhost", "-k", STATE_CHECK)
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.tail()
    assert "never loaded the fixture pages from --fixture-host localhost (listening on 127.0.0.1)" in run.output
    assert "the browser must reach this machine as localhost on those ports" in run.output
    certificate = run.certificate
    assert certificate["verdict"] == "not fully checked"
    assert certificate["summary"]["not_checked"] == len(certificate["clauses"])
    assert certificate["run"]["incomplete"][0].startswith("no check ran: the browser never loaded")
    assert certificate["subjects"][0]["profile"]["fixture host"] == "localhost (listening on 127.0.0.1)"


def test_the_reference_driver_certifies_on_an_advertised_name_and_the_certificate_says_how(tmp_path: Path) -> None:
    run = certify(tmp_path, "reference.browser:sync_factory", "--fixture-host=127.0.0.1,localhost", "-k", STATE_CHECK)
    assert run.returncode == 0, run.tail()
    assert run.checked_by(STATE_CHECK, "passed"), run.tail()
    profile = run.certificate["subjects"][0]["profile"]
    assert profile["fixture host"] == "localhost (listening on 127.0.0.1)"
    assert profile["browser route"] == "launched by the driver"
    page = (run.directory / "certificate.md").read_text("utf-8")
    assert "browser reached: launched by the driver" in page


def test_a_driver_that_does_not_say_how_it_reached_its_browser_is_not_reported(tmp_path: Path) -> None:
    # A driver that shows its pages: one that never did (state_only) cost this test the start page's 20 s deadline.
    run = certify(tmp_path, "route_not_reported", "-k", STATE_CHECK)
    assert run.checked_by(STATE_CHECK, "passed"), run.tail()
    profile = run.certificate["subjects"][0]["profile"]
    assert profile["browser route"] == ROUTE_NOT_REPORTED
    assert profile["fixture host"] == "127.0.0.1"
