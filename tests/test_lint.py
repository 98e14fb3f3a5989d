"""What a reviewer would run: ruff's checks and formatter (pyproject.toml `[tool.ruff]`, also in
.pre-commit-config.yaml), mypy and sqlfluff over the SQL models (`.sqlfluff`), clean on every file."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_tree_is_formatted():
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_finds_nothing_in_the_installed_package(tmp_path):
    # The checkout's folders are the package `gatehouse` (pyproject's package-dir), which an editable install
    # maps with a path hook mypy cannot follow: mypy reads them through a folder of links named as installed.
    # No cache written (the cache folder os.devnull, as mypy's documentation says): the suite runs mypy once, on a
    # fresh clone, and writing the cache of every module read, dlt's and the rest, was a fifth of the run.
    package = tmp_path / "gatehouse"
    package.mkdir()
    for folder in ("sources", "pipelines", "console_twin", "contract", "notebooks", "dbt"):
        (package / folder).symlink_to(ROOT / folder, target_is_directory=True)
    done = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                           "--cache-dir", os.devnull, "--python-executable", sys.executable,
                           "-p", "gatehouse.sources", "-p", "gatehouse.pipelines", "-p", "gatehouse.console_twin",
                           "-p", "gatehouse.contract"],
                          cwd=tmp_path, env={**os.environ, "MYPYPATH": str(tmp_path)},
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_reads_as_any_only_libraries_gatehouse_never_imports():
    # pyproject's override that skips libraries' stubs too is for what only gatehouse's dependencies import: a module
    # of gatehouse's importing one would be checked against Any, and mypy would say nothing
    overrides = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]["overrides"]
    skipped = {name.removesuffix(".*") for override in overrides if override.get("follow_imports_for_stubs")
               for name in override["module"]}  # fmt: skip
    importing = []
    for folder in ("sources", "pipelines", "console_twin", "contract"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                names += [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
                importing += [f"{path.relative_to(ROOT)}:{node.lineno} {name}" for name in names
                              if any(name == s or name.startswith(s + ".") for s in skipped)]  # fmt: skip
    assert len(skipped) > 30 and importing == []


def test_the_constraints_pin_every_requirement_within_what_pyproject_asks():
    # `make install` installs with constraints-dev.txt: a requirement it does not pin, or pins outside its range,
    # would be resolved afresh (or refused) on a fresh machine, and the suite would run on versions it never passed on
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = [Requirement(text) for text in project["dependencies"]]
    declared += [Requirement(text) for extra in ("test", "bench", "dbt") for text in project["optional-dependencies"][extra]]
    pins = {}
    for line in (ROOT / "constraints-dev.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[canonicalize_name(name)] = version
    unpinned = sorted(str(r) for r in declared if canonicalize_name(r.name) not in pins)
    outside = sorted(
        f"{r} (pinned {pins[canonicalize_name(r.name)]})"
        for r in declared
        if canonicalize_name(r.name) in pins and not r.specifier.contains(pins[canonicalize_name(r.name)], prereleases=True)
    )
    assert (unpinned, outside) == ([], [])


def test_pre_commit_runs_the_checks_the_suite_runs():
    hooks = {hook["id"]: hook["entry"] for repo in yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())["repos"]
             for hook in repo["hooks"]}  # fmt: skip
    assert hooks == {
        "ruff-format": ".venv/bin/ruff format --check",
        "ruff-check": ".venv/bin/ruff check",
        "mypy": ".venv/bin/python -m pytest -q -p no:cacheprovider tests/test_lint.py -k mypy",
        "sqlfluff": ".venv/bin/sqlfluff lint --disable-progress-bar",
    }


@pytest.fixture(scope="module")
def sqlfluff():
    """sqlfluff's linter with the repository's .sqlfluff, in this process: a process of its own for each lint paid
    Python's start and sqlfluff's imports again."""
    from sqlfluff.core import FluffConfig, Linter

    return Linter(config=FluffConfig.from_path(str(ROOT)))


def violations(result) -> list[tuple[str, str, int, str]]:
    return [(str(Path(file.path).relative_to(ROOT)), found.rule_code(), found.line_no, found.desc())
            for path in result.paths for file in path.files for found in file.get_violations()]  # fmt: skip


def test_sqlfluff_finds_nothing_in_the_models(sqlfluff):
    # .sqlfluff: DuckDB's dialect, the models' Jinja with the globals gatehouse gives it (pipelines/models/sqlfluff_jinja).
    # One process: in `make test` the other workers keep the cores busy, and a second only adds its start.
    models = ROOT / "pipelines" / "models"
    result = sqlfluff.lint_paths((str(models),))
    assert sum(len(path.files) for path in result.paths) == len(list(models.rglob("*.sql"))), "every model is linted"
    assert violations(result) == []


def test_sqlfluff_renders_the_warehouse_macros_and_refuses_upper_case(sqlfluff):
    # the same configuration renders a model calling a warehouse macro and ref() (an unknown name would be a
    # templating error, TMP), and refuses what the house does not write: an upper-case keyword (CP01)
    model = "-- grain: x; key: x\nselect {{ epoch_seconds('made.made_at') }} AS x\nfrom {{ ref('stg_x') }} as made\n"
    result = sqlfluff.lint_string(model, fname=str(ROOT / "pipelines" / "models" / "staging" / "stg_x.sql"))
    assert [(found.rule_code(), found.line_no) for found in result.get_violations()] == [("CP01", 2)]
