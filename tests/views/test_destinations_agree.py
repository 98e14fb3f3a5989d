"""Every view gives the same columns, column types and rows on DuckDB and on a real PostgreSQL server.

Both hold the same hand-built console, loaded by dlt; on PostgreSQL the views are the SQL files as
translated by `gatehouse.pipelines.models.build` through dlt's SQL client. Rows are compared ordered by the view's key,
floats to a relative 1e-9, timestamps with a time zone as instants in UTC, and JSON texts as the values
they hold (each database writes JSON its own way: `{"a":1}` against `{"a": 1}`).

dlt's lineage columns (`_dlt_id` as `*_row_id` / `*_version_id`, `_dlt_load_id` as `load_id`) are random
or time-based per load, so they differ between two loads of the same records: those are compared as
present and never null where DuckDB has them, and rows are ordered by the view's key when it is a
natural one, else by all their other columns.
"""

from __future__ import annotations

import json
import math
import re
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from gatehouse.pipelines.models.build import qualified_view_name, view_definitions

DEFINITIONS = view_definitions()

# information_schema.columns.data_type of each database, by the kind of value it holds
TYPE_FAMILIES = {
    "varchar": "text",
    "text": "text",
    "character varying": "text",
    "integer": "integer",
    "bigint": "integer",
    "smallint": "integer",
    "hugeint": "integer",
    "double": "float",
    "double precision": "float",
    "boolean": "boolean",
    "date": "date",
    "timestamp": "timestamp",
    "timestamp without time zone": "timestamp",
    "timestamp with time zone": "timestamp with time zone",
    "json": "json",
    "jsonb": "json",
}

LINEAGE = re.compile(r"(_row_id|_version_id|^load_id)$")

COLUMNS_SQL = (
    "select column_name, data_type from information_schema.columns"
    " where table_schema = 'analytics' and table_name = %s order by ordinal_position"
)


def comparable(value):
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(UTC)
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def values_agree(got, want) -> bool:
    if isinstance(want, float) or isinstance(got, float):
        return got is not None and want is not None and math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12)
    return got == want and type(got) is type(want)


def sort_value(value):
    if isinstance(value, (dict, list)):
        value = json.dumps(value, sort_keys=True)
    return (value is None, value if value is not None else 0)


def keyed_rows(columns: list[str], rows, key: tuple[str, ...]) -> list[tuple]:
    """Rows normalised, lineage values reduced to whether they are there, in the order of the key."""
    natural = [column for column in key if not LINEAGE.search(column)]
    order = [columns.index(c) for c in (natural if natural == list(key) else [])]
    order += [i for i, c in enumerate(columns) if i not in order and not LINEAGE.search(c)]
    normalised = [
        tuple((value is not None) if LINEAGE.search(columns[i]) else comparable(value) for i, value in enumerate(row))
        for row in rows
    ]
    return sorted(normalised, key=lambda row: tuple(sort_value(row[p]) for p in order))


@pytest.fixture(scope="module")
def postgres_views(postgres_console) -> dict[str, tuple[list[tuple[str, str]], list[tuple]]]:
    """Each view's (column name, data type) pairs and rows, read through dlt's SQL client."""
    read = {}
    with postgres_console.sql_client() as client:
        for definition in DEFINITIONS:
            columns = [tuple(c) for c in client.execute_sql(COLUMNS_SQL, definition.name)]
            rows = client.execute_sql(f"select * from {qualified_view_name(client, definition.name)}")
            read[definition.name] = (columns, [tuple(row) for row in rows])
    return read


@pytest.mark.parametrize("definition", DEFINITIONS, ids=lambda d: d.name)
def test_view_is_the_same_on_duckdb_and_postgres(hand_built_reader, postgres_views, definition):
    duckdb_columns = hand_built_reader.execute(COLUMNS_SQL.replace("%s", "?"), [definition.name]).fetchall()
    duckdb_rows = hand_built_reader.execute(f"select * from analytics.{definition.name}").fetchall()
    postgres_columns, postgres_rows = postgres_views[definition.name]

    assert [name for name, _ in postgres_columns] == [name for name, _ in duckdb_columns]
    families = [(name, TYPE_FAMILIES.get(kind.lower(), kind.lower())) for name, kind in duckdb_columns]
    assert [(name, TYPE_FAMILIES.get(kind.lower(), kind.lower())) for name, kind in postgres_columns] == families

    names = [name for name, _ in duckdb_columns]
    want = keyed_rows(names, duckdb_rows, definition.key)
    got = keyed_rows(names, postgres_rows, definition.key)
    assert len(got) == len(want) > 0
    for number, (got_row, want_row) in enumerate(zip(got, want)):
        differing = [(names[i], g, w) for i, (g, w) in enumerate(zip(got_row, want_row)) if not values_agree(g, w)]
        assert not differing, f"row {number} of {definition.name} (postgres, duckdb): {differing}"
