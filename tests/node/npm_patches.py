"""Certifying the Node SDK in a child run, and planting one defect in a copy of npm ``openai`` to see it caught.

The Node counterpart of tests/test_sdk_findings.py: a :class:`NpmPatch` is one textual defect in a copy of the
installed package (selected with ``DRIVERKIT_NODE_OPENAI``); the check that covers the behaviour must then fail
exactly the patch's clause, and an unpatched copy must pass the same checks. The patches are data, a
:class:`Catalogue` per family of clauses (tests/node/npm_patch_catalogues.py), which
tests/node/test_node_sdk_patches.py runs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.certificate_format import load as load_certificate

ROOT = Path(__file__).resolve().parents[2]
INSTALLED = ROOT / "node_modules" / "openai"

# The modules of the npm package that patches edit, named once for every catalogue.
BROWSER_MODULE = "helpers/browser.mjs"
COMPUTER_MODULE = "helpers/computer.mjs"
TOOL_RUNNER_MODULE = "helpers/responses-tool-runner.mjs"
DECISIONS_MODULE = "helpers/decisions-tool-runner.mjs"
DIAGNOSTICS_MODULE = "internal/runner-diagnostics.mjs"

# The folders of the checks that catch them.
RUNNER_CHECKS = "conformance/contracts/runner"
TOOLSET_CHECKS = "conformance/contracts/toolset"


def certify(tmp_path: Path, *selection: str, openai: Path | None = None) -> dict[str, Any]:
    """Run ``pytest --node-sdk`` on ``selection`` in a fresh interpreter; the certificate it wrote."""
    out = tmp_path / "certificate"
    environment = {**os.environ}
    environment.pop("DRIVERKIT_NODE_OPENAI", None)
    if openai is not None:
        environment["DRIVERKIT_NODE_OPENAI"] = str(openai)
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", "-q", "--node-sdk"]
    done = subprocess.run(
        [*command, "--certificate", str(out), *selection],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert (out / "certificate.json").is_file(), done.stdout[-3000:] + done.stderr[-3000:]
    certificate: dict[str, Any] = dict(load_certificate(out / "certificate.json"))
    certificate["exit"] = done.returncode
    return certificate


def statuses(certificate: dict[str, Any]) -> dict[str, str]:
    return {clause["id"]: clause["status"] for clause in certificate["clauses"]}


def failed(certificate: dict[str, Any]) -> set[str]:
    return {clause for clause, status in statuses(certificate).items() if status == "failed"}


def copy_installed(destination: Path) -> Path:
    """A copy of the installed npm openai at ``destination`` (the tests' module-scoped ``pristine`` fixture)."""
    shutil.copytree(INSTALLED, destination, symlinks=True)
    return destination


@dataclass(frozen=True)
class NpmPatch:
    """Edits to one file of npm openai that plant one defect, the check that covers it and the clause it breaks.

    Each edit's text must occur exactly once, so a patch point that moved in a new npm version is an error, not a
    patch that silently changes nothing; ``everywhere`` allows more, for a defect that needs the same edit in each
    place the package tests the same thing.
    """

    file: str
    edits: tuple[tuple[str, str], ...]
    check: str
    clause: str
    everywhere: bool = False

    @classmethod
    def one(cls, file: str, old: str, new: str, check: str, clause: str, *, everywhere: bool = False) -> NpmPatch:
        return cls(file, ((old, new),), check, clause, everywhere)

    def applied(self, pristine: Path, tmp_path: Path) -> Path:
        """A copy of ``pristine`` with this defect in it."""
        folder = tmp_path / "openai"
        shutil.copytree(pristine, folder, symlinks=True)
        target = folder / self.file
        text = target.read_text("utf-8")
        for old, new in self.edits:
            found = text.count(old)
            assert found >= 1 if self.everywhere else found == 1, f"the patch point moved in {self.file}: {old!r}"
            text = text.replace(old, new)
        target.write_text(text, "utf-8")
        return folder


def assert_fails_exactly_its_clause(patch: NpmPatch, pristine: Path, tmp_path: Path) -> None:
    certificate = certify(tmp_path, patch.check, openai=patch.applied(pristine, tmp_path))
    assert failed(certificate) == {patch.clause}, statuses(certificate)
    assert certificate["exit"] != 0


@dataclass(frozen=True)
class Catalogue:
    """The patches of one family of clauses, and what their unpatched control certifies besides the patches' checks:
    ``more_checks`` to run with them and ``more_clauses`` that must pass too."""

    patches: Mapping[str, NpmPatch]
    more_checks: tuple[str, ...] = ()
    more_clauses: tuple[str, ...] = ()


def assert_unpatched_passes(catalogue: Catalogue, pristine: Path, tmp_path: Path) -> None:
    """Certify the unpatched copy on every patch's check (and the catalogue's ``more_checks``): nothing fails, and
    each patch's clause (and each of ``more_clauses``) passes, so each patched run's failure is the patch's doing."""
    patches = catalogue.patches.values()
    checks = sorted({patch.check for patch in patches} | set(catalogue.more_checks))
    certificate = certify(tmp_path, *checks, openai=pristine)
    assert not failed(certificate), statuses(certificate)
    assert certificate["exit"] == 0
    checked = statuses(certificate)
    for clause in {patch.clause for patch in patches} | set(catalogue.more_clauses):
        assert checked[clause] == "passed", (clause, checked[clause])
