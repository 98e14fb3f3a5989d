"""What a reviewer would run: ruff's checks and formatter (pyproject.toml `[tool.ruff]`, also in
.pre-commit-config.yaml) and mypy, clean on every file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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
