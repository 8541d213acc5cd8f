"""The layout's promises, read from the source: no import circle between the project's files, and
every import runs down the layering of `MAY_IMPORT` (so `games` never imports `bots`, `tour` or
`platforms`, no app imports the project package `batak_api`, and the rules engine imports nothing
but itself and the standard library). Every import counts, including those inside functions and
under TYPE_CHECKING: a circle or a back-arrow hidden in a function is still one."""

from __future__ import annotations

import ast
import os
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINE = "games.engine"
ANYTHING = frozenset({"*"})

# The layering, as the one table of allowed arrows: each part of the project and the other parts
# it may import (its own modules it always may). Every package of the project has a row, and
# `games.engine` one of its own; manage.py is the part called `manage`. Read from the bottom:
MAY_IMPORT: dict[str, frozenset[str]] = {
    # The rules: nothing of the project (and only the standard library, see the last test).
    ENGINE: frozenset(),
    # What the apps run on (lanes, fair queues, Redis clients, traces, log context, windows):
    # nothing of theirs.
    "runtime": frozenset(),
    # Matches: models, services, API. It reaches the computer players only through the module
    # the COMPUTER_PLAYERS setting names (games/computer_players.py), and tells the partner
    # platforms of matches through its signals.
    "games": frozenset({"runtime", ENGINE}),
    # Ratings, seasons, leaderboards and players' records, written as a rated match finishes
    # (a handler of what follows a match's change: games/follow_ups.py).
    "ratings": frozenset({"runtime", "games", ENGINE}),
    # Deal sets: one deal played by many, each at a table of their own (made by `games`).
    "deal_sets": frozenset({"runtime", "games", ENGINE}),
    # Partner platforms: their keys, players and matches, and the webhooks they receive.
    "platforms": frozenset({"runtime", "games", ENGINE, "ratings"}),
    # The story mode: its tables and characters (a character's style is `games.bot_style`).
    "tour": frozenset({"runtime", "games", ENGINE}),
    # The computer players; their task looks a story character's style up in `tour.content`.
    "bots": frozenset({"runtime", "games", ENGINE, "tour"}),
    # The project's top: settings, URLs, Celery app and entry points import the apps; none of
    # them imports it back (the ids they log with are bound in `runtime.log_context`).
    "batak_api": frozenset({"runtime", "games", ENGINE, "platforms", "ratings", "tour", "bots",
                            "deal_sets"}),
    # The clients `scripts/contract` runs meet the service over HTTP only.
    "clients": frozenset(),
    "manage": frozenset({"batak_api"}),
    # The benchmarks and the tests may use anything.
    "loadtest": ANYTHING,
    "tests": ANYTHING,
}


def packages() -> set[str]:
    """The project's top-level packages, as found on disk."""
    return {path.parent.name for path in ROOT.glob("*/__init__.py")}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    """Every module of every package (migrations aside) and manage.py."""
    modules = {}
    for package in sorted(packages()):
        for folder, subfolders, files in os.walk(ROOT / package):
            subfolders[:] = [
                name for name in subfolders
                if name not in ("migrations", "node_modules", "__pycache__")
            ]
            for name in files:
                if name.endswith(".py"):
                    path = Path(folder) / name
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


