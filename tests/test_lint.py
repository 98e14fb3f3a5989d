"""What a reviewer would run: ruff's checks and formatter (pyproject.toml `[tool.ruff]`, also in
.pre-commit-config.yaml), mypy and sqlfluff over the SQL models (`.sqlfluff`), clean on every file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

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
    package = tmp_path / "gatehouse"
    package.mkdir()
    for folder in ("sources", "pipelines", "console_twin", "notebooks", "dbt"):
        (package / folder).symlink_to(ROOT / folder, target_is_directory=True)
    done = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                           "--cache-dir", str(tmp_path / "cache"), "--python-executable", sys.executable,
                           "-p", "gatehouse.sources", "-p", "gatehouse.pipelines", "-p", "gatehouse.console_twin"],
                          cwd=tmp_path, env={**os.environ, "MYPYPATH": str(tmp_path)},
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


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


def test_sqlfluff_finds_nothing_in_the_models():
    # .sqlfluff: DuckDB's dialect, the models' Jinja with the globals gatehouse gives it (pipelines/models/sqlfluff_jinja).
    # One process: in `make test` the other workers keep the cores busy, and a second only adds its start.
    done = subprocess.run(
        [sys.executable, "-m", "sqlfluff", "lint", "--disable-progress-bar", "pipelines/models"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_sqlfluff_renders_the_warehouse_macros_and_refuses_upper_case():
    # the same configuration renders a model calling a warehouse macro and ref() (an unknown name would be a
    # templating error, TMP), and refuses what the house does not write: an upper-case keyword (CP01)
    model = "-- grain: x; key: x\nselect {{ epoch_seconds('made.made_at') }} AS x\nfrom {{ ref('stg_x') }} as made\n"
    done = subprocess.run(
        [sys.executable, "-m", "sqlfluff", "lint", "--disable-progress-bar", "--format", "json",
         "--stdin-filename", "pipelines/models/staging/stg_x.sql", "-"],
        cwd=ROOT, input=model, capture_output=True, text=True,
    )  # fmt: skip
    found = [(v["code"], v["start_line_no"]) for result in json.loads(done.stdout) for v in result["violations"]]
    assert found == [("CP01", 2)], done.stdout + done.stderr
