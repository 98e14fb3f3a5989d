"""Every analysis view of a DuckDB file computed whole, cheaply: each view's rows kept in a table of its name.

Reading each view on its own (`select count(*)`, `select *`) plans the nested views under it afresh every time: the
views of the drills' organisation cost about two seconds of processor that way. Computed in their build order, each
into a table that replaces it, every view reads the rows of the views under it instead, for a fifth of that, and
every column of every row is computed (a value a view cannot cast fails it). All in one transaction, rolled back: the
file is left as it was.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import duckdb

from gatehouse.pipelines.models.graph import SCHEMA, view_definitions


@contextlib.contextmanager
def views_as_tables(connection: duckdb.DuckDBPyConnection, schema: str = SCHEMA) -> Iterator[list[str]]:
    """Within the block, each view of the analysis schema (or of `schema`, such as dbt's models of the same names) is
    a table of its rows (a writable connection); yields their names. Views that are not models come first, the models
    in their build order."""
    order = {definition.name: index for index, definition in enumerate(view_definitions())}
    views = [
        name
        for (name,) in connection.execute(
            "select view_name from duckdb_views() where schema_name = ? and not internal", [schema]
        ).fetchall()
    ]
    connection.execute("begin")
    try:
        for view in sorted(views, key=lambda name: order.get(name, -1)):
            connection.execute(f'create table {schema}."computed {view}" as select * from {schema}."{view}"')
            connection.execute(f'drop view {schema}."{view}"')
            connection.execute(f'alter table {schema}."computed {view}" rename to "{view}"')
        yield views
    finally:
        connection.execute("rollback")
