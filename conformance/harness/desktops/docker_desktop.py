"""The desktop in a Docker container (image ``kit/desktop``, built by containers/build-desktop-image.sh).

The container runs as an unprivileged user with every capability dropped, no network, a read-only root file
system and ``no-new-privileges``. The host reaches its X server through the shared ``/tmp/.X11-unix``
directory: the host reserves the display number (see :mod:`.displays`), the container's Xvfb creates the socket,
and drivers on the host connect to ``:N`` as to any local display. With a site to serve, the page server runs
inside the container on its own loopback (the container has no other network) and appends events to a file in
a host directory mounted in.

Each container is named and labelled after the run, the xdist worker and the process that owns it
(:mod:`.container_owner`), so ``-n N`` gives every worker its own, and containers a crashed worker left behind
are swept away at the next desktop start.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Final

from conformance import resources

from .base import Desktop
from .container_owner import LABEL, ContainerOwner, remove_quietly, sweep
from .displays import DisplayReservation, ensure_socket_dir, reserve_display
from .settings import CONTAINER_SERVE_PORT, DesktopSettings
from .x11_wait import DesktopStartError, wait_for_display, wait_for_fullscreen_window

DEFAULT_IMAGE: Final = "kit/desktop:latest"
CONTAINER_UID: Final = 1000  # the image's `kit` user
BUILD_SCRIPT: Final = resources.containers("build-desktop-image.sh")
PAGE_SERVER: Final = Path(__file__).resolve().with_name("page_server.py")
CONTAINER_SITE_DIR: Final = "/srv/site"
CONTAINER_EVENTS_DIR: Final = "/var/kit/events"


class DockerDesktop(Desktop):
    """Runs ``image`` as the desktop; builds it first (with the kit's script) when the engine lacks it."""

    def __init__(
        self,
        settings: DesktopSettings | None = None,
        *,
        image: str = DEFAULT_IMAGE,
        client: Any | None = None,
        build_if_missing: bool = True,
    ) -> None:
        super().__init__(settings)
        self.image = image
        self.build_if_missing = build_if_missing
        self._client = client
        self._owns_client = client is None
        self._reservation: DisplayReservation | None = None
        self._events_dir: tempfile.TemporaryDirectory[str] | None = None
        self.container: Any | None = None
        self.owner = ContainerOwner.current()
        self._exit_hook: functools.partial[None] | None = None

    def _docker(self) -> Any:
        if self._client is None:
            import docker  # imported here so the local desktop works without the docker SDK

            try:
                self._client = docker.from_env()
                self._client.ping()
            except docker.errors.DockerException as error:
                raise DesktopStartError(
                    f"no Docker engine answers ({error}); start one with containers/start-dockerd.sh"
                ) from error
        return self._client

    def ensure_image(self) -> None:
        import docker

        try:
            self._docker().images.get(self.image)
            return
        except docker.errors.ImageNotFound:
            if not self.build_if_missing:
                raise DesktopStartError(f"image {self.image} is missing; run {BUILD_SCRIPT}") from None
        result = subprocess.run(
            ["bash", str(BUILD_SCRIPT)],
            env={**os.environ, "KIT_DESKTOP_IMAGE": self.image},
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            raise DesktopStartError(f"building {self.image} failed:\n{(result.stdout + result.stderr)[-3000:]}")

    def start(self) -> None:
        settings = self.settings
        deadline = time.monotonic() + settings.startup_timeout
        self.ensure_image()
        sweep(self._docker())
        ensure_socket_dir()
        self._reservation = reserve_display()
        number = self._reservation.number

        volumes: dict[str, dict[str, str]] = {
            "/tmp/.X11-unix": {"bind": "/tmp/.X11-unix", "mode": "rw"},
        }
        environment = {"KIT_DISPLAY": str(number), "KIT_SCREEN": settings.screen, "KIT_START_URL": settings.start_url}
        if settings.site_dir is not None:
            self._events_dir = tempfile.TemporaryDirectory(prefix="kit-desktop-events-")
            events_dir = Path(self._events_dir.name)
            # The container user appends to the event file, so it must own the directory it is in.
            os.chown(events_dir, CONTAINER_UID, CONTAINER_UID)
            self._events_path = events_dir / "events.jsonl"
            volumes[str(settings.site_dir.resolve())] = {"bind": CONTAINER_SITE_DIR, "mode": "ro"}
            volumes[str(events_dir)] = {"bind": CONTAINER_EVENTS_DIR, "mode": "rw"}
            volumes[str(PAGE_SERVER)] = {"bind": "/opt/kit/page_server.py", "mode": "ro"}
            environment["KIT_START_URL"] = f"http://127.0.0.1:{CONTAINER_SERVE_PORT}/{settings.start_path}"
            environment.update(
                KIT_SERVE_DIR=CONTAINER_SITE_DIR,
                KIT_EVENTS_FILE=f"{CONTAINER_EVENTS_DIR}/events.jsonl",
                KIT_SERVE_PORT=str(CONTAINER_SERVE_PORT),
            )
        self._page_url = environment["KIT_START_URL"]

        import docker

        try:
            # Created and started in two steps so that a container whose start fails is still ours to remove.
            self.container = self._create_container(environment, volumes, number)
            # Removed at interpreter exit if stop() never runs (a check run cut short); a killed process runs
            # neither, and the next sweep takes its container.
            self._exit_hook = functools.partial(remove_quietly, self._docker(), self.container.id)
            atexit.register(self._exit_hook)
            self.container.start()
        except docker.errors.APIError as error:
            raise DesktopStartError(f"starting a container from {self.image} failed: {error.explanation}") from error
        self._display = f":{number}"
        wait_for_display(self._display, deadline, self._container_failure)
        wait_for_fullscreen_window(self._display, settings.width, settings.height, deadline, self._container_failure)

    def _create_container(self, environment: dict[str, str], volumes: dict[str, dict[str, str]], number: int) -> Any:
        return self._docker().containers.create(
            self.image,
            name=self.owner.container_name(number),
            labels=self.owner.labels(),
            environment=environment,
            volumes=volumes,
            network_mode="none",
            user=f"{CONTAINER_UID}:{CONTAINER_UID}",
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            read_only=True,
            tmpfs={"/tmp": "rw,size=64m", "/home/kit": f"rw,size=512m,uid={CONTAINER_UID},gid={CONTAINER_UID}"},
            shm_size="256m",
            init=True,
            mem_limit="2g",
            pids_limit=512,
        )

    def _container_failure(self) -> str | None:
        assert self.container is not None
        self.container.reload()
        if self.container.status in ("created", "running"):
            return None
        logs = self.container.logs().decode(errors="replace")[-2000:]
        return f"desktop container {self.container.name} is {self.container.status}: {logs}"

    def stop(self) -> None:
        try:
            if self.container is not None:
                with contextlib.suppress(Exception):
                    self.container.stop(timeout=2)
                with contextlib.suppress(Exception):
                    self.container.remove(force=True)
                self.container = None
            if self._exit_hook is not None:
                atexit.unregister(self._exit_hook)
                self._exit_hook = None
        finally:
            if self._reservation is not None:
                # The container's Xvfb may have been killed before it removed its socket.
                self._reservation.release(remove_socket=True)
                self._reservation = None
            if self._events_dir is not None:
                self._events_dir.cleanup()
                self._events_dir = None
            if self._client is not None and self._owns_client:
                self._client.close()
                self._client = None
            self._display = None
            self._page_url = None
            self._events_path = None


__all__ = ["DEFAULT_IMAGE", "LABEL", "DockerDesktop"]
