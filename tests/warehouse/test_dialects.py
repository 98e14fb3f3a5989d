"""Every view translated for every destination parses in its dialect; the translations known to go
silently wrong are either forbidden in the SQL files or pinned to what each dialect gets."""

from __future__ import annotations

import functools

import pytest
import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel

from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.models.build import (
    SCHEMA,
    SHARED_TABLES,
    SOURCE_COLUMNS,
    RawDataset,
    RawTables,
    render_query,
    render_sources,
    render_view,
    view_definitions,
)
from tests.warehouse.conftest import DESTINATIONS, Destination, OfflineSqlClient

DEFINITIONS = view_definitions()
ALL_COLUMNS = RawTables.single({table: set(columns) for table, columns in SOURCE_COLUMNS.items()}, dataset="console")
NO_TABLES = RawTables((), RawDataset(None, "console"))
# the single console and two projects beside it, each with every table (one without its nested rules yet)
PROJECTS = ("web", "mobile")
TWO_PROJECTS = RawTables(
    ALL_COLUMNS.projects
    + tuple(
        RawDataset(
            project,
            f"console_{project}",
            {
                table: frozenset(columns)
                for table, columns in SOURCE_COLUMNS.items()
                if table not in SHARED_TABLES and not (project == "mobile" and table.startswith("gates__rules"))
            },
        )
        for project in PROJECTS
    ),
    ALL_COLUMNS.shared,
)
PRESENT = {"loaded": ALL_COLUMNS, "empty": NO_TABLES, "projects": TWO_PROJECTS}


@functools.cache
def rendered(destination: Destination, present: str) -> dict[str, str]:
    """Every view's statement for `destination` over the raw tables `present`, by view, translated once for the
    module: the MotherDuck test compares the DuckDB and MotherDuck statements the parse test has translated."""
    client = OfflineSqlClient(destination)
    return {definition.name: render_view(client, definition, PRESENT[present]) for definition in DEFINITIONS}


def physical_tables(statement: exp.Expression) -> set[tuple[str, ...]]:
    """The qualified tables a statement reads or creates (CTE names are not tables)."""
    ctes = {cte.alias for cte in statement.find_all(exp.CTE)}
    return {
        tuple(part.name for part in table.parts)
        for table in statement.find_all(exp.Table)
        if not (len(table.parts) == 1 and table.name in ctes)
    }


@pytest.mark.parametrize("destination", DESTINATIONS, ids=lambda d: d.name)
@pytest.mark.parametrize("present", list(PRESENT))
def test_every_view_parses_in_the_destination_dialect_as_a_qualified_create_view(destination, present):
    client = OfflineSqlClient(destination)
    dialect = client.capabilities.sqlglot_dialect
    fold = client.capabilities.casefold_identifier
    prefix = (fold(destination.catalog),) if destination.catalog else ()
    views = {prefix + (fold(SCHEMA), fold(d.name)) for d in DEFINITIONS} | {
        prefix + (fold(SCHEMA), fold(t)) for t in ("view_parameters", "srm_expected_weights", "view_projects")
    }
    raw = {
        prefix + (fold(dataset), fold(table))
        for dataset in ("console", *(f"console_{p}" for p in PROJECTS))
        for table in SOURCE_COLUMNS
    }
    for definition in DEFINITIONS:
        statement = sqlglot.parse_one(rendered(destination, present)[definition.name], read=dialect, error_level=ErrorLevel.RAISE)
        assert isinstance(statement, exp.Create) and statement.kind == "VIEW" and statement.args.get("replace"), definition.name
        created = tuple(part.name for part in statement.this.parts)
        assert created == prefix + (fold(SCHEMA), fold(definition.name))
        read = physical_tables(statement.expression) - {("no_rows",)}
        assert read <= views | raw, f"{definition.name} reads unqualified or unknown tables: {read - views - raw}"
        if present == "projects" and definition.name == "stg_gate_versions":
            assert {prefix + (fold(f"console_{p}"), fold("gates")) for p in PROJECTS} <= read


