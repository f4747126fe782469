"""Dependencies point one way (DESIGN.md): engine <- league <- tournaments, and no module imports itself back.

The graph is read from the source with ``ast``, so an import hidden inside a function counts as
much as one at the top: it only postpones the cycle to the first call. Imports under
``if TYPE_CHECKING:`` are left out, since they never run. An edge goes to the module an import
names (``from a.b import c`` is ``a.b.c`` when that is a module, else ``a.b``); the parent
packages Python also runs on the way are not edges, or every package with an ``__init__`` that
imports its submodules would count as a cycle. The engine's own purity (no Django, no service
code) is tests/engine/test_purity.py.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "league", "tournaments", "config")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> dict[str, Path]:
    return {
        _module_name(path): path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if "migrations" not in path.parts
    }


def _is_type_checking_block(node: ast.AST) -> bool:
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node, at any depth, except the bodies of ``if TYPE_CHECKING:`` (their ``else`` does run)."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        yield node
        if _is_type_checking_block(node):
            assert isinstance(node, ast.If)
            stack.extend(node.orelse)
        else:
            stack.extend(ast.iter_child_nodes(node))


def _imported(name: str, path: Path, modules: Mapping[str, Path]) -> set[str]:
    """The project modules that the module ``name`` (at ``path``) imports, at any depth of its code."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in _runtime_nodes(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in modules else base)
    return {target for target in found if target in modules and target != name}


def import_graph() -> dict[str, set[str]]:
    modules = _sources()
    return {name: _imported(name, path, modules) for name, path in modules.items()}


def strongly_connected(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """Tarjan's components: each lists modules that all reach one another through imports (a cycle if two or more).

    Iterative, so a deep import chain cannot hit Python's recursion limit.
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component: list[str] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    components.append(sorted(component))
    return components


def test_no_import_cycles_between_project_modules_even_inside_functions() -> None:
    cycles = [component for component in strongly_connected(import_graph()) if len(component) > 1]
    assert cycles == []


def test_the_cycle_finder_sees_a_cycle_through_three_modules() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert [c for c in strongly_connected(graph) if len(c) > 1] == [["a", "b", "c"]]


def test_league_imports_nothing_from_tournaments() -> None:
    graph = import_graph()
    offenders = sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        if module.split(".")[0] == "league"
        for target in targets
        if target.split(".")[0] == "tournaments"
    )
    assert offenders == []


def test_services_never_import_task_modules() -> None:
    """Services enqueue by task name (config/background.py); only tasks, beat and the app know the task modules."""
    graph = import_graph()
    offenders = sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        for target in targets
        if target.endswith(".tasks") and module.split(".")[0] in ("league", "tournaments")
    )
    assert offenders == []


#: Where a request from the site or the API is answered: none of it may make someone a member without their say.
REQUEST_PACKAGES = ("league.api", "tournaments.api", "tournaments.web", "config")


def test_no_api_or_page_enrols_anyone_directly() -> None:
    """``club_add_member`` makes a membership without asking the person: for fixtures, superusers and the accounts
    an organiser makes in the admin. An API view or web page that called it would let organisers enrol people
    again (issue 21, finding 9): they invite, and the person accepts (league.personal_invitations)."""
    offenders = []
    for name, path in _sources().items():
        if not name.startswith(REQUEST_PACKAGES):
            continue
        tree = ast.parse(path.read_text(), str(path))
        for node in _runtime_nodes(tree):
            named = isinstance(node, ast.Name) and node.id == "club_add_member"
            attribute = isinstance(node, ast.Attribute) and node.attr == "club_add_member"
            imported = isinstance(node, ast.ImportFrom) and any(a.name == "club_add_member" for a in node.names)
            if named or attribute or imported:
                offenders.append(f"{name}:{getattr(node, 'lineno', '?')}")
    assert sorted(set(offenders)) == []
