"""A ``--driver`` factory for the published ``stagehand-openai-sdk`` driver, made the way its README uses it.

``pytest --driver=tests.published.stagehand:make_driver`` with the package importable (tests/published/install.py
puts it in a folder of its own: it is not one of the kit's dependencies). The factory does only what a driver
author following that README would do for one task: launch a local headless Chromium with the task's permitted
domains, the viewport and the opt-ins the check hints at, the file grants resolved by the caller's own code, and
open the start page with the driver's own ``navigate``. It changes nothing about how the driver behaves.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from conformance.harness.environment import Environment, FileGrant

# Debian's Chromium; the README's own default is a macOS Chrome path, which this machine does not have.
CHROMIUM = "/usr/bin/chromium"


def _hosts(origins: tuple[str, ...]) -> list[str]:
    # The driver's lists take hosts, not origins: a port cannot be named (its policy.py strips it).
    return sorted({urlsplit(origin).hostname or "" for origin in origins} - {""})


def _upload_options(grants: list[FileGrant], folder: Path) -> Any:
    from stagehand_openai_sdk import UploadOptions  # type: ignore[import-not-found]  # installed apart from the kit

    # The documents make the grant's owner (this caller code, not the driver) recheck expiry and
    # ownership and enforce each grant's size limit.
    made = time.monotonic()
    expiry = {grant.grant_id: made + grant.expires_in_s for grant in grants}
    limits = {grant.grant_id: grant.max_bytes for grant in grants}
    sizes = {grant.grant_id: len(grant.content) for grant in grants}
    paths: dict[str, str] = {}
    for grant in grants:
        path = folder / grant.grant_id / grant.file_name
        path.parent.mkdir(parents=True)
        path.write_bytes(grant.content)
        paths[grant.grant_id] = str(path)

    async def resolve(grant_id: str, tab_id: str | None) -> str | None:
        if grant_id not in paths or time.monotonic() >= expiry[grant_id] or limits[grant_id] < sizes[grant_id]:
            return None
        return paths[grant_id]

    return UploadOptions(roots=[str(folder)], resolve_grant=resolve)


def _download_options(grants: list[FileGrant], folder: Path) -> Any:
    from stagehand_openai_sdk import DownloadGrant, DownloadOptions

    limits = {grant.grant_id: grant.max_bytes for grant in grants}
    expiry = {grant.grant_id: time.monotonic() + grant.expires_in_s for grant in grants}

    async def resolve(grant_id: str, tab_id: str | None) -> Any:
        if grant_id not in limits or time.monotonic() >= expiry[grant_id]:
            return None
        limit = limits[grant_id]

        async def deliver(path: str, candidate: Any) -> None:
            shutil.copy(path, folder / Path(candidate.name).name)

        return DownloadGrant(accept=lambda candidate: candidate.bytes <= limit, deliver=deliver)

    return DownloadOptions(resolve_grant=resolve)


async def make_driver(env: Environment) -> AsyncIterator[Any]:
    from stagehand_openai_sdk import StagehandBrowserDriver

    hints = env.hints
    folder = Path(tempfile.mkdtemp(prefix="stagehand-grants-"))
    uploads = [grant for grant in hints.grants if grant.kind == "upload"]
    downloads = [grant for grant in hints.grants if grant.kind == "download"]
    options: dict[str, Any] = {
        "headless": True,
        "chrome_path": CHROMIUM,
        "allowed_domains": _hosts(env.allowed_origins),
        "viewport": tuple(hints.viewport),
        "observation": hints.observation,
        "target_bound_consent": hints.bind_targets,
        # Its create_browser_toolset turns diagnostics on when read_diagnostics is selected; the kit builds the
        # toolset itself, so the factory asks for them as that helper would.
        "diagnostics": "read_diagnostics" in hints.members,
    }
    if uploads:
        options["uploads"] = _upload_options(uploads, folder / "uploads")
    if downloads:
        (folder / "delivered").mkdir()
        options["downloads"] = _download_options(downloads, folder / "delivered")
    driver = await StagehandBrowserDriver.launch(**options)
    try:
        await driver.navigate({"url": env.start_url, "tab_id": None})
        yield driver
    finally:
        await driver.close()
        shutil.rmtree(folder, ignore_errors=True)
