"""The kit stands on its own: nothing in ``conformance`` imports the reference drivers it certifies.

The reference drivers, desktops' users and examples depend on the kit, never the reverse, so an installed kit
certifies a third-party driver without loading any reference code. A string naming a reference factory (the
default ``--driver`` of ``driverkit certify``) is not an import and is allowed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import conformance

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser, pytest.mark.desktop, pytest.mark.child_run]

KIT = Path(conformance.__file__).resolve().parent


def _imported_modules(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module" and node.args:
            argument = node.args[0]
            if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                found.append((node.lineno, argument.value))
    return found


def reference_imports(root: Path) -> list[str]:
    """Every ``file:line module`` under ``root`` that imports ``reference`` or one of its submodules."""
    return [
        f"{path.relative_to(root.parent)}:{line} {module}"
        for path in sorted(root.rglob("*.py"))
        for line, module in _imported_modules(path)
        if module == "reference" or module.startswith("reference.")
    ]


def test_the_kit_imports_nothing_from_reference() -> None:
    assert reference_imports(KIT) == []


def test_the_guard_sees_every_form_of_import(tmp_path: Path) -> None:
    package = tmp_path / "kit"
    package.mkdir()
    (package / "plain.py").write_text("import reference.browser\n")
    (package / "nested.py").write_text("def f():\n    from reference.desktop import LocalDesktop\n")
    (package / "dynamic.py").write_text("import importlib\nimportlib.import_module('reference.computer')\n")
    (package / "string.py").write_text("DEFAULT = 'reference.browser:sync_factory'\n")
    assert reference_imports(package) == [
        "kit/dynamic.py:2 reference.computer",
        "kit/nested.py:2 reference.desktop",
        "kit/plain.py:1 reference.browser",
    ]
