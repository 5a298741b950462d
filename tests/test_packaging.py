"""The kit finds its run-time files one way (conformance.resources), and states one supported openai floor."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from conformance import resources
from tools import docs_text

ROOT = Path(__file__).resolve().parents[1]


def test_resources_are_the_shipped_folders() -> None:
    assert (resources.pages() / "recorder.js").is_file()
    assert resources.pages("desktop", "input-recorder.html").is_file()
    assert any(resources.streams().glob("*.jsonl")) and resources.streams("examples").is_dir()
    assert resources.containers("desktop", "Dockerfile").is_file()


def test_no_module_finds_fixtures_or_containers_on_its_own() -> None:
    # Paths built from a module's own location break once the kit is installed: resources.py is the one place.
    own_location = re.compile(r"__file__.*(fixtures|containers)|(parents\[\d\]|parent\.parent).*(fixtures|containers)")
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in ("conformance", "reference")
        for path in (ROOT / folder).rglob("*.py")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if own_location.search(line) or "DRIVERKIT_FIXTURES" in line
    ]
    assert offenders == []


def test_the_oldest_openai_is_stated_once_everywhere() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    floor = next(dep for dep in project["dependencies"] if dep.startswith("openai"))
    oldest = re.search(r"^OLDEST_OPENAI=(\S+)$", (ROOT / ".ci" / "run").read_text(encoding="utf-8"), re.M)
    assert oldest is not None and floor == f"openai>={oldest.group(1)}"
    for page in (docs_text.README, "driver-authors"):
        install = docs_text.section(page, "Install into your project")
        assert f"openai {oldest.group(1)}" in install and f"Python {project['requires-python'][2:]}" in install, page
