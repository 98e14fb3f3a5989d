"""Destinations gatehouse cannot reach or serve: each command fails with one line that says what to do,
and nothing already loaded is touched."""

from __future__ import annotations

import sys

import pytest

from pipelines.cli import main

COMMANDS = {
    "run": ["run", "--no-progress"],
    "views": ["views"],
    "report": ["report", "--out", "reports"],
}


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DLT_DATA_DIR", str(tmp_path / "dlt"))
    monkeypatch.setenv("SOURCES__CONSOLE__BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("SOURCES__CONSOLE__API_KEY", "console-key-never-used")
    return tmp_path


@pytest.fixture
def no_postgres_driver(monkeypatch):
    """As on a machine where `pip install "dlt[postgres]"` was never run: psycopg2 cannot be imported."""
    for name in [n for n in sys.modules if n.startswith("dlt.destinations.impl.postgres.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "psycopg2", None)
    monkeypatch.setenv("DESTINATION__POSTGRES__CREDENTIALS", "postgresql://loader:pw-Xq81@127.0.0.1:9/dw")


def one_error_line(capsys) -> str:
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.startswith("gatehouse: error:")]
    assert len(lines) == 1 and out == "", (out, err)
    return lines[0]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_missing_driver_names_the_pip_extra(command, workdir, no_postgres_driver, capsys):
    assert main([*COMMANDS[command], "--destination", "postgres"]) == 2
    line = one_error_line(capsys)
    assert "postgres" in line and 'pip install "dlt[postgres]"' in line, line
    assert "pw-Xq81" not in line
    assert not (workdir / "reports").exists()


@pytest.mark.parametrize("command", COMMANDS)
def test_the_filesystem_destination_is_refused_before_anything_is_extracted(command, workdir, capsys):
    assert main([*COMMANDS[command], "--destination", "filesystem"]) == 2
    line = one_error_line(capsys)
    assert line.startswith("gatehouse: error: destination filesystem is not supported: files have no SCD2 history")
    assert "docs/destinations.md" in line
    assert not (workdir / "dlt").exists() and not (workdir / "reports").exists()
