"""One database holds one console's history, on a real PostgreSQL server as on DuckDB: a warehouse no run
has loaded is never reported all clear, another console is refused before it extracts, and
`gatehouse sql` answers from the warehouse in its own dialect.

What the tests do after a first run starts from a copy of one first run made for the module (`first_load`):
PostgreSQL copies the database, the test's folder gets the run's dlt folder, as that run would have left them."""

from __future__ import annotations

import json
import shutil
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


FIRST_LOAD = "gatehouse_first_load"


@pytest.fixture(scope="module")
def first_load(postgres_server, tmp_path_factory) -> Path:
    """The small twin's first run into database FIRST_LOAD: the folder it ran in (its dlt folder `dlt`). Copy it
    (`start_loaded`), never change it: the tests' subject is what comes after a first run, which costs more than
    a second of processor time on PostgreSQL."""
    folder = tmp_path_factory.mktemp("postgres_first_load")
    twin = ConsoleTwin(size="small", seed=3)
    with pytest.MonkeyPatch.context() as env, twin.serve() as base_url:
        credentials = on_postgres(postgres_server, FIRST_LOAD, folder, env)
        point_at(env, twin, base_url)
        assert main(["run", "--no-progress", "--destination", "postgres"]) == 0
    # the run recorded the console it read (the copies' rows are pointed at their own twin's address)
    recorded = identify(base_url, twin.settings.api_key)
    with psycopg2.connect(credentials) as connection, connection.cursor() as cursor:
        cursor.execute("select console_base_url, console_key_fingerprint from console.extraction_runs")
        assert cursor.fetchall() == [(recorded.base_url, recorded.key_fingerprint)]
    connection.close()
    return folder


def start_loaded(postgres_server, first_load: Path, database: str, folder: Path, base_url: str) -> None:
    """Database `database` and `folder`'s dlt folder as `first_load`'s run left them, its console served at
    `base_url` now (the module's twin had another loopback port)."""
    credentials = postgres_server.database(database, template=FIRST_LOAD)
    with psycopg2.connect(credentials) as connection, connection.cursor() as cursor:
        cursor.execute("update console.extraction_runs set console_base_url = %s", [base_url])
    connection.close()
    shutil.rmtree(folder / "dlt", ignore_errors=True)
    shutil.copytree(first_load / "dlt", folder / "dlt")


def test_one_warehouse_one_console(postgres_server, first_load, tmp_path, monkeypatch, capsys):
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
        start_loaded(postgres_server, first_load, "gatehouse_one_console", tmp_path, home_url)
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


def test_full_refresh_starts_over_on_postgresql_and_every_later_run_loads(
    postgres_server, first_load, tmp_path, monkeypatch, capsys
):
    # PostgreSQL refuses to drop a table a view reads: the refresh drops gatehouse's views first, dependants
    # first, and applies them again at its end; the runs after it load as any other
    credentials = on_postgres(postgres_server, "gatehouse_full_refresh", tmp_path, monkeypatch)
    postgres = ["--destination", "postgres", "--no-progress"]
    twin = ConsoleTwin(size="small", seed=3)
    with twin.serve() as base_url:
        point_at(monkeypatch, twin, base_url)
        start_loaded(postgres_server, first_load, "gatehouse_full_refresh", tmp_path, base_url)
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
