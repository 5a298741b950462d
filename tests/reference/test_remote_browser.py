"""The reference driver on a browser it connects to: a Playwright server and Chromium's DevTools endpoint.

Real browsers started by ``reference.browser.serve`` (as CI and the docs start them); the driver must keep its
network guard there, open and close only its own context, and fail with one clear error naming the endpoint when
the endpoint is malformed, unreachable, silent, or its browser goes away.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from rdk_helpers import desktop_image_or_skip

from conformance.certificate_format import load as load_certificate
from conformance.harness.environment import Environment, SharedResources
from conformance.harness.fixture_server import FixtureServer
from reference.browser import (
    CDP_ENDPOINT_VARIABLE,
    CONNECT_TIMEOUT_VARIABLE,
    WS_ENDPOINT_VARIABLE,
    LaunchError,
    PlaywrightBrowserDriver,
    RemoteBrowserError,
    SyncBrowserProcess,
    async_factory,
    launch,
    launch_async,
    serve,
    sync_factory,
)
from reference.browser._guard import NetworkGuard
from reference.browser._launch import SANDBOX_VARIABLE, launch_options
from reference.browser._remote import (
    DEFAULT_CONNECT_TIMEOUT_S,
    GUARD_HOST_VARIABLE,
    connect_timeout,
    guard_host,
    remote_browser,
    route,
)
from reference.policy import OriginSet

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser, pytest.mark.container, pytest.mark.child_run]

KINDS = {"playwright-server": "ws_endpoint", "cdp": "cdp_endpoint"}
# How the helper's cdp keeper process shows in /proc, which is how stop recognises it.
_KEEPER_COMMAND_LINE = ("reference.browser.serve", "_keep", "cdp")
_FETCH = "url => fetch(url, {mode: 'no-cors'}).then(() => 'sent', () => 'refused')"


@pytest.fixture(scope="module")
def endpoints(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    state = tmp_path_factory.mktemp("remote-browsers")
    started: dict[str, str] = {}
    try:
        for kind in KINDS:
            started[kind] = serve.start(kind, state)
        yield started
    finally:
        for kind in started:
            serve.stop(kind, state)


# ----- endpoint options and environment variables ------------------------------------------------------------


def test_no_endpoint_means_launching() -> None:
    assert remote_browser(environ={}) is None
    assert remote_browser(environ={WS_ENDPOINT_VARIABLE: "", CDP_ENDPOINT_VARIABLE: ""}) is None


def test_each_variable_names_its_protocol() -> None:
    ws = remote_browser(environ={WS_ENDPOINT_VARIABLE: "ws://127.0.0.1:3000/abc"})
    cdp = remote_browser(environ={CDP_ENDPOINT_VARIABLE: "http://127.0.0.1:9222"})
    assert ws is not None and (ws.protocol, ws.url, ws.source) == (
        "playwright",
        "ws://127.0.0.1:3000/abc",
        WS_ENDPOINT_VARIABLE,
    )
    assert cdp is not None and (cdp.protocol, cdp.source) == ("cdp", CDP_ENDPOINT_VARIABLE)
    assert remote_browser(environ={CDP_ENDPOINT_VARIABLE: "ws://127.0.0.1:9222/devtools/browser/x"}) is not None


def test_both_variables_are_refused() -> None:
    environ = {WS_ENDPOINT_VARIABLE: "ws://127.0.0.1:3000/", CDP_ENDPOINT_VARIABLE: "http://127.0.0.1:9222"}
    with pytest.raises(RemoteBrowserError, match=f"both {WS_ENDPOINT_VARIABLE} and {CDP_ENDPOINT_VARIABLE}"):
        remote_browser(environ=environ)


def test_both_options_are_refused_and_an_option_outranks_the_environment() -> None:
    with pytest.raises(RemoteBrowserError, match="both ws_endpoint and cdp_endpoint"):
        remote_browser(ws_endpoint="ws://127.0.0.1:1/", cdp_endpoint="http://127.0.0.1:2")
    chosen = remote_browser(cdp_endpoint="http://127.0.0.1:2", environ={WS_ENDPOINT_VARIABLE: "ws://127.0.0.1:1/"})
    assert chosen is not None and chosen.protocol == "cdp" and chosen.source == "the cdp_endpoint option"


@pytest.mark.parametrize(
    ("variable", "value", "why"),
    [
        (WS_ENDPOINT_VARIABLE, "http://127.0.0.1:3000/", "scheme 'http'"),
        (WS_ENDPOINT_VARIABLE, "127.0.0.1:3000", "scheme"),
        (WS_ENDPOINT_VARIABLE, "ws://:3000/", "no host"),
        (WS_ENDPOINT_VARIABLE, "ws://127.0.0.1:99999/", "port"),
        (WS_ENDPOINT_VARIABLE, "ws://127.0.0.1:0/", "port 0"),
        (CDP_ENDPOINT_VARIABLE, "ftp://127.0.0.1:9222", "scheme 'ftp'"),
        (CDP_ENDPOINT_VARIABLE, "http://127.0.0.1:92 22", "white space"),
        (CDP_ENDPOINT_VARIABLE, "   ", "empty"),
    ],
)
def test_a_malformed_endpoint_names_the_variable_and_the_problem(variable: str, value: str, why: str) -> None:
    with pytest.raises(RemoteBrowserError, match=variable) as raised:
        remote_browser(environ={variable: value})
    assert why in str(raised.value)


def test_an_access_token_in_the_endpoint_is_never_shown() -> None:
    remote = remote_browser(ws_endpoint="wss://user:secret@browsers.example:443/pw?token=secret-token")
    assert remote is not None
    assert "secret" not in remote.describe()
    assert remote.shown == "wss://browsers.example:443/...?..."
    # The kit's own endpoints carry their token in the path, and so does a Playwright server's random path.
    kit = remote_browser(cdp_endpoint="http://127.0.0.1:9222/capability-token")
    assert kit is not None and "capability-token" not in kit.describe()
    assert kit.redact("GET http://127.0.0.1:9222/capability-token/json/version/ 404") == (
        "GET http://127.0.0.1:9222/.../json/version/ 404"
    )


def test_the_connect_deadline_comes_from_the_option_the_variable_or_the_default() -> None:
    assert connect_timeout(None, environ={}) == DEFAULT_CONNECT_TIMEOUT_S
    assert connect_timeout(None, environ={CONNECT_TIMEOUT_VARIABLE: "2.5"}) == 2.5
    assert connect_timeout(4, environ={CONNECT_TIMEOUT_VARIABLE: "2.5"}) == 4
    for bad in ("soon", "0", "-1", "inf", "nan"):
        with pytest.raises(RemoteBrowserError, match=CONNECT_TIMEOUT_VARIABLE):
            connect_timeout(None, environ={CONNECT_TIMEOUT_VARIABLE: bad})
    with pytest.raises(RemoteBrowserError, match="connect_timeout_s"):
        connect_timeout(0)


# ----- endpoints that do not answer ----------------------------------------------------------------------------


def _without_secret(endpoint: str) -> str:
    """An endpoint as certificates and errors show it: its path (the token) left out."""
    parts = urlsplit(endpoint)
    return f"{parts.scheme}://{parts.netloc}/..."


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.mark.parametrize(("option", "scheme"), [("ws_endpoint", "ws"), ("cdp_endpoint", "http")])
def test_an_unreachable_endpoint_is_one_error_naming_it_and_the_method(option: str, scheme: str) -> None:
    endpoint = f"{scheme}://127.0.0.1:{_closed_port()}/"
    with pytest.raises(RemoteBrowserError) as raised:
        SyncBrowserProcess.start(**{option: endpoint}, connect_timeout_s=5)  # type: ignore[arg-type]
    message = str(raised.value)
    assert endpoint.rstrip("/") in message and "could not connect" in message
    assert ("Playwright connect" if option == "ws_endpoint" else "connect_over_cdp") in message
    assert "ECONNREFUSED" in message and "\n" not in message


@pytest.mark.parametrize("option", ["ws_endpoint", "cdp_endpoint"])
def test_an_endpoint_that_never_answers_fails_at_its_deadline(option: str) -> None:
    # A listener that accepts and then says nothing: without a deadline the connection would wait forever.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        scheme = "ws" if option == "ws_endpoint" else "http"
        endpoint = f"{scheme}://127.0.0.1:{silent.getsockname()[1]}/"
        outcome: list[BaseException] = []

        def attempt() -> None:
            try:
                SyncBrowserProcess.start(**{option: endpoint}, connect_timeout_s=1.5).close()  # type: ignore[arg-type]
            except BaseException as error:
                outcome.append(error)

        worker = threading.Thread(target=attempt, daemon=True)
        worker.start()
        worker.join(timeout=60)  # generous: this bounds a hang, it does not time the deadline
        assert not worker.is_alive(), "connecting to a silent endpoint hung past its deadline"
    assert len(outcome) == 1 and isinstance(outcome[0], RemoteBrowserError)
    assert "1.5 s deadline" in str(outcome[0]) and endpoint.rstrip("/") in str(outcome[0])


# ----- real remote browsers ------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(KINDS))
def test_the_driver_keeps_its_guard_and_closes_only_its_own_context(
    kind: str, endpoints: dict[str, str], fixture_server: FixtureServer
) -> None:
    tokens = fixture_server.session()
    env = Environment(fixture_server, next(tokens))
    try:
        with launch(**{KINDS[kind]: endpoints[kind]}) as process:  # type: ignore[arg-type]
            assert process.remote is not None and process.home is None
            before = list(process.browser.contexts)
            pages_before = [len(context.pages) for context in before]
            with PlaywrightBrowserDriver.create(
                process.browser, allowed_origins=[env.main_origin], start_url=env.url("blank.html")
            ) as driver:
                assert len(process.browser.contexts) == len(before) + 1
                assert driver.state()["tabs"][0]["url"].startswith(env.main_origin)
                # Past the driver's own URL check: the page itself asks for a forbidden origin, and only the
                # context's guard stands in the way.
                page = process.browser.contexts[-1].pages[0]
                for origin in ("other", "main"):
                    page.evaluate(_FETCH, env.url("blank.html?probe=1", origin=origin))
                env.settle()
                assert env.requests("other") == [], "the guard let a request to a forbidden origin through"
                assert any("probe=1" in request.query for request in env.requests("main")), "nothing got through"
            # The browser's own contexts (a DevTools endpoint always has its default one) are left as they were.
            assert process.browser.contexts == before
            assert [len(context.pages) for context in before] == pages_before
        with launch(**{KINDS[kind]: endpoints[kind]}) as again:
            assert again.browser.is_connected(), "disconnecting stopped the remote browser"
    finally:
        tokens.close()


def test_the_async_driver_connects_too(endpoints: dict[str, str]) -> None:
    async def contexts_seen() -> int:
        async with launch_async(cdp_endpoint=endpoints["cdp"]) as process:
            return len(process.browser.contexts)

    assert asyncio.run(contexts_seen()) == 1


@contextmanager
def _environment_on(
    kind: str, variable: str, tmp_path: Path, fixture_server: FixtureServer, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[str, Environment, SharedResources]]:
    """A check environment whose reference factories connect to a browser ``serve`` started (its endpoint in
    ``variable``); the browser and the check's session end with the block."""
    endpoint = serve.start(kind, tmp_path)
    monkeypatch.setenv(variable, endpoint)
    shared = SharedResources()
    tokens = fixture_server.session()
    try:
        yield endpoint, Environment(fixture_server, next(tokens), shared=shared), shared
    finally:
        serve.stop(kind, tmp_path)
        tokens.close()


