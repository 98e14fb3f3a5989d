"""End to end on a real PostgreSQL: `gatehouse run --destination postgres`, a day later again, then
`gatehouse report --destination postgres`, each as a user types it, credentials from dlt's environment.

The same console loaded the same way into DuckDB is the reference: the SCD2 history and every view
must agree row for row, and the report must print the same summary. Its first load is the suite's once-made load of
the same twin (tests/pipeline/conftest.py), copied: the DuckDB side is the reference, not the subject.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import duckdb
import psycopg2
import pytest

from gatehouse.console_twin import ConsoleTwin
from gatehouse.pipelines.cli.main import main
from gatehouse.pipelines.models.build import view_definitions
from gatehouse.pipelines.reports.report import prepare
from gatehouse.pipelines.warehouse.destination import Destination
from tests.drills.conftest import copy_database, point_at
from tests.pipeline.conftest import seed_reference
from tests.views.test_destinations_agree import COLUMNS_SQL, keyed_rows, values_agree

pytestmark = pytest.mark.slow

# Wall-clock times of each load (and the run's own id): two loads of the same console differ there only.
LOAD_CLOCK = re.compile(
    r"^(extraction_id|started_at|finished_at|valid_from|valid_to|version_seen_at|first_loaded_at|observed_at|retired_at)$"
)
HISTORY_SQL = "select id, version, _dlt_valid_to is null as is_current from {table} order by id, version, is_current"


@pytest.fixture(scope="module")
def loaded_twice(postgres_server, tmp_path_factory):
    """The small twin loaded into PostgreSQL and into DuckDB, then a day later again into both."""
    work = tmp_path_factory.mktemp("postgres_run")
    credentials = postgres_server.database("gatehouse_e2e")
    twin = ConsoleTwin(size="small", seed=3)
    first_load = seed_reference(tmp_path_factory)  # the same organisation's first load into DuckDB
    with pytest.MonkeyPatch.context() as env, twin.serve() as base_url:
        env.chdir(work)
        env.setenv("DESTINATION__POSTGRES__CREDENTIALS", credentials)
        env.setenv("DLT_DATA_DIR", str(work / "dlt"))
        point_at(env, twin, base_url)
        for day in range(2):
            if day:
                twin.advance(days=1)
            assert main(["run", "--no-progress", "--destination", "postgres"]) == 0
            if day:
                assert main(["run", "--no-progress", "--duckdb", "reference.duckdb"]) == 0
            else:
                copy_database(first_load, work / "reference.duckdb", base_url)
        reports = {}
        for name, destination in (("postgres", ["--destination", "postgres"]), ("duckdb", ["--duckdb", "reference.duckdb"])):
            assert main(["report", *destination, "--out", str(work / f"reports-{name}")]) == 0
            reports[name] = work / f"reports-{name}"
        summaries = {
            "postgres": prepare(Destination(name="postgres")),
            "duckdb": prepare(Destination(duckdb_path=work / "reference.duckdb")),
        }
        yield {"credentials": credentials, "duckdb": work / "reference.duckdb", "reports": reports, "summaries": summaries}


@pytest.fixture(scope="module")
def read(loaded_twice) -> Iterator[dict]:
    """A query's rows from each side, `read["duckdb"](sql, *params)` and `read["postgres"](sql, *params)`, on one
    connection each for the module (read only; opening DuckDB's file cost about as much as a view's query, three a
    view). PostgreSQL's commits each statement, so that one failing query never aborts the next test's."""
    with duckdb.connect(str(loaded_twice["duckdb"]), read_only=True) as on_duckdb:
        on_postgres = psycopg2.connect(loaded_twice["credentials"])
        on_postgres.autocommit = True
        try:

            def postgres(sql: str, *params) -> list[tuple]:
                with on_postgres.cursor() as cursor:
                    cursor.execute(sql, params)
                    return cursor.fetchall()

            yield {"duckdb": lambda sql, *params: on_duckdb.execute(sql, list(params)).fetchall(), "postgres": postgres}
        finally:
            on_postgres.close()


def clockless(names: list[str], rows: list[tuple]) -> list[tuple]:
    """Each load-time value reduced to whether it is there."""
    clock = [bool(LOAD_CLOCK.match(name)) for name in names]
    return [tuple((value is not None) if is_clock else value for value, is_clock in zip(row, clock)) for row in rows]


@pytest.mark.parametrize("table", ["gates", "dynamic_configs"])
def test_the_scd2_history_is_the_same_as_on_duckdb(read, table):
    want = read["duckdb"](HISTORY_SQL.format(table=f"console.{table}"))
    got = read["postgres"](HISTORY_SQL.format(table=f"console.{table}"))
    assert got == want and len(want) > 10


def test_a_day_later_a_gate_version_was_closed(read):
    history = read["postgres"](HISTORY_SQL.format(table="console.gates"))
    assert any(not current for _, _, current in history)


@pytest.mark.parametrize("definition", view_definitions(), ids=lambda d: d.name)
def test_every_view_agrees_after_two_runs(read, definition):
    names = [name for name, _ in read["duckdb"](COLUMNS_SQL.replace("%s", "?"), definition.name)]
    assert [n for (n, _) in read["postgres"](COLUMNS_SQL, definition.name)] == names
    want = keyed_rows(names, clockless(names, read["duckdb"](f"select * from analytics.{definition.name}")), definition.key)
    got = keyed_rows(names, clockless(names, read["postgres"](f'select * from analytics."{definition.name}"')), definition.key)
    assert len(got) == len(want)
    for number, (got_row, want_row) in enumerate(zip(got, want)):
        differing = [(names[i], g, w) for i, (g, w) in enumerate(zip(got_row, want_row)) if not values_agree(g, w)]
        assert not differing, f"row {number} of {definition.name} (postgres, duckdb): {differing}"


def test_the_report_summary_is_the_same_as_on_duckdb(loaded_twice):
    postgres, duckdb = (loaded_twice["summaries"][name].splitlines() for name in ("postgres", "duckdb"))
    assert postgres[0].startswith("gatehouse report: postgres, as of ")
    assert postgres[0].split(", as of ")[1] == duckdb[0].split(", as of ")[1]
    assert postgres[1:] == duckdb[1:] and len(duckdb) > 5


def test_the_report_reads_postgres(loaded_twice):
    reports = loaded_twice["reports"]
    for notebook in ("stale_gates", "exposure_growth", "ingestion_health"):
        html = (reports["postgres"] / f"{notebook}.html").read_text(encoding="utf-8")
        assert "Data in <code>postgres</code>" in html and "Traceback" not in html
        charts = html.count('<img src="data:image/svg+xml;base64,')
        assert charts >= 3 and charts == (reports["duckdb"] / f"{notebook}.html").read_text(
            encoding="utf-8").count('<img src="data:image/svg+xml;base64,')  # fmt: skip


def test_a_run_leaves_the_loaded_tables_analyzed(read):
    # the views' joins are planned from statistics: a run gathers them, not autovacuum some time later
    analyzed = dict(
        read["postgres"]("select relname, last_analyze is not null from pg_stat_user_tables where schemaname = 'console'")
    )
    assert {"gates", "dynamic_configs", "cumulative_exposures", "ingestion_runs", "extraction_runs"} <= set(analyzed)
    assert all(analyzed.values()), [table for table, done in analyzed.items() if not done]
