"""One database holds one console's history, on a real PostgreSQL server as on DuckDB: a warehouse no run
has loaded is never reported all clear, another console is refused before it extracts, and
`gatehouse sql` answers from the warehouse in its own dialect."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg2
import pytest

from gatehouse.console_twin import ConsoleTwin, TwinSettings
from gatehouse.pipelines.cli.main import main
from gatehouse.sources.console.identity import identify
from tests.drills.conftest import error_lines, point_at, refused_run

pytestmark = pytest.mark.slow

OTHER_KEY = "console-Rk5Hw2Jd8Qs3Vn7Lb4"


def on_postgres(postgres_server, database: str, folder: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Runs in `folder` (their dlt state in folder/dlt) loading the suite's PostgreSQL database `database`: its
    credentials."""
    credentials = postgres_server.database(database)
    monkeypatch.chdir(folder)
    monkeypatch.setenv("DESTINATION__POSTGRES__CREDENTIALS", credentials)
    monkeypatch.setenv("DLT_DATA_DIR", str(folder / "dlt"))
    return credentials


def test_one_warehouse_one_console(postgres_server, tmp_path, monkeypatch, capsys):
    credentials = on_postgres(postgres_server, "gatehouse_one_console", tmp_path, monkeypatch)
    postgres = ["--destination", "postgres"]

    # nothing loaded yet: no all-clear
    for command in (["report", "--out", "reports"], ["sql", "select count(*) from analytics.stale_gates"]):
        assert main([command[0], *postgres, *command[1:]]) == 2
        assert error_lines(capsys.readouterr().err) == [
            "gatehouse: error: no run has loaded postgres yet (it holds no extraction): load it with `gatehouse run`"
            " (or `gatehouse run --demo`, then read it with --duckdb demo.duckdb); nothing was read or written"
        ]
    assert not (tmp_path / "reports").exists()

    home = ConsoleTwin(size="small", seed=3)
    other = ConsoleTwin(size="small", seed=4, settings=TwinSettings(api_key=OTHER_KEY))
    with home.serve() as home_url, other.serve() as other_url:
        point_at(monkeypatch, home, home_url)
        assert main(["run", "--no-progress", *postgres]) == 0
        line = refused_run(monkeypatch, capsys, other, other_url, *postgres)
        held, wanted = identify(home_url, home.settings.api_key), identify(other_url, OTHER_KEY)
        assert line == (
            f"gatehouse: error: postgres holds the console {held}, not {wanted}: load this console into another"
            " dataset (another database in the destination credentials), or pass --repoint to make postgres follow"
            " it (with --full-refresh to drop what it holds first)"
        )
        assert len(other.requests) == 1, "one cheap read, nothing extracted"

    with psycopg2.connect(credentials) as connection, connection.cursor() as cursor:
        cursor.execute("select console_base_url, console_key_fingerprint from console.extraction_runs")
        assert cursor.fetchall() == [(held.base_url, held.key_fingerprint)]
        cursor.execute("select gate_id, owner_name from analytics.stale_gates order by gate_id limit 2")
        expected = cursor.fetchall()

    capsys.readouterr()
    query = "select gate_id, owner_name from analytics.stale_gates order by gate_id limit 2"
    assert main(["sql", *postgres, "--format", "csv", query]) == 0
    assert capsys.readouterr().out.splitlines() == ["gate_id,owner_name", *(f"{gate},{owner}" for gate, owner in expected)]
    # the warehouse's own dialect, sent as written
    assert main(["sql", *postgres, "--native", "--format", "json", "select 1 + 1 as two, 'a' || 'b' as ab"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"two": 2, "ab": "ab"}]
    assert main(["sql", *postgres, "select * from analytics.no_such_view"]) == 2
    [line] = error_lines(capsys.readouterr().err)
    assert line.startswith("gatehouse: error: query failed on postgres: ") and "no_such_view" in line, line


def test_full_refresh_starts_over_on_postgresql_and_every_later_run_loads(postgres_server, tmp_path, monkeypatch, capsys):
    # PostgreSQL refuses to drop a table a view reads: the refresh drops gatehouse's views first, dependants
    # first, and applies them again at its end; the runs after it load as any other
    credentials = on_postgres(postgres_server, "gatehouse_full_refresh", tmp_path, monkeypatch)
    postgres = ["--destination", "postgres", "--no-progress"]
    twin = ConsoleTwin(size="small", seed=3)
    with twin.serve() as base_url:
        point_at(monkeypatch, twin, base_url)
        assert main(["run", *postgres]) == 0
        assert main(["run", *postgres, "--full-refresh"]) == 0, capsys.readouterr().err
        for _ in range(2):
            twin.advance(days=1)
            assert main(["run", *postgres]) == 0, capsys.readouterr().err
    assert main(["report", "--destination", "postgres", "--out", str(tmp_path / "reports")]) == 0, capsys.readouterr().err
    with psycopg2.connect(credentials) as connection, connection.cursor() as cursor:
        cursor.execute(
            "select (select count(*) from analytics.current_gates),"
            " (select count(*) from console.gates where _dlt_valid_to is null)"
        )
        views, current = cursor.fetchone()
        assert views == current > 0, "the views answer over what the refresh and the runs after it loaded"
        # the refresh started the history over: one extraction for it and one for each run after
        cursor.execute("select count(*) from console.extraction_runs")
        assert cursor.fetchone()[0] == 3