def test_a_browser_that_goes_away_fails_the_factory_naming_the_endpoint(
    tmp_path: Path, fixture_server: FixtureServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    served = _environment_on("cdp", CDP_ENDPOINT_VARIABLE, tmp_path, fixture_server, monkeypatch)
    with served as (endpoint, env, shared):
        try:
            first = sync_factory(env)
            driver = next(first)
            assert driver.state()["tabs"]
            first.close()
            serve.stop("cdp", tmp_path)  # the browser dies between two checks
            second = sync_factory(env)
            with pytest.raises(RemoteBrowserError, match="lost the connection to the DevTools endpoint at") as raised:
                next(second)
            assert _without_secret(endpoint) in str(raised.value) and CDP_ENDPOINT_VARIABLE in str(raised.value)
            assert urlsplit(endpoint).path not in str(raised.value), "the error showed the endpoint's token"
        finally:
            shared.close_all(lambda close: close())


# ----- the sandbox setting a containerised browser needs --------------------------------------------------------


@pytest.mark.parametrize(
    ("setting", "expected"), [("", os.geteuid() != 0), ("auto", os.geteuid() != 0), ("off", False), ("on", True)]
)
def test_the_sandbox_variable_chooses_the_sandbox(
    setting: str, expected: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SANDBOX_VARIABLE, setting)
    assert launch_options("/nonexistent")["chromium_sandbox"] is expected


def test_an_unknown_sandbox_setting_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SANDBOX_VARIABLE, "no")
    with pytest.raises(LaunchError, match=f"{SANDBOX_VARIABLE} must be auto, on or off, not 'no'"):
        launch_options("/nonexistent")


