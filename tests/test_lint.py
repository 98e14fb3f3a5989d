"""What a reviewer would run: ruff's checks and formatter (pyproject.toml `[tool.ruff]`, also in
.pre-commit-config.yaml) and mypy, clean on every file."""

from __future__ import annotations

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
    }
