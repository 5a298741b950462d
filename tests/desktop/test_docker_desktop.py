"""The Docker desktop: how its container is locked down (read back through the Docker SDK) and its cleanup.

Skipped when no Docker engine answers (start one with containers/start-dockerd.sh).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import pytest

from conformance.harness.desktops import DesktopSettings, DesktopStartError, DockerDesktop
from conformance.harness.desktops.displays import lock_path, socket_path
from reference.computer import XvfbComputerDriver

from .conftest import PAGES

docker = pytest.importorskip("docker")


def _our_locks() -> set[int]:
    """Display numbers this process holds a reservation for."""
    return {
        number
        for number in range(100, 1000)
        if lock_path(number).exists() and lock_path(number).read_text().strip() == str(os.getpid())
    }


def _engine() -> Any:
    try:
        client = docker.from_env()
        client.ping()
    except docker.errors.DockerException as error:
        pytest.skip(f"no Docker engine answers ({error}); run containers/start-dockerd.sh")
    return client


@pytest.fixture(scope="module")
def running() -> Iterator[tuple[DockerDesktop, Any]]:
    client = _engine()
    desktop = DockerDesktop(DesktopSettings(site_dir=PAGES, start_path="input-recorder.html"), client=client)
    with desktop:
        assert desktop.container is not None
        yield desktop, client.containers.get(desktop.container.id)
    client.close()


def test_container_runs_as_an_unprivileged_user(running: tuple[DockerDesktop, Any]) -> None:
    _, container = running
    assert container.attrs["Config"]["User"] == "1000:1000"
    top = container.top(ps_args="-o pid,uid,comm")
    uid_column = top["Titles"].index("UID")
    users = {row[uid_column] for row in top["Processes"]}
    # docker-init (the container's pid 1) runs as the container user too; nothing runs as root.
    assert users == {"1000"}, top["Processes"]


def test_container_has_no_network_and_no_capabilities(running: tuple[DockerDesktop, Any]) -> None:
    _, container = running
    host = container.attrs["HostConfig"]
    assert host["NetworkMode"] == "none"
    assert host["CapDrop"] == ["ALL"]
    assert not host.get("CapAdd")
    assert not host["Privileged"]
    assert "no-new-privileges" in host["SecurityOpt"]
    assert host["ReadonlyRootfs"] is True
    networks = container.attrs["NetworkSettings"]["Networks"]
    assert set(networks) == {"none"}
    # Only the loopback interface exists inside.
    interfaces = container.exec_run(["cat", "/proc/net/dev"], user="1000").output.decode()
    names = {line.split(":")[0].strip() for line in interfaces.splitlines()[2:]}
    assert names == {"lo"}


def test_the_host_drives_the_container_display(running: tuple[DockerDesktop, Any]) -> None:
    desktop, _ = running
    with XvfbComputerDriver(desktop.display) as driver:
        assert driver.screen_size == (1280, 800)
        assert driver.screenshot()["image_url"].startswith("data:image/png;base64,")
    # The page reports that it loaded through the page server inside the container; on a loaded machine
    # that can take a while after the browser window appears.
    deadline = time.monotonic() + 30
    while not any(event.get("type") == "ready" for event in desktop.read_events()):
        assert time.monotonic() < deadline, "the page inside the container never reported that it loaded"
        time.sleep(0.1)


def test_stopping_removes_the_container_socket_and_lock() -> None:
    client = _engine()
    desktop = DockerDesktop(DesktopSettings(width=640, height=480), client=client)
    with desktop:
        assert desktop.container is not None
        container_id = desktop.container.id
        number = int(desktop.display[1:])
        assert socket_path(number).exists()
    with pytest.raises(docker.errors.NotFound):
        client.containers.get(container_id)
    assert not socket_path(number).exists()
    assert not lock_path(number).exists()
    client.close()


def test_a_failed_start_is_a_clear_error_and_releases_the_display() -> None:
    client = _engine()
    # The imported base image has no command at all, so the engine refuses to create the container.
    desktop = DockerDesktop(
        DesktopSettings(width=640, height=480, startup_timeout=20),
        image="debian:bookworm-slim",
        client=client,
        build_if_missing=False,
    )
    before = {container.id for container in client.containers.list(all=True)}
    locks_before = _our_locks()
    with pytest.raises(DesktopStartError, match="No command specified"), desktop:
        pass
    assert {container.id for container in client.containers.list(all=True)} <= before
    assert desktop._reservation is None
    assert _our_locks() == locks_before
    client.close()