def _certify(out: Path, endpoint: dict[str, str], *pytest_arguments: str) -> subprocess.CompletedProcess[str]:
    """``driverkit certify --out OUT -- -q ARGUMENTS`` with exactly the endpoint variables in ``endpoint`` set (an
    endpoint variable of the outer environment would otherwise choose the browser)."""
    environment = {**os.environ, **endpoint}
    for variable in {CDP_ENDPOINT_VARIABLE, WS_ENDPOINT_VARIABLE} - endpoint.keys():
        environment.pop(variable, None)
    command = [sys.executable, "-m", "conformance.cli", "certify", "--out", str(out), "--", "-q", *pytest_arguments]
    return subprocess.run(command, env=environment, capture_output=True, text=True, timeout=600, check=False)


def test_certification_reports_an_unreachable_endpoint_as_the_factorys_failure(tmp_path: Path) -> None:
    endpoint = f"ws://127.0.0.1:{_closed_port()}/"
    run = _certify(tmp_path, {WS_ENDPOINT_VARIABLE: endpoint, CONNECT_TIMEOUT_VARIABLE: "5"}, "-k", "check_tabs")
    # The kit probes the factory before any check runs: a factory that cannot give a driver is a usage error.
    output = run.stdout + run.stderr
    assert run.returncode == 4, output[-2000:]
    assert "the driver factory raised RemoteBrowserError: could not connect to the Playwright server at " in output
    assert f"{endpoint} (from {WS_ENDPOINT_VARIABLE}): tried Playwright connect with a 5 s deadline" in output


