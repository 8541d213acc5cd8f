"""The layout's promises, read from the source: no import circle between the project's files,
`games` never imports `bots` or `tour`, and the rules engine imports nothing but itself and the
standard library. Every import counts, including those inside functions and under
TYPE_CHECKING: a circle hidden in a function is still a circle."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("batak_api", "games", "bots", "tour", "loadtest", "tests")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    modules = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" not in path.parts:
                modules[module_name(path)] = path
    modules["manage"] = ROOT / "manage.py"
    return modules


def imported_names(path: Path, module: str) -> Iterator[str]:
    """Every dotted name ``module`` imports: ``from a import b`` yields ``a.b`` and ``a``."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = module.split(".")
                anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def import_graph() -> dict[str, set[str]]:
    """Each project module's imports of other project modules (the deepest module a name
    refers to: ``from games import engine`` is ``games.engine``, ``from games.engine import
    Deal`` is ``games.engine``)."""
    modules = project_modules()
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        edges = set()
        for name in imported_names(path, module):
            if name in modules and name != module:
                edges.add(name)
        # `from a import b` where b is a module names b, not a as well.
        graph[module] = {
            name for name in edges if not any(other.startswith(name + ".") for other in edges)
        }
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def in_package(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_no_import_circle_between_files():
    assert circles(import_graph()) == []


def test_the_circle_check_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_games_imports_neither_bots_nor_tour():
    wrong = {
        (module, target)
        for module, targets in import_graph().items()
        if in_package(module, "games")
        for target in targets
        if in_package(target, "bots") or in_package(target, "tour")
    }
    assert wrong == set()


def test_the_engine_imports_only_itself_and_the_standard_library():
    modules = project_modules()
    outside = set()
    for module, path in modules.items():
        if not in_package(module, "games.engine"):
            continue
        for name in imported_names(path, module):
            top = name.split(".")[0]
            if not (in_package(name, "games.engine") or top in sys.stdlib_module_names
                    or name == "games"):
                outside.add((module, name))
    assert outside == set()