def test_motherduck_runs_the_duckdb_sql_as_it_is():
    [duckdb] = [d for d in DESTINATIONS if d.name == "duckdb"]
    [motherduck] = [d for d in DESTINATIONS if d.name == "motherduck"]
    assert OfflineSqlClient(motherduck).capabilities.sqlglot_dialect == "duckdb"
    local, cloud = rendered(duckdb, "loaded"), rendered(motherduck, "loaded")
    for definition in DEFINITIONS:
        # the same statement; only the database the names sit in differs
        assert cloud[definition.name] == local[definition.name].replace('"analytics".', '"my_db"."analytics".').replace(
            '"console".', '"my_db"."console".'
        ), definition.name


# Constructs whose translation goes wrong without an error (or only at run time): none may appear in a
# view. Each entry: what to look for in DuckDB's parse, and why.
FORBIDDEN = {
    "arg_max / max_by": (
        lambda n: isinstance(n, (exp.ArgMax, exp.ArgMin)),
        "PostgreSQL has no arg_max; use row_number() over a window",
    ),
    "* exclude": (
        lambda n: isinstance(n, exp.Star) and (n.args.get("except") or n.args.get("except_")),
        "becomes * EXCEPT, which PostgreSQL does not have; list the columns",
    ),
    "len() / length()": (
        lambda n: isinstance(n, (exp.Length, exp.ArraySize)),
        "on a list DuckDB counts items, the others count characters; count the nested table's rows",
    ),
    "a function sqlglot does not know (now(), list_extract, ...)": (
        lambda n: isinstance(n, exp.Anonymous),
        "passed through verbatim: now() becomes now() on BigQuery; use current_timestamp and standard functions",
    ),
    "struct-path access": (
        lambda n: (
            (isinstance(n, exp.Column) and n.args.get("db") is not None)
            or isinstance(n, (exp.Dot, exp.StructExtract, exp.Bracket))
        ),
        "a.b.c is read as schema.table.column elsewhere; read dlt's flattened column (a__b__c)",
    ),
    "JSON path extraction": (
        lambda n: isinstance(n, (exp.JSONExtract, exp.JSONExtractScalar, exp.JSONBExtract)),
        "operators differ per dialect",
    ),
    "a generated series (generate_series, range, unnest)": (
        lambda n: isinstance(n, (exp.GenerateSeries, exp.GenerateDateArray, exp.Explode, exp.Unnest)),
        "Snowflake gets ARRAY_GENERATE_RANGE over dates; use a recursive CTE (as exposure_daily does)",
    ),
    "qualify": (lambda n: isinstance(n, exp.Qualify), "PostgreSQL has no qualify; filter a window in an outer CTE"),
    "ignore nulls": (lambda n: isinstance(n, exp.IgnoreNulls), "not portable; use a max() over an ordered frame"),
}


@pytest.mark.parametrize("definition", DEFINITIONS, ids=lambda d: d.name)
def test_view_uses_no_construct_that_translates_silently_wrong(definition):
    parsed = sqlglot.parse_one(render_sources(definition.sql, ALL_COLUMNS), read="duckdb")
    found = [
        f"{construct}: {reason} (at `{node.sql('duckdb')[:60]}`)"
        for node in parsed.walk()
        for construct, (matches, reason) in FORBIDDEN.items()
        if matches(node)
    ]
    assert not found, f"{definition.name} uses constructs that do not translate faithfully:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "construct, sql",
    [
        ("arg_max", "select arg_max(a, b) from t"),
        ("* exclude", "select * exclude (a) from t"),
        ("len on a list", "select len(l) from t"),
        ("now()", "select now()"),
        ("struct path", "select s.a.b from t as s"),
        ("date generate_series", "select * from generate_series(date '2026-01-01', date '2026-01-05', interval 1 day)"),
    ],
)
def test_the_forbidden_list_catches_each_known_silent_translation(construct, sql):
    parsed = sqlglot.parse_one(sql, read="duckdb")
    assert any(matches(node) for node in parsed.walk() for matches, _ in FORBIDDEN.values()), construct


def translate(destination_name: str, sql: str) -> str:
    [destination] = [d for d in DESTINATIONS if d.name == destination_name]
    return " ".join(render_query(OfflineSqlClient(destination), sql).split())