# ----- the start/stop helper -------------------------------------------------------------------------------------


def test_the_helper_refuses_a_second_browser_of_a_kind_and_stops_nothing_it_did_not_record(tmp_path: Path) -> None:
    # A live process whose command line is the cdp browser's keeper: the record still describes a running browser.
    # Its first line says it runs: until the child has exec'd, /proc shows the parent's command line (CI once saw
    # that).
    stand_in = subprocess.Popen(
        [sys.executable, "-c", "import time; print('up', flush=True); time.sleep(60)", *_KEEPER_COMMAND_LINE],
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        assert stand_in.stdout is not None and stand_in.stdout.readline() == b"up\n"
        (tmp_path / "cdp.pid").write_text(str(stand_in.pid))
        with pytest.raises(serve.ServeError, match=rf"already running from .* \(pid {stand_in.pid}\)"):
            serve.start("cdp", tmp_path)
        assert stand_in.poll() is None
    finally:
        stand_in.kill()
        stand_in.wait()
        if stand_in.stdout is not None:
            stand_in.stdout.close()
        serve.stop("cdp", tmp_path)  # a start that wrongly went ahead must not leave its browser running
    assert serve.stop("playwright-server", tmp_path) is False
    (tmp_path / "cdp.pid").write_text(str(os.getpid()))  # a live process that is not a browser: not signalled
    assert serve.stop("cdp", tmp_path) is True
    assert not (tmp_path / "cdp.pid").exists()
    (tmp_path / "cdp.pid").write_text("not a pid")
    with pytest.raises(serve.ServeError, match="does not hold a process ID"):
        serve.stop("cdp", tmp_path)


def test_a_record_left_by_a_killed_helper_does_not_block_the_next_start(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # CI once failed here: a run killed before its stop left cdp.pid behind in the shared default folder, and the
    # next run's start refused although that browser was long gone. Neither a dead PID nor a reused one (this test
    # process: alive, not a browser) may block a start, and neither is ever signalled.
    for pid in (_a_pid_that_has_ended(), os.getpid()):
        (tmp_path / "cdp.pid").write_text(str(pid))
        endpoint = serve.start("cdp", tmp_path)
        try:
            assert endpoint.startswith("http://127.0.0.1:") and len(urlsplit(endpoint).path) > 40
            assert f"named pid {pid}, which is no longer the cdp browser; cleared" in capfd.readouterr().err
        finally:
            assert serve.stop("cdp", tmp_path) is True
        assert not (tmp_path / "cdp.pid").exists()


def _a_pid_that_has_ended() -> int:
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    return ended.pid


def test_the_async_factory_also_names_an_endpoint_that_went_away(
    tmp_path: Path, fixture_server: FixtureServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def scenario(env: Environment, shared: SharedResources) -> str:
        first = async_factory(env)
        driver = await anext(first)
        assert (await driver.state())["tabs"]
        await first.aclose()
        serve.stop("playwright-server", tmp_path)
        try:
            await anext(async_factory(env))
        except RemoteBrowserError as error:
            return str(error)
        finally:
            closing: list[Any] = []
            shared.close_all(lambda closer: closing.append(closer()))
            for pending in closing:
                with contextlib.suppress(Exception):
                    await pending
        return "no error"

    served = _environment_on("playwright-server", WS_ENDPOINT_VARIABLE, tmp_path, fixture_server, monkeypatch)
    with served as (endpoint, env, shared):
        message = asyncio.run(scenario(env, shared))
    assert message.startswith(f"lost the connection to the Playwright server at {_without_secret(endpoint)}")
    assert urlsplit(endpoint).path not in message, "the error showed the endpoint's token"


# ----- a browser elsewhere: where the guard listens, and the route on the certificate -------------------------


def test_the_guard_host_is_loopback_unless_the_variable_names_an_ipv4_address() -> None:
    assert guard_host({}) == "127.0.0.1"
    assert guard_host({GUARD_HOST_VARIABLE: " 172.18.0.1 "}) == "172.18.0.1"
    for bad in ("host.docker.internal", "0.0.0.0", "fd00::1"):
        with pytest.raises(RemoteBrowserError, match=f"{GUARD_HOST_VARIABLE} must be an IPv4 address .* not '{bad}'"):
            guard_host({GUARD_HOST_VARIABLE: bad})


def test_the_guard_listens_where_it_is_told() -> None:
    guard = NetworkGuard(OriginSet(["http://127.0.0.2:9"]), "127.0.0.2")
    try:
        assert guard.proxy_settings()["server"].startswith("http://127.0.0.2:")
    finally:
        guard.close()


def test_the_route_names_the_endpoint_without_its_secrets() -> None:
    assert route(None) == "launched by the driver"
    remote = remote_browser(environ={CDP_ENDPOINT_VARIABLE: "http://user:pw@10.0.0.5:9222/x?token=secret"})
    assert route(remote) == (
        f"the DevTools endpoint at http://10.0.0.5:9222/...?..., with connect_over_cdp (from {CDP_ENDPOINT_VARIABLE})"
    )


def test_the_reference_driver_certifies_over_the_devtools_endpoint_of_a_desktop_container(tmp_path: Path) -> None:
    desktop_image_or_skip()
    state = tmp_path / "state"
    endpoint = serve.start("desktop-cdp", state)
    try:
        container = (state / "desktop-cdp.container").read_text("utf-8")
        host = serve.host("desktop-cdp", state)
        assert endpoint.startswith("http://") and not endpoint.startswith("http://127.")
        assert len(urlsplit(endpoint).path) > 40, "the endpoint carries no token"
        run = _certify(
            tmp_path / "certificate",
            {CDP_ENDPOINT_VARIABLE: endpoint, GUARD_HOST_VARIABLE: host},
            f"--fixture-host={host}",
            "-k",
            "test_state_reports_the_page_shown or check_network",
        )
        output = (run.stdout + run.stderr)[-3000:]
        assert run.returncode == 0, output
        certificate = dict(load_certificate(tmp_path / "certificate" / "certificate.json"))
        assert certificate["summary"]["failed"] == 0 and certificate["summary"]["passed"] > 0, output
        profile = certificate["subjects"][0]["profile"]
        assert profile["browser route"].startswith(f"the DevTools endpoint at {_without_secret(endpoint)}")
        assert urlsplit(endpoint).path not in (tmp_path / "certificate" / "certificate.json").read_text("utf-8")
        assert profile["fixture host"] == host
    finally:
        serve.stop("desktop-cdp", state)
    with pytest.raises(serve.ServeError, match="No such"):
        serve._docker("inspect", container)
    with pytest.raises(serve.ServeError, match=r"not found|No such"):
        serve._docker("network", "inspect", serve.DESKTOP_NETWORK)


def test_the_desktop_helper_removes_only_its_own_container(tmp_path: Path) -> None:
    (tmp_path / "desktop-cdp.container").write_text("no-such-container-of-ours", "utf-8")
    with pytest.raises(serve.ServeError, match="already recorded"):
        serve.start("desktop-cdp", tmp_path)
    with pytest.raises(serve.ServeError):
        serve.stop("desktop-cdp", tmp_path)
