"""The house's structure, checked: imports run one way, with no circle anywhere, and each package keeps to
its side (`pipelines` uses `sources`; `sources` knows nothing of `pipelines`; the twin stands alone; the published
contract, which the client and the twin both read, imports none of them; nothing outside tests/ imports from
tests/); and no function outside bench/ and tests/ is longer than a screen.

Every import counts, at module level, under TYPE_CHECKING or inside a function: a circle that only a type
checker sees, or that a late import hides, is still a circle. `from package import module` is an edge to the
module, as Python resolves it.
"""

from __future__ import annotations

import ast
import functools
import os
import re
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# folder -> import name
PACKAGES = {"sources": "gatehouse.sources", "pipelines": "gatehouse.pipelines",
            "console_twin": "gatehouse.console_twin", "contract": "gatehouse.contract", "bench": "bench",
            "tools": "tools"}  # fmt: skip


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


@functools.cache
def syntax_nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of the file's syntax tree, as ast.walk gives them: parsed and walked once for all the checks that
    read the file, which each parsing and walking every module again took most of the file's time."""
    return tuple(ast.walk(ast.parse(path.read_text())))


@pytest.fixture(scope="module", autouse=True)
def _syntax_let_go():
    """The nodes let go of when the file's checks are done: kept, every later collection of the worker's garbage
    would go through them."""
    yield
    syntax_nodes.cache_clear()


def imports(path: Path, known: dict[str, Path]) -> list[str]:
    """Every name the file imports; `from a import b` names `a.b` when that is a module, else `a`."""
    names = []
    for node in syntax_nodes(path):
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
        "gatehouse.contract": ("gatehouse.sources", "gatehouse.pipelines", "gatehouse.console_twin", "bench", "tests"),
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
        for node in syntax_nodes(path):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                start = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
                decorators = [ast.unparse(decorator) for decorator in node.decorator_list]
                lengths[f"{module}:{node.lineno} {node.name}"] = (node.end_lineno - start + 1, decorators)
    return lengths


def test_no_function_outside_bench_and_tests_is_longer_than_a_screen():
    lengths = function_lengths()
    assert [name for name, (lines, _) in lengths.items() if lines > LONGEST_FUNCTION] == []


def test_each_dlt_source_fits_one_screen():
    sources = {
        name: lines
        for name, (lines, decorators) in function_lengths().items()
        if any(decorator.startswith("dlt.source") for decorator in decorators)
    }
    assert len(sources) == 4  # the console's, the code references' two and the gate snoozes'
    assert {name: lines for name, lines in sources.items() if lines > SOURCE_FUNCTION} == {}


# The one package that knows a database driver: every other module reaches DuckDB through it.
DRIVER_HOME = "gatehouse.pipelines.warehouse"


def test_only_the_warehouse_package_imports_duckdb():
    known = modules()
    importing = sorted(
        module for module, path in known.items()
        if module.startswith("gatehouse.") and not module.startswith(DRIVER_HOME + ".")
        and any(name == "duckdb" or name.startswith("duckdb.") for name in imports(path, known))
    )  # fmt: skip
    assert importing == []


def _private_names(nodes: Iterable[ast.AST]) -> set[str]:
    """The `_name`s a module defines: functions, classes, attributes it assigns, parameters."""
    found = set()
    for node in nodes:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            found.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.add(node.id)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
    return {name for name in found if name.startswith("_") and not name.startswith("__")}


# What defines a private name in dlt's code: a function or class, an attribute of self, a module-level name.
_DEFINED = re.compile(r"^\s*(?:def|class)\s+(_\w+)|\bself\.(_\w+)\s*[:=]|^(_\w+)\s*[:=]", re.M)
# Named with an underscore by Python itself, and public: a named tuple's API.
PUBLIC_UNDERSCORED = {"_asdict", "_replace", "_fields", "_make", "_field_defaults"}


@functools.cache
def dlt_private_names() -> frozenset[str]:
    """Every `_name` dlt's own code defines: its private members, which change between releases unannounced."""
    import dlt

    names: set[str] = set()
    for path in Path(dlt.__file__).parent.rglob("*.py"):
        for match in _DEFINED.finditer(path.read_text(errors="replace")):
            names.add(next(group for group in match.groups() if group))
    return frozenset(name for name in names if not name.startswith("__")) - PUBLIC_UNDERSCORED


def private_dlt_members(path: Path, ours: set[str]) -> list[str]:
    """`x._name` where `_name` is a private member of dlt's and no name of ours; and imports of dlt's `_name`s."""
    used = []
    for node in syntax_nodes(path):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            if node.attr in dlt_private_names() and node.attr not in ours:
                used.append(f"{path.relative_to(REPO)}:{node.lineno} .{node.attr}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "dlt":
            hidden = [alias.name for alias in node.names if alias.name.startswith("_")]
            hidden += [part for part in (node.module or "").split(".") if part.startswith("_")]
            used += [f"{path.relative_to(REPO)}:{node.lineno} {node.module}.{name}" for name in hidden]
    return used


# The cleanup tests' sample repositories are a made-up service's code, not ours (as for ruff).
SAMPLES = (REPO / "tests" / "cleanup" / "sample", REPO / "tests" / "cleanup" / "expected")


def test_no_private_dlt_member_is_used_anywhere():
    tests = [
        path
        for path in _python_files(REPO / "tests")
        if not path.is_relative_to(SAMPLES[0]) and not path.is_relative_to(SAMPLES[1])
    ]
    files = [*modules().values(), *tests]
    ours: set[str] = set()
    for path in files:
        ours |= _private_names(syntax_nodes(path))
    assert [use for path in files for use in private_dlt_members(path, ours)] == []


def test_the_private_member_check_finds_one(tmp_path):
    sample = REPO / "tests" / "_private_member_sample.py"
    try:
        sample.write_text("def loads(pipeline):\n    return pipeline._get_load_storage()\n")
        assert private_dlt_members(sample, set()) == ["tests/_private_member_sample.py:2 ._get_load_storage"]
    finally:
        sample.unlink()


# The run's state: what one run's steps hand each other. A step that takes it takes it as one object, by name.
RUN_STATE = {"Run", "RunOptions", "RunTally", "ExtractionCounts", "DltSource", "dlt.Pipeline", "Pipeline"}
RUN_STATE_POSITIONAL = 4


def run_state_functions(nodes: Iterable[ast.AST]) -> dict[str, int]:
    """Each function taking a part of the run's state: its positional parameters (self and cls aside)."""
    found = {}
    for node in nodes:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            positional = [a for a in node.args.posonlyargs + node.args.args if a.arg not in ("self", "cls")]
            kinds = {ast.unparse(a.annotation).strip("'\"") for a in positional if a.annotation is not None}
            if kinds & RUN_STATE:
                found[f"{node.lineno} {node.name}"] = len(positional)
    return found


def test_no_function_takes_the_runs_state_in_more_than_four_positional_arguments():
    long = {
        f"{module}:{name}": count
        for module, path in modules().items()
        if module.startswith("gatehouse.pipelines")
        for name, count in run_state_functions(syntax_nodes(path)).items()
        if count > RUN_STATE_POSITIONAL
    }
    assert long == {}


def test_the_positional_check_counts_the_runs_state():
    tree = ast.parse("def load(run: Run, a, b, c, d): ...\ndef other(a, b, c, d, e): ...")
    assert run_state_functions(ast.walk(tree)) == {"1 load": 5}
