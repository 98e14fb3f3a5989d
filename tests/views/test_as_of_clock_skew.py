"""analytics.as_of when a clock ran ahead at one run: the scheduler host's (its `started_at` and dlt's load id are read
from it) or the console's. The run after the clock was set right is the last extraction, on DuckDB and PostgreSQL."""

from __future__ import annotations

from datetime import datetime

import dlt
import duckdb
import psycopg2
import pytest

from gatehouse.pipelines.warehouse.views import apply_views

COLUMNS = "_dlt_load_id varchar, extraction_id varchar, service_time timestamptz, started_at timestamptz, finished_at timestamptz"
INSERT = "insert into console.extraction_runs values (%s, %s, %s, %s, %s)"
AS_OF = "select as_of_at, as_of_date, is_service_clock from analytics.as_of"

RUNS = {
    # run 1 on a host two days fast (its started_at and its load id), run 2 after the host's clock was set right
    "host-clock-ahead": (
        [
            ("1796378400.0", "e1", "2026-11-01 10:00:00+00", "2026-11-03 10:00:00+00", None),
            ("1796292000.0", "e2", "2026-11-02 10:00:00+00", "2026-11-02 10:00:05+00", None),
        ],
        [(datetime(2026, 11, 2, 10, 0), datetime(2026, 11, 2).date(), True)],
    ),
    # the console's clock a month ahead at run 1, then set right
    "console-clock-ahead": (
        [
            ("1793527200.0", "e1", "2026-12-01 10:00:00+00", "2026-11-01 10:00:00+00", None),
            ("1793613600.0", "e2", "2026-11-02 10:00:00+00", "2026-11-02 10:00:05+00", None),
        ],
        [(datetime(2026, 11, 2, 10, 0), datetime(2026, 11, 2).date(), True)],
    ),
    # two runs in one second by both clocks: the later load
    "same-second": (
        [
            ("1793613600.5", "e1", "2026-11-02 10:00:00+00", "2026-11-02 10:00:00+00", "2026-11-02 10:00:00+00"),
            ("1793613600.9", "e2", None, "2026-11-02 10:00:00+00", "2026-11-02 10:00:01+00"),
        ],
        [(datetime(2026, 11, 2, 10, 0, 1), datetime(2026, 11, 2).date(), False)],
    ),
}


@pytest.mark.parametrize(("runs", "expected"), RUNS.values(), ids=RUNS.keys())
def test_a_clock_ahead_at_one_run_does_not_hold_as_of_there(tmp_path, runs, expected):
    with duckdb.connect(str(tmp_path / "clock.duckdb")) as connection:
        connection.execute("set time zone 'UTC'")
        connection.execute("create schema console")
        connection.execute(f"create table console.extraction_runs ({COLUMNS})")
        connection.executemany(INSERT.replace("%s", "?"), runs)
        apply_views(connection)
        assert connection.execute(AS_OF).fetchall() == expected


@pytest.mark.slow
def test_a_clock_ahead_at_one_run_does_not_hold_as_of_there_on_postgresql(postgres_server, tmp_path):
    credentials = postgres_server.database("gatehouse_as_of_clock_skew")
    for name, (runs, expected) in RUNS.items():
        with psycopg2.connect(credentials) as connection, connection.cursor() as cursor:
            cursor.execute(
                "drop schema if exists console cascade; drop schema if exists analytics cascade; create schema console"
            )
            cursor.execute(f"create table console.extraction_runs ({COLUMNS})")
            cursor.executemany(INSERT, runs)
        pipeline = dlt.pipeline(
            f"as_of_{name.replace('-', '_')}",
            destination=dlt.destinations.postgres(credentials=credentials),
            dataset_name="console",
            pipelines_dir=str(tmp_path / "pipelines"),
        )
        with pipeline.sql_client() as client:
            apply_views(client)
            assert [tuple(row) for row in client.execute_sql(AS_OF)] == expected, name
