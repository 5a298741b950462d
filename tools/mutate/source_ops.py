"""Source operators: one edit of one place in a copy of the ``reference`` package, found by walking its AST.

Each operator is a rule over syntax (a call statement, an ``if`` condition, an integer constant, a dict literal...)
applied everywhere it fits in the driver's files; nothing here names a particular line. An edit replaces the
bytes of one node (``ast`` positions are UTF-8 offsets) and leaves every other byte of the file alone, so a
mutant differs from the reference in exactly one place and keeps its line numbers for tracebacks.

An edit whose result does not compile (a ``return`` with a value in an async generator, say) is *incompetent*:
it is reported, never certified. An edit that leaves the module's AST unchanged (swapping two equal values) is
not a variant at all and is dropped.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from tools.mutate.model import Edit, Target, Variant

REPOSITORY: Final = Path(__file__).resolve().parents[2]

# The code each certification exercises: the driver's own files and the policy, grant and flow modules they run.
SCOPES: Final[dict[Target, tuple[str, ...]]] = {
    "browser": ("reference/browser", "reference/policy.py", "reference/grants.py", "reference/flows.py"),
    "computer": ("reference/computer",),
}

_CALL_STATEMENT_OPERATORS: Final = ("drop-call", "repeat-call")
_BOUNDARY: Final[dict[type[ast.cmpop], str]] = {ast.Lt: "<=", ast.LtE: "<", ast.Gt: ">=", ast.GtE: ">"}


@dataclass(frozen=True)
class Incompetent:
    """An edit that does not compile (or, found by the runner, does not import): reported, not certified."""

    id: str
    reason: str


def scope_files(target: Target, root: Path = REPOSITORY) -> list[str]:
    """The repository-relative Python files a target's source variants come from, sorted."""
    found: set[str] = set()
    for entry in SCOPES[target]:
        path = root / entry
        candidates = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        found.update(candidate.relative_to(root).as_posix() for candidate in candidates)
    return sorted(found)


@dataclass(frozen=True)
class _Candidate:
    operator: str
    line: int
    column: int
    start: int
    end: int
    replacement: str
    lines: tuple[int, int]
    description: str


