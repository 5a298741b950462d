"""The fan-out recipe (containers/fanout): its shards pick every browser check module exactly once, and the merge
service merges every shard the workers write. (CI lints the compose file itself with ``docker-compose config -q``.)
"""

from __future__ import annotations

import re
import subprocess
from importlib import resources
from pathlib import Path

import pytest
from _pytest.mark.expression import Expression

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.container]

FANOUT = Path(__file__).resolve().parents[1] / "containers" / "fanout"


def _env_file(path: Path) -> dict[str, str]:
    values = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip()
    return values


def _check_modules() -> list[str]:
    package = resources.files("conformance.contracts.browser")
    return sorted(item.name for item in package.iterdir() if re.fullmatch(r"check_\w+\.py", item.name))


def test_every_browser_check_module_is_in_exactly_one_shard() -> None:
    shards = {path.stem: _env_file(path) for path in sorted((FANOUT / "shards").glob("*.env"))}
    assert len(shards) >= 2
    expressions = {name: Expression.compile(values["KIT_SHARD_SELECTION"]) for name, values in shards.items()}
    for module in _check_modules():
        # pytest's -k matches a name when it is a substring of one of the node's names (here the module's file).
        chosen = [
            name
            for name, expression in expressions.items()
            if expression.evaluate(lambda word, name=module: word in name)
        ]
        assert len(chosen) == 1, f"{module} is selected by {chosen or 'no shard'}"


def test_the_merge_takes_every_shard_the_workers_write() -> None:
    compose = (FANOUT / "compose.yaml").read_text()
    names = sorted(_env_file(path)["KIT_SHARD_NAME"] for path in (FANOUT / "shards").glob("*.env"))
    merged = re.search(r'command: \["/certificates/merged", (.*)\]', compose)
    assert merged is not None
    assert sorted(re.findall(r'"/certificates/([\w-]+)"', merged.group(1))) == names
    for name in names:
        assert f"env_file: shards/{name}.env" in compose


def test_every_container_script_parses() -> None:
    # The worker script first ran in a container long after it was written, and a quote in a ${VAR:?message}
    # broke it at once; bash -n finds that class of mistake without a container.
    scripts = sorted(FANOUT.parent.rglob("*.sh"))
    assert FANOUT / "worker.sh" in scripts
    for script in scripts:
        checked = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True, check=False)
        assert checked.returncode == 0, f"{script}: {checked.stderr}"
