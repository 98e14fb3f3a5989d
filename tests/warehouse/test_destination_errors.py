"""Destinations gatehouse cannot reach or cannot keep views on: each command fails with one line that says
what to do, and nothing already loaded is touched."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from gatehouse.pipelines.cli.main import main
from tests.conftest import closed_port
from tests.drills.forked_commands import ForkedCommands

COMMANDS = {
    "run": ["run", "--no-progress"],
    "views": ["views"],
    "report": ["report", "--out", "reports"],
}
PASSWORD = "pw-Xq81-never-shown"
REPO = Path(__file__).resolve().parents[2]
# As on a machine where `pip install "dlt[postgres]"` was never run: psycopg2 cannot be imported (driver_missing.py).
# Each command a process of its own, so that no other test meets dlt's postgres modules half imported: forked from one
# that imported the commands once (tests/drills/forked_commands.py), psycopg2 never imported there; a new Python and
# gatehouse's imports for each command were most of this file's time.
WITHOUT_DRIVER = "tests.warehouse.driver_missing"


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DLT_DATA_DIR", str(tmp_path / "dlt"))
    monkeypatch.setenv("SOURCES__CONSOLE__BASE_URL", f"http://127.0.0.1:{closed_port()}")
    monkeypatch.setenv("SOURCES__CONSOLE__API_KEY", "console-key-never-used")
    monkeypatch.setenv("DESTINATION__POSTGRES__CREDENTIALS", f"postgresql://loader:{PASSWORD}@127.0.0.1:{closed_port()}/dw")
    return tmp_path


def error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("gatehouse: error:")]


@pytest.fixture(scope="module")
def forked(tmp_path_factory) -> Iterator[ForkedCommands]:
    work = tmp_path_factory.mktemp("without_driver")
    commands = ForkedCommands({**os.environ, "PYTHONPATH": str(REPO)}, work, work)
    yield commands
    commands.close()


@pytest.mark.parametrize("command", COMMANDS)
def test_a_missing_driver_names_the_pip_extra(command, workdir, forked):
    done = forked.run([*COMMANDS[command], "--destination", "postgres"], dict(os.environ), workdir, 120, first=WITHOUT_DRIVER)
    assert done.code == 2 and done.out == "", done.err
    [line] = error_lines(done.err)
    assert "postgres" in line and 'pip install "dlt[postgres]"' in line, line
    assert PASSWORD not in done.err
    assert not (workdir / "reports").exists()


@pytest.mark.parametrize("command", ["views", "report"])
def test_an_unreachable_warehouse_is_one_line(command, workdir, capsys):
    assert main([*COMMANDS[command], "--destination", "postgres"]) == 2
    out, err = capsys.readouterr()
    [line] = error_lines(err)
    assert line.startswith("gatehouse: error: destination postgres: cannot connect: connection to server at"), line
    assert PASSWORD not in out + err and out == ""


@pytest.mark.parametrize("command", ["views", "report"])
def test_the_filesystem_destination_has_no_views(command, workdir, capsys):
    assert main([*COMMANDS[command], "--destination", "filesystem"]) == 2
    out, err = capsys.readouterr()
    [line] = error_lines(err)
    assert line.startswith("gatehouse: error: destination filesystem has no analysis views: files have no SCD2 history")
    assert "docs/destinations.md" in line and out == ""
    assert not (workdir / "dlt").exists() and not (workdir / "reports").exists()


def test_a_run_into_filesystem_loads_the_raw_tables_and_says_there_are_no_views(workdir, monkeypatch, capsys, caplog):
    monkeypatch.setenv("DESTINATION__FILESYSTEM__BUCKET_URL", (workdir / "lake").as_uri())
    # one of the demo's projects: what a run into files says and leaves is the same for each
    with caplog.at_level("WARNING", logger="gatehouse.destination"):
        assert main(["run", "--no-progress", "--demo", "--project", "web", "--destination", "filesystem"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "gatehouse: filesystem (dataset console_web): project web"
    assert list((workdir / "lake" / "console_web" / "gates").glob("*.parquet"))
    assert any("no analysis views on filesystem" in record.getMessage() for record in caplog.records)


@pytest.mark.parametrize("command", ["views", "report"])
def test_missing_warehouse_credentials_are_one_line_naming_each_setting(command, workdir, monkeypatch, capsys):
    # `gatehouse run` said this in one line; views and report ended in dlt's 50-line traceback, exit 1
    monkeypatch.delenv("DESTINATION__POSTGRES__CREDENTIALS")
    assert main([*COMMANDS[command], "--destination", "postgres"]) == 2
    out, err = capsys.readouterr()
    assert error_lines(err) == [
        "gatehouse: error: missing setting destination.postgres.credentials.database"
        " (DESTINATION__POSTGRES__CREDENTIALS__DATABASE),"
        " destination.postgres.credentials.host (DESTINATION__POSTGRES__CREDENTIALS__HOST),"
        " destination.postgres.credentials.password (DESTINATION__POSTGRES__CREDENTIALS__PASSWORD),"
        " destination.postgres.credentials.username (DESTINATION__POSTGRES__CREDENTIALS__USERNAME):"
        " set it in .dlt/config.toml, .dlt/secrets.toml or the environment"
    ]
    assert out == "" and "Traceback" not in err and not (workdir / "reports").exists()
