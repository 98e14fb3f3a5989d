"""How the twin's modules depend on each other: one way only, and on nothing of gatehouse's own.

Every import counts, at module level, under TYPE_CHECKING or inside a function: a circle that only a
type checker sees, or that a late import hides, is still a circle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import console_twin

PACKAGE = Path(console_twin.__file__).parent
MODULES = {path.stem: path for path in PACKAGE.glob("*.py")}


def imported(path: Path) -> list[tuple[str, bool]]:
    """(dotted name, whether the import sits inside a function) for every import in the file."""
    found = []

    def walk(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inside = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            if isinstance(child, ast.Import):
                found.extend((alias.name, inside) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    base = "console_twin" + (f".{base}" if base else "")
                found.append((base, inside))
                found.extend((f"{base}.{alias.name}", inside) for alias in child.names)
            walk(child, inside)

    walk(ast.parse(path.read_text()), False)
    return found


def twin_module(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if parts[0] == "console_twin" and len(parts) > 1 and parts[1] in MODULES else None


def dependencies() -> dict[str, set[str]]:
    return {
        module: {dep for name, _ in imported(path) if (dep := twin_module(name)) and dep != module}
        for module, path in MODULES.items()
    }


def test_no_module_of_the_twin_imports_one_that_imports_it_back():
    graph = dependencies()
    circles = []

    def visit(module: str, trail: list[str]) -> None:
        for dep in sorted(graph[module]):
            if dep in trail:
                circles.append(trail[trail.index(dep) :] + [dep])
            else:
                visit(dep, trail + [dep])

    for module in sorted(graph):
        visit(module, [module])
    assert circles == []


def test_no_module_of_the_twin_is_imported_inside_a_function():
    late = [(module, name) for module, path in MODULES.items() for name, inside in imported(path) if inside]
    assert [(module, name) for module, name in late if twin_module(name)] == []


def test_the_twin_stands_alone():
    # It shares no code with the client (`sources`) nor the pipelines: each catches the other's mistakes.
    foreign = [
        (module, name)
        for module, path in MODULES.items()
        for name, _ in imported(path)
        if name.split(".")[0] in ("sources", "pipelines", "tests", "bench")
    ]
    assert foreign == []