# constructs pinned below on several destinations
ORDERED_LIST = "select string_agg(a, ', ' order by b)"
UTC_WALL_CLOCK = "select to_timestamp(ms / 1000.0) at time zone 'UTC'"


# What the constructs the views do use become on each destination, through views.py's transforms:
# the translation each one relies on, pinned (sqlglot is pinned in pyproject.toml for the same reason).
@pytest.mark.parametrize(
    "sql, destination, expected",
    [
        # durations: a double everywhere (PostgreSQL's epoch is a numeric)
        (
            "select extract(epoch from a) - extract(epoch from b)",
            "postgres",
            "SELECT CAST(EXTRACT(EPOCH FROM a) AS DOUBLE PRECISION) - CAST(EXTRACT(EPOCH FROM b) AS DOUBLE PRECISION)",
        ),
        ("select extract(epoch from a)", "snowflake", "SELECT CAST(DATE_PART(EPOCH, a) AS DOUBLE)"),
        # DuckDB divides integers into a double; PostgreSQL would truncate
        ("select a / b", "postgres", "SELECT CAST(a AS DOUBLE PRECISION) / b"),
        ("select a / b", "bigquery", "SELECT a / b"),
        # ordered string lists
        (ORDERED_LIST, "postgres", "SELECT STRING_AGG(a, ', ' ORDER BY b)"),
        (ORDERED_LIST, "snowflake", "SELECT LISTAGG(a, ', ') WITHIN GROUP (ORDER BY b)"),
        (ORDERED_LIST, "bigquery", "SELECT STRING_AGG(a, ', ' ORDER BY b)"),
        (ORDERED_LIST, "databricks", "SELECT LISTAGG(a, ', ') WITHIN GROUP (ORDER BY b NULLS LAST)"),
        # milliseconds since the epoch as a UTC wall-clock time
        (UTC_WALL_CLOCK, "postgres", "SELECT TO_TIMESTAMP(CAST(ms AS DOUBLE PRECISION) / 1000.0) AT TIME ZONE 'UTC'"),
        (UTC_WALL_CLOCK, "snowflake", "SELECT CONVERT_TIMEZONE('UTC', TO_TIMESTAMP(ms / 1000.0))"),
        # known limit (docs/destinations.md): BigQuery has no date + integer; the calendar of exposure_daily
        # is translated as it is and BigQuery refuses it when the view is created
        ("select d + 1", "bigquery", "SELECT d + 1"),
        ("select d + 1", "snowflake", "SELECT d + 1"),
    ],
)
def test_constructs_the_views_use_translate_as_pinned(sql, destination, expected):
    assert translate(destination, sql) == expected


def test_analytics_names_are_the_destinations_own():
    assert (
        translate("snowflake", "select * from analytics.stale_gates") == 'SELECT * FROM "ANALYTICS_DB"."ANALYTICS"."STALE_GATES"'
    )
    assert translate("bigquery", "select * from analytics.stale_gates") == "SELECT * FROM `my-project`.`analytics`.`stale_gates`"
    assert translate("databricks", "select * from analytics.stale_gates") == "SELECT * FROM `main`.`analytics`.`stale_gates`"
    assert translate("postgres", "select * from analytics.stale_gates") == 'SELECT * FROM "analytics"."stale_gates"'


def test_a_view_a_dialect_cannot_express_is_one_line_naming_it():
    # sqlglot cannot write string_agg(distinct ...) for MS SQL: refused before anything is applied
    [definition] = [d for d in DEFINITIONS if d.name == "current_dynamic_configs"]
    with pytest.raises(GatehouseError) as raised:
        render_view(OfflineSqlClient(Destination("mssql", None, executed=False)), definition, ALL_COLUMNS)
    assert str(raised.value).startswith("view current_dynamic_configs cannot be translated to tsql: ")
    assert "\n" not in str(raised.value)


def test_a_destination_without_a_dialect_is_one_line():
    client = OfflineSqlClient(Destination("sqlalchemy", None, executed=False))
    with pytest.raises(
        GatehouseError,
        match=r"^destination OfflineSqlClient declares no SQL dialect: the analysis views cannot be translated for it$",
    ):
        render_query(client, "select 1")
