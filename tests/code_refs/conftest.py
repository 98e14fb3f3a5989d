from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

from gatehouse.pipelines.cli.main import main
from tests.views.console_dataset import load_console

# The hand-built console's gates and configs (tests/views/console_dataset.py), without its code references.
CONSOLE_TABLES = ("gates", "dynamic_configs", "extraction_runs")


@pytest.fixture(scope="session")
def console_only_db(tmp_path_factory) -> Path:
    os.environ.setdefault("RUNTIME__LOG_LEVEL", "ERROR")
    work = tmp_path_factory.mktemp("console_only")
    return load_console(work / "flags.duckdb", work, tables=CONSOLE_TABLES)


@pytest.fixture
def database(console_only_db, tmp_path) -> Path:
    copy = tmp_path / "flags.duckdb"
    copy.write_bytes(console_only_db.read_bytes())
    return copy


@dataclass
class Finished:
    code: int
    out: str
    err: str

    @property
    def error_line(self) -> str:
        lines = self.err.strip().splitlines()
        assert len(lines) == 1, self.err
        return lines[0]


@pytest.fixture
def gatehouse(capsys):
    def run(*argv: str) -> Finished:
        code = main(list(argv))
        captured = capsys.readouterr()
        return Finished(code, captured.out, captured.err)

    return run


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.email=t@example.com", "-c", "user.name=t", *args], check=True, capture_output=True
    )


def commit_files(root: Path, files: dict[str, str | None], message: str = "change") -> None:
    """Writes (or, for None, deletes) files and commits them; a new folder becomes a repository on branch main."""
    if not (root / ".git").exists():
        root.mkdir(parents=True, exist_ok=True)
        git(root, "init", "-q", "-b", "main")
    for path, text in files.items():
        target = root / path
        if text is None:
            target.unlink()
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)


def query(database: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(database), read_only=True) as connection:
        return connection.execute(sql).fetchall()
