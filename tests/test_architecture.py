"""The house's structure, checked: imports run one way, with no circle anywhere, and each package keeps to
its side (`pipelines` uses `sources`; `sources` knows nothing of `pipelines`; the twin stands alone; nothing
outside tests/ imports from tests/); and no function outside bench/ and tests/ is longer than a screen.

Every import counts, at module level, under TYPE_CHECKING or inside a function: a circle that only a type
checker sees, or that a late import hides, is still a circle. `from package import module` is an edge to the
module, as Python resolves it.
"""

from __future__ import annotations

import ast
import functools
import os
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# folder -> import name
PACKAGES = {"sources": "gatehouse.sources", "pipelines": "gatehouse.pipelines",
            "console_twin": "gatehouse.console_twin", "bench": "bench", "tools": "tools"}  # fmt: skip


@functools.cache
def modules() -> dict[str, Path]:
    found = {}
    for folder, name in PACKAGES.items():
        for path in _python_files(REPO / folder):
            parts = path.relative_to(REPO / folder).with_suffix("").parts
            dotted = ".".join((name, *parts[:-1])) if parts[-1] == "__init__" else ".".join((name, *parts))
            found[dotted] = path
    return found


def _python_files(folder: Path) -> list[Path]:
    """The folder's .py files, never walking into the benches' work folder (bench/out holds a copied
    site-packages tree: walked and then filtered, it took the test minutes on a developer's checkout)."""
    found = []
    for parent, folders, files in os.walk(folder):
        if Path(parent) == REPO / "bench":
            folders[:] = [name for name in folders if name != "out"]
        found += [Path(parent) / name for name in files if name.endswith(".py")]
    return found


def imports(path: Path, known: dict[str, Path]) -> list[str]:
    """Every name the file imports; `from a import b` names `a.b` when that is a module, else `a`."""
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names += [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in known else node.module for a in node.names]
    return names


def graph() -> dict[str, set[str]]:
    known = modules()
    edges: dict[str, set[str]] = defaultdict(set)
    for module, path in known.items():
        edges[module] |= {name for name in imports(path, known) if name in known and name != module}
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for dep in sorted(edges[module]):
            if dep not in index:
                visit(dep)
                low[module] = min(low[module], low[dep])
            elif dep in stack:
                low[module] = min(low[module], index[dep])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(edges):
        if module not in index:
            visit(module)
    return found


def test_no_import_circle():
    assert circles(graph()) == []


def test_the_cycle_check_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_each_package_keeps_to_its_side():
    forbidden = {
        "gatehouse.sources": ("gatehouse.pipelines", "gatehouse.console_twin", "bench", "tests"),
        "gatehouse.console_twin": ("gatehouse.sources", "gatehouse.pipelines", "bench", "tests"),
        "gatehouse.pipelines": ("bench", "tests"),
        "bench": ("tests",),
        "tools": ("gatehouse", "bench", "tests"),
    }
    crossing = []
    known = modules()
    for module, path in known.items():
        side = next(prefix for prefix in forbidden if module == prefix or module.startswith(prefix + "."))
        for name in imports(path, known):
            if any(name == other or name.startswith(other + ".") for other in forbidden[side]):
                crossing.append((module, name))
    assert crossing == []


# One screen: what a reader takes in at once. The house's measures, kept by the suite rather than remembered.
LONGEST_FUNCTION = 80
SOURCE_FUNCTION = 60


def function_lengths() -> dict[str, tuple[int, list[str]]]:
    """Each function outside bench/ and tests/: its length in lines (decorators included) and its decorators."""
    lengths = {}
    for module, path in modules().items():
        if module.startswith("bench"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                start = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
                decorators = [ast.unparse(decorator) for decorator in node.decorator_list]
                lengths[f"{module}:{node.lineno} {node.name}"] = (node.end_lineno - start + 1, decorators)
    return lengths


def test_no_function_outside_bench_and_tests_is_longer_than_a_screen():
    lengths = function_lengths()
    assert [name for name, (lines, _) in lengths.items() if lines > LONGEST_FUNCTION] == []


def test_each_dlt_source_fits_one_screen():
    sources = {name: lines for name, (lines, decorators) in function_lengths().items()
               if any(decorator.startswith("dlt.source") for decorator in decorators)}
    assert len(sources) == 4  # the console's, the code references' two and the gate snoozes'
    assert {name: lines for name, lines in sources.items() if lines > SOURCE_FUNCTION} == {}
