"""`gatehouse sql` never changes what was loaded: a statement that writes is refused wherever it sits (a CTE, a
subquery, EXPLAIN ANALYZE), and on a real PostgreSQL server the query runs in a read-only transaction, so a
function that writes (`lo_import`, `nextval`), which no parse can see, is refused by the server."""

from __future__ import annotations

import psycopg2
import pytest

from gatehouse.console_twin import ConsoleTwin
from gatehouse.pipelines.cli.main import main
from gatehouse.pipelines.cli.sql import check_read_only
from gatehouse.pipelines.errors import GatehouseError
from tests.drills.conftest import error_lines, point_at
from tests.warehouse.test_postgres_one_console import on_postgres

REFUSED = (
    "only a query is run here, not {}: gatehouse sql never changes the data"
    " (SHOW, DESCRIBE, SUMMARIZE, EXPLAIN and PRAGMA table_info are read too)"
)

# a query that deletes, to be placed inside others
DELETING = "with d as (delete from console.gates returning 1) select * from d"


@pytest.mark.parametrize(("query", "dialect", "kind"), [
    ("with d as (delete from console.gates__rules returning 1) select count(*) from d", "duckdb", "DELETE"),
    ("with d as (delete from console.gates__rules returning 1) select count(*) from d", "postgres", "DELETE"),
    ("with d as (update console.gates set name = 'x' returning 1) select * from d", "postgres", "UPDATE"),
    ("with d as (insert into console.gates (id) values ('g') returning 1) select * from d", "postgres", "INSERT"),
    (f"select * from (select 1) s where exists ({DELETING})", "postgres", "DELETE"),
    (f"explain analyze {DELETING}", "postgres", "DELETE"),
    (f"summarize ({DELETING})", "duckdb", "DELETE"),
    ("select * into console.copied from console.gates", "postgres", "SELECT INTO"),
    ("select * from console.gates for update", "postgres", "FOR UPDATE"),
    ("select * from console.gates for share", "postgres", "FOR SHARE"),
    ("merge into console.gates g using console.gates s on g.id = s.id when matched then delete", "postgres", "MERGE"),
    ("truncate console.gates", "postgres", "TRUNCATE"),
    ("copy (select 1) to '/tmp/out.csv'", "duckdb", "COPY"),
    ("attach 'other.duckdb'", "duckdb", "ATTACH"),
    ("set search_path = console", "postgres", "SET"),
    ("create table console.made as select 1", "duckdb", "CREATE"),
])  # fmt: skip
def test_a_statement_that_writes_is_refused_wherever_it_sits(query, dialect, kind):
    with pytest.raises(GatehouseError) as refused:
        check_read_only(query, dialect)
    assert str(refused.value) == REFUSED.format(kind)


@pytest.mark.parametrize(("query", "dialect"), [
    ("with recent as (select * from analytics.stale_gates) select count(*) from recent", "duckdb"),
    ("select 1 union all select 2", "postgres"),
    ("explain analyze select * from analytics.stale_gates", "postgres"),
    ("describe analytics.stale_gates", "duckdb"),
    ("pragma table_info('analytics.stale_gates')", "duckdb"),
])  # fmt: skip
def test_what_only_reads_is_accepted(query, dialect):
    check_read_only(query, dialect)


@pytest.mark.slow
def test_postgresql_runs_the_query_in_a_read_only_transaction(postgres_server, tmp_path, monkeypatch, capsys):
    credentials = on_postgres(postgres_server, "gatehouse_sql_read_only", tmp_path, monkeypatch)
    postgres = ["--destination", "postgres"]
    twin = ConsoleTwin(size="small", seed=3)
    with twin.serve() as base_url:
        point_at(monkeypatch, twin, base_url)
        assert main(["run", "--no-progress", *postgres]) == 0
    with psycopg2.connect(credentials) as connection, connection.cursor() as cursor:
        cursor.execute("create sequence public.ticket")
        cursor.execute("select count(*) from console.gates__rules")
        [(rules,)] = cursor.fetchall()
    assert rules > 0
    capsys.readouterr()

    deleting = "with d as (delete from console.gates__rules returning 1) select count(*) from d"
    for native in ([], ["--native"]):
        assert main(["sql", *postgres, *native, deleting]) == 2
        assert error_lines(capsys.readouterr().err) == [f"gatehouse: error: {REFUSED.format('DELETE')}"]
    # what the statement check cannot see, the server refuses
    for query, function in (
        ("select lo_import('/etc/hostname')", "lo_import()"),
        ("select nextval('public.ticket')", "nextval()"),
    ):
        assert main(["sql", *postgres, "--native", query]) == 2
        assert error_lines(capsys.readouterr().err) == [
            f"gatehouse: error: query failed on postgres: cannot execute {function} in a read-only transaction"
        ]
    # a query still answers, on the same connection's terms
    assert main(["sql", *postgres, "--format", "csv", "select count(*) as rules from console.gates__rules"]) == 0
    assert capsys.readouterr().out.splitlines() == ["rules", str(rules)]

    with psycopg2.connect(credentials) as connection, connection.cursor() as cursor:
        cursor.execute(
            "select (select count(*) from console.gates__rules), (select count(*) from pg_largeobject_metadata),"
            " (select last_value from public.ticket), (select is_called from public.ticket)"
        )
        assert cursor.fetchall() == [(rules, 0, 1, False)], "nothing was deleted, imported or drawn"
