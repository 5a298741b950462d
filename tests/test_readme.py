"""The README's examples stay true: every Python block compiles and its kit imports resolve, every driverkit
command it shows exists, and the two opening commands name scripts that are in the repository."""

from __future__ import annotations

import ast
import importlib
import re
import shlex
from pathlib import Path

import pytest

from conformance.cli import build_parser

README = Path(__file__).resolve().parents[1] / "README.md"
TEXT = README.read_text(encoding="utf-8")
BLOCKS = re.findall(r"```(\w+)\n(.*?)```", TEXT, flags=re.S)
PYTHON = [code for language, code in BLOCKS if language == "python"]
SHELL = [code for language, code in BLOCKS if language == "sh"]


@pytest.mark.parametrize("code", PYTHON, ids=[f"python-{i}" for i in range(len(PYTHON))])
def test_python_blocks_compile_and_import(code: str) -> None:
    tree = ast.parse(code)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.split(".")[0]
            in {
                "conformance",
                "reference",
                "openai",
            }
        ):
            module = importlib.import_module(node.module)
            for alias in node.names:
                assert hasattr(module, alias.name), f"{node.module} has no {alias.name}"


def driverkit_commands() -> list[list[str]]:
    commands = []
    for block in SHELL:
        for line in block.splitlines():
            line = line.split("#", 1)[0].strip()
            if "driverkit " in line:
                words = shlex.split(line[line.index("driverkit ") :])
                commands.append(words[1:])
    return commands


@pytest.mark.parametrize("arguments", driverkit_commands(), ids=lambda args: " ".join(args[:2]))
def test_driverkit_commands_parse(arguments: list[str]) -> None:
    parsed = build_parser().parse_args(arguments)
    assert callable(parsed.handler)


def test_opening_commands_exist() -> None:
    first_block = SHELL[0]
    for script in re.findall(r"\./(scripts/[\w.-]+)", first_block):
        assert (README.parent / script).is_file(), script
    assert "driverkit certify" in first_block and "scripts/test.sh" in first_block
