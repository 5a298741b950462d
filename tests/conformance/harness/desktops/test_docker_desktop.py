"""The Docker desktop: how its container is locked down (read back through the Docker SDK) and its cleanup.

Skipped when no Docker engine answers (start one with containers/start-dockerd.sh).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from conformance.certificate_format import load as load_certificate
from conformance.harness.desktops import DesktopSettings, DesktopStartError, DockerDesktop
from conformance.harness.desktops.container_owner import LABEL, ContainerOwner, sweep
from conformance.harness.desktops.displays import lock_path, socket_path
from conformance.harness.desktops.docker_desktop import DEFAULT_IMAGE
from conformance.harness.process_lifetime import process_started
from reference.computer import XvfbComputerDriver
from tests.desktops import PAGES

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser, pytest.mark.desktop, pytest.mark.container, pytest.mark.child_run]

docker = pytest.importorskip("docker")
REPOSITORY = Path(__file__).resolve().parents[4]


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


def test_the_container_is_named_and_labelled_after_its_run_worker_and_owner(
    running: tuple[DockerDesktop, Any],
) -> None:
    desktop, container = running
    labels = container.labels
    assert labels[LABEL] == "1"
    assert labels[f"{LABEL}.owner-pid"] == str(os.getpid())
    assert labels[f"{LABEL}.owner-started"] == process_started(os.getpid())
    assert labels[f"{LABEL}.worker"] == os.environ.get("PYTEST_XDIST_WORKER", "main")
    assert container.name == desktop.owner.container_name(int(desktop.display[1:]))
    assert container.name.startswith("kit-desktop-") and container.name.endswith(desktop.display.replace(":", "-"))


def test_the_sweep_removes_only_containers_whose_owner_on_this_host_is_gone() -> None:
    client = _engine()
    gone = subprocess.Popen(["true"])  # a process that has certainly ended: its PID names no live owner
    gone.wait()
    me = ContainerOwner.current()
    owners = {
        "gone": replace(me, pid=gone.pid, started="1"),
        "reused-pid": replace(me, started="0"),  # this PID, but another process's start time
        "alive": me,
        "other-host": replace(me, host=f"not-{me.host}", pid=gone.pid),
    }
    created = {
        case: client.containers.create(DEFAULT_IMAGE, command=["true"], labels=owner.labels())
        for case, owner in owners.items()
    }
    try:
        removed = set(sweep(client))
        assert removed >= {created["gone"].name, created["reused-pid"].name}
        left = {container.id for container in client.containers.list(all=True, filters={"label": LABEL})}
        assert created["alive"].id in left and created["other-host"].id in left
        assert created["gone"].id not in left and created["reused-pid"].id not in left
    finally:
        for container in created.values():
            with contextlib.suppress(docker.errors.NotFound):
                container.remove(force=True)
        client.close()


def test_two_workers_certify_the_computer_driver_on_two_containers_and_leave_none(tmp_path: Path) -> None:
    client = _engine()
    run_id = uuid.uuid4().hex
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--computer-driver=reference.computer:sync_factory",
        "--desktop=docker",
        "-n",
        "2",
        "--dist=loadgroup",
        f"--testrunuid={run_id}",
        f"--certificate={tmp_path / 'certificate'}",
        "-q",
    ]
    environment = {name: value for name, value in os.environ.items() if not name.startswith("PYTEST_")}
    environment["PYTHONPATH"] = str(REPOSITORY)
    seen: dict[str, str] = {}  # container name -> worker
    most_at_once = 0
    ours = {"label": f"{LABEL}.run={run_id}"}
    with subprocess.Popen(
        command, cwd=tmp_path, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as child:
        deadline = time.monotonic() + 900
        while child.poll() is None:
            assert time.monotonic() < deadline, "the two-worker run did not end within 15 minutes"
            running_now = client.containers.list(filters=ours)
            most_at_once = max(most_at_once, len(running_now))
            seen.update({container.name: container.labels[f"{LABEL}.worker"] for container in running_now})
            time.sleep(0.5)
        output = child.stdout.read() if child.stdout else ""
    tail = "\n".join(output.splitlines()[-25:])
    assert most_at_once == 2, (seen, tail)
    assert sorted(seen.values()) == ["gw0", "gw1"], (seen, tail)
    assert client.containers.list(all=True, filters=ours) == [], "a desktop container outlived the run"
    certificate = dict(load_certificate(tmp_path / "certificate" / "certificate.json"))
    assert certificate["verdict"] == "conforms", tail
    client.close()