class _StronglyConnected:
    """Tarjan's algorithm: the strongly connected groups of a graph, found in one pass."""

    def __init__(self, graph: dict[str, set[str]]) -> None:
        self.graph = graph
        self.index: dict[str, int] = {}
        self.low: dict[str, int] = {}
        self.stack: list[str] = []
        self.on_stack: set[str] = set()
        self.groups: list[list[str]] = []

    def visit(self, node: str) -> None:
        self.index[node] = self.low[node] = len(self.index)
        self.stack.append(node)
        self.on_stack.add(node)
        for target in self.graph.get(node, ()):
            if target not in self.index:
                self.visit(target)
                self.low[node] = min(self.low[node], self.low[target])
            elif target in self.on_stack:
                self.low[node] = min(self.low[node], self.index[target])
        if self.low[node] == self.index[node]:
            self.groups.append(self._pop_group(node))

    def _pop_group(self, root: str) -> list[str]:
        """The group ``root`` heads: the stack down to ``root``."""
        group = []
        while True:
            member = self.stack.pop()
            self.on_stack.discard(member)
            group.append(member)
            if member == root:
                return group


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module."""
    search = _StronglyConnected(graph)
    for node in sorted(graph):
        if node not in search.index:
            search.visit(node)
    return [sorted(group) for group in search.groups if len(group) > 1]


def in_package(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def part_of(module: str) -> str:
    """The row of `MAY_IMPORT` a module belongs to."""
    return ENGINE if in_package(module, ENGINE) else module.split(".")[0]


def back_arrows(graph: dict[str, set[str]]) -> list[str]:
    """Each import the layering does not allow, as ``module → target (part → part)``."""
    wrong = []
    for module, targets in sorted(graph.items()):
        source = part_of(module)
        allowed = MAY_IMPORT.get(source, frozenset())
        for target in sorted(targets):
            destination = part_of(target)
            if destination != source and allowed is not ANYTHING and destination not in allowed:
                wrong.append(f"{module} → {target} ({source} → {destination})")
    return wrong


def test_no_import_circle_between_files():
    assert circles(import_graph()) == []


def test_the_circle_check_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_every_package_has_its_place_in_the_layering():
    parts = packages() | {ENGINE, "manage"}
    assert not parts - set(MAY_IMPORT), (
        f"packages without a row in MAY_IMPORT: {', '.join(sorted(parts - set(MAY_IMPORT)))}"
    )
    assert not set(MAY_IMPORT) - parts, (
        f"rows of MAY_IMPORT for no package: {', '.join(sorted(set(MAY_IMPORT) - parts))}"
    )


def test_the_layering_has_no_circle():
    arrows = {part: set(targets) for part, targets in MAY_IMPORT.items() if targets is not ANYTHING}
    assert circles(arrows) == []


def test_every_import_follows_the_layering():
    wrong = back_arrows(import_graph())
    assert not wrong, "imports against the layering (MAY_IMPORT):\n" + "\n".join(wrong)


def test_the_layering_check_names_a_back_arrow():
    graph = {
        "games.services": {"games.models", "games.engine.deal", "bots.players"},
        "games.engine.deal": {"games.models"},
        "bots.tasks": {"batak_api.logs", "games.services"},
        "tests.test_a": {"bots.tasks", "loadtest.lobby"},
        "newapp.views": {"games.models"},
    }
    assert back_arrows(graph) == [
        "bots.tasks → batak_api.logs (bots → batak_api)",
        "games.engine.deal → games.models (games.engine → games)",
        "games.services → bots.players (games → bots)",
        "newapp.views → games.models (newapp → games)",
    ]


def test_the_engine_imports_only_itself_and_the_standard_library():
    modules = project_modules()
    outside = set()
    for module, path in modules.items():
        if not in_package(module, ENGINE):
            continue
        for name in imported_names(path, module):
            top = name.split(".")[0]
            if not (in_package(name, ENGINE) or top in sys.stdlib_module_names
                    or name == "games"):
                outside.add((module, name))
    assert outside == set()


# The settings that say which form the service runs in (embedded, or scaled out): only the
# runtime package (and the settings, which set them) reads them.
FORM_SETTINGS = frozenset({"CELERY_TASK_ALWAYS_EAGER", "IN_PROCESS_JOBS", "REDIS_URL"})
# Where the form may be asked; the tests and benchmarks set it, being what chooses it.
FORM_READERS = ("runtime", "batak_api.settings", "tests", "loadtest")


def form_reads(path: Path) -> list[int]:
    """The lines of ``path`` that name a setting of the form (as an attribute or a string)."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        named = (node.attr if isinstance(node, ast.Attribute)
                 else node.value if isinstance(node, ast.Constant) else None)
        if named in FORM_SETTINGS:
            lines.append(node.lineno)
    return lines


def test_only_the_runtime_asks_which_form_the_service_runs_in():
    found = [
        f"{module}:{line}"
        for module, path in sorted(project_modules().items())
        if not any(in_package(module, reader) for reader in FORM_READERS)
        for line in form_reads(path)
    ]
    assert found == []


def test_the_form_check_finds_a_read(tmp_path):
    source = tmp_path / "module.py"
    source.write_text("from django.conf import settings\n"
                      "x = settings.REDIS_URL\ny = getattr(settings, 'IN_PROCESS_JOBS')\n")
    assert form_reads(source) == [2, 3]