class _Source:
    """One file's bytes and the offset arithmetic between AST positions and those bytes."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self._line_starts = [0] + [index + 1 for index, byte in enumerate(data) if byte == 0x0A]

    def start(self, node: ast.AST) -> int:
        line, column = node.lineno, node.col_offset  # type: ignore[attr-defined]
        return int(self._line_starts[line - 1] + column)

    def end(self, node: ast.AST) -> int:
        end_line, end_column = node.end_lineno, node.end_col_offset  # type: ignore[attr-defined]
        return int(self._line_starts[end_line - 1] + end_column)

    def text(self, node: ast.AST) -> str:
        return self.data[self.start(node) : self.end(node)].decode("utf-8")

    def between(self, first: ast.AST, second: ast.AST) -> str:
        return self.data[self.end(first) : self.start(second)].decode("utf-8")


def condensed(text: str, limit: int = 70) -> str:
    """Source text on one line (runs of whitespace become one space), cut to ``limit`` characters."""
    flat = re.sub(r"\s+", " ", text).strip()
    flat = re.sub(r"([(\[{]) ", r"\1", flat)
    flat = re.sub(r",? ([)\]}])", r"\1", flat)
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _is_call_statement(node: ast.AST) -> bool:
    if not isinstance(node, ast.Expr):
        return False
    value = node.value
    if isinstance(value, (ast.Await, ast.Yield, ast.YieldFrom)):
        value = value.value  # type: ignore[assignment]
    return isinstance(value, ast.Call)


def _returned_constant(function: ast.FunctionDef | ast.AsyncFunctionDef, source: _Source) -> str | None:
    """The last ``return "text"`` of ``function`` itself (not of a nested function), as written."""
    found: ast.Return | None = None
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if (
            isinstance(node, ast.Return)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
            and (found is None or node.lineno > found.lineno)
        ):
            found = node
        pending.extend(ast.iter_child_nodes(node))
    return None if found is None or found.value is None else source.text(found.value)


class _Finder(ast.NodeVisitor):
    """Walks one module and collects every candidate edit, skipping type annotations and f-strings (whose inner
    positions Python 3.11 does not report reliably) and ``if TYPE_CHECKING`` blocks."""

    def __init__(self, source: _Source) -> None:
        self.source = source
        self.found: list[_Candidate] = []
        self._functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        self._statements: list[ast.stmt] = []

    # ----- traversal ------------------------------------------------------------------------------------------

    def visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.JoinedStr):
            return
        if isinstance(node, ast.stmt):
            self._statements.append(node)
            try:
                super().visit(node)
            finally:
                self._statements.pop()
            return
        super().visit(node)

    def _visit_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        # Annotations (argument, return) are types, not behaviour: only defaults, decorators and the body.
        for default in [*node.args.defaults, *(value for value in node.args.kw_defaults if value is not None)]:
            self.visit(default)
        for decorator in node.decorator_list:
            self.visit(decorator)
        self._functions.append(node)
        try:
            for statement in node.body:
                self.visit(statement)
        finally:
            self._functions.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = _visit_function

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)

    def visit_If(self, node: ast.If) -> None:
        if "TYPE_CHECKING" in self.source.text(node.test) or "__name__" in self.source.text(node.test):
            return
        self._conditional(node.test)
        self.generic_visit(node)

    def visit_IfExp(self, node: ast.IfExp) -> None:
        self._conditional(node.test)
        self.generic_visit(node)

    def visit_Expr(self, node: ast.Expr) -> None:
        if _is_call_statement(node):
            text = self.source.text(node)
            self._add("drop-call", node, "pass", node, f"drops `{condensed(text)}`")
            self._add("repeat-call", node, f"{text}; {text}", node, f"runs `{condensed(text)}` twice")
        self.generic_visit(node)

    def visit_Raise(self, node: ast.Raise) -> None:
        if node.exc is not None and self._functions:
            constant = _returned_constant(self._functions[-1], self.source)
            replacement = "return" if constant is None else f"return {constant}"
            text = self.source.text(node)
            self._add("raise-to-return", node, replacement, node, f"`{condensed(text)}` → `{replacement}`")
        self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        joiner = " and " if isinstance(node.op, ast.And) else " or "
        for index, dropped in enumerate(node.values):
            kept = [self.source.text(value) for position, value in enumerate(node.values) if position != index]
            replacement = f"({joiner.join(kept)})"
            self._add(
                "drop-operand",
                node,
                replacement,
                node,
                f"drops `{condensed(self.source.text(dropped), 50)}` from `{condensed(self.source.text(node))}`",
                column=dropped.col_offset,
            )
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, int) and not isinstance(node.value, bool):
            written = self.source.text(node)  # as written (0xFF, 30_000), so the description finds it in the file
            for operator, step in (("const+1", 1), ("const-1", -1)):
                self._add(operator, node, str(node.value + step), node, f"`{written}` → `{node.value + step}`", True)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        is_int = isinstance(node.value, ast.Constant) and isinstance(node.value.value, int)
        if isinstance(node.op, (ast.Add, ast.Sub)) and not is_int:
            # An integer step is already covered by const+1/const-1; this is for steps computed at run time.
            text = self.source.text(node.value)
            self._add("aug+1", node.value, f"({text}) + 1", node.value, f"`{condensed(text)}` → `({text}) + 1`", True)
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        if len(node.ops) == 1 and type(node.ops[0]) in _BOUNDARY:
            left, right = self.source.text(node.left), self.source.text(node.comparators[0])
            replacement = f"({left} {_BOUNDARY[type(node.ops[0])]} {right})"
            self._add("boundary", node, replacement, node, f"`{condensed(self.source.text(node))}` → `{replacement}`")
        self.generic_visit(node)

    def visit_Dict(self, node: ast.Dict) -> None:
        if all(key is not None for key in node.keys):
            for first, second in zip(node.values, node.values[1:], strict=False):
                if ast.dump(first) == ast.dump(second):
                    continue  # trading equal values changes nothing
                replacement = self.source.text(second) + self.source.between(first, second) + self.source.text(first)
                self._add_span(
                    "swap-dict",
                    first,
                    second,
                    replacement,
                    f"trades `{condensed(self.source.text(first), 30)}` and `{condensed(self.source.text(second), 30)}`"
                    f" in a dict",
                )
        self.generic_visit(node)

    # ----- candidates -------------------------------------------------------------------------------------------

    def _conditional(self, test: ast.expr) -> None:
        text = self.source.text(test)
        self._add("skip-if", test, "False", test, f"condition `{condensed(text)}` → `False`")
        self._add("negate-if", test, f"not ({text})", test, f"condition `{condensed(text)}` negated")

    def _context(self) -> str:
        statement = self._statements[-1] if self._statements else None
        if statement is None:
            return ""
        first_line = self.source.text(statement).splitlines()[0]
        return condensed(first_line, 60)

    def _add(
        self,
        operator: str,
        node: ast.AST,
        replacement: str,
        span: ast.AST,
        description: str,
        in_context: bool = False,
        column: int | None = None,
    ) -> None:
        self._add_span(operator, node, node, replacement, description, in_context, column, span)

    def _add_span(
        self,
        operator: str,
        first: ast.AST,
        last: ast.AST,
        replacement: str,
        description: str,
        in_context: bool = False,
        column: int | None = None,
        span: ast.AST | None = None,
    ) -> None:
        covered = span or first
        if in_context:
            description = f"{description} in `{self._context()}`"
        self.found.append(
            _Candidate(
                operator,
                first.lineno,  # type: ignore[attr-defined]
                first.col_offset if column is None else column,  # type: ignore[attr-defined]
                self.source.start(first),
                self.source.end(last),
                replacement,
                (covered.lineno, max(covered.end_lineno or 0, last.end_lineno or 0)),  # type: ignore[attr-defined]
                description,
            )
        )


def _candidates(path: str, data: bytes) -> list[_Candidate]:
    finder = _Finder(_Source(data))
    finder.visit(ast.parse(data, filename=path))
    return finder.found


def _ids(path: str, candidates: list[_Candidate]) -> Iterator[tuple[str, _Candidate]]:
    """Stable IDs: ``operator:path:line``, with ``:column`` when one line holds several of that operator."""
    per_line: dict[tuple[str, int], int] = {}
    for candidate in candidates:
        key = (candidate.operator, candidate.line)
        per_line[key] = per_line.get(key, 0) + 1
    for candidate in candidates:
        location = f"{path}:{candidate.line}"
        if per_line[(candidate.operator, candidate.line)] > 1:
            location += f":{candidate.column}"
        yield f"{candidate.operator}:{location}", candidate


def _same_expression(before: str, after: str) -> bool:
    """Whether two expression texts are the same code (swapping two equal values, say); False for anything that
    is not an expression, since the statement operators never reproduce their statement."""
    try:
        return ast.dump(ast.parse(f"({before})", mode="eval")) == ast.dump(ast.parse(f"({after})", mode="eval"))
    except SyntaxError:
        return False


def generate_file(path: str, target: Target, root: Path = REPOSITORY) -> tuple[list[Variant], list[Incompetent]]:
    """Every source variant of one file, in file order, and the edits that do not compile.

    Each operator puts an expression where an expression was (parenthesised) or a simple statement where a simple
    statement was, so its edit parses by construction; only a ``return`` can land where Python refuses it (in a
    class body), so only raise-to-return edits are compiled here. Whatever else goes wrong shows when the runner
    imports the mutated module, which reports it as incompetent. Compiling every edit here would cost minutes.
    """
    data = (root / path).read_bytes()
    source = _Source(data)
    variants: list[Variant] = []
    incompetent: list[Incompetent] = []
    seen: set[str] = set()
    for variant_id, candidate in _ids(path, _candidates(path, data)):
        if variant_id in seen:
            continue  # two candidates at one line and column (nested nodes starting together): keep the outer
        seen.add(variant_id)
        edit = Edit(path, candidate.start, candidate.end, candidate.replacement)
        before = source.data[candidate.start : candidate.end].decode("utf-8")
        if _same_expression(before, candidate.replacement):
            continue
        if candidate.operator == "raise-to-return":
            try:
                compile(edit.apply(data), path, "exec", dont_inherit=True)
            except SyntaxError as error:
                incompetent.append(Incompetent(variant_id, f"does not compile: {error.msg}"))
                continue
        variants.append(Variant(variant_id, candidate.operator, target, candidate.description, edit, candidate.lines))
    return variants, incompetent


def generate(
    targets: tuple[Target, ...] = ("browser", "computer"), root: Path = REPOSITORY
) -> tuple[list[Variant], list[Incompetent]]:
    """Every source variant of the targets' files, in a fixed order (file, then position)."""
    variants: list[Variant] = []
    incompetent: list[Incompetent] = []
    for target in targets:
        for path in scope_files(target, root):
            found, failed = generate_file(path, target, root)
            variants += found
            incompetent += failed
    return variants, incompetent


def module_name(path: str) -> str:
    """The import name of a repository-relative module (``reference/browser/_tabs.py``: ``reference.browser._tabs``)."""
    dotted = path.removesuffix(".py").replace("/", ".")
    return dotted.removesuffix(".__init__")
