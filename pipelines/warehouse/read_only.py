"""Reading where nothing may be written: a query a person typed, run where the server itself refuses to write (the
second guard of `gatehouse sql`); a report on a DuckDB file that cannot be written (a read-only mount)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.models.build import views_are_current
from gatehouse.pipelines.projects import configured_projects
from gatehouse.pipelines.warehouse import datasets
from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.pipelines.warehouse.reader import Reader

# The statement that makes the transaction just opened read-only, per dialect of dlt's SQL client. The parse check
# (`cli/sql.py`) knows statements, not what a function does: PostgreSQL runs `select lo_import(...)` or
# `select nextval(...)` as a query, and refuses them only inside a read-only transaction. DuckDB's readers open
# the file read-only (`Destination.for_reading`); Snowflake, BigQuery and Databricks have no read-only
# transaction: there a role that may only read is the protection (docs/destinations.md).
READ_ONLY_TRANSACTION = {"postgres": "set transaction read only"}


@contextlib.contextmanager
def read_only(reader: Reader) -> Iterator[Reader]:
    """`reader`, inside a read-only transaction where the destination has one; always rolled back, never
    committed: a read needs no commit, and whatever the server let through is undone."""
    statement = READ_ONLY_TRANSACTION.get(reader.dialect)
    if statement is None:
        yield reader
        return
    client = reader.client
    with client.begin_transaction():
        try:
            client.execute_sql(statement)
            yield reader
        finally:
            client.rollback_transaction()


def cannot_be_written(destination: Destination) -> bool:
    """A DuckDB file that this process may not write, or whose folder it may not (DuckDB writes its WAL there):
    on a read-only mount, or without the permission."""
    if not destination.is_duckdb_file or not destination.duckdb_path.is_file():
        return False
    path = destination.duckdb_path
    return not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK))


def reading_as_it_is(destination: Destination, timeout_s: float | None = None) -> Destination:
    """Where a report reads a DuckDB file that cannot be written (`cannot_be_written`): what readers open
    (`for_reading`), when it holds this version's views over its columns and, if it is the snapshot, the snapshot is
    of the database as it is; the views cannot be refreshed nor a snapshot published there. Else one line saying
    why and what to do."""
    reading = destination.for_reading()
    fix = (
        f"run `gatehouse views --duckdb {destination.duckdb_path}` where the file can be written, or give a"
        " writable copy of it; nothing was written"
    )
    if reading.duckdb_path != destination.duckdb_path and not destination.snapshot.is_current():
        raise GatehouseError(
            f"{destination.duckdb_path} cannot be written and its snapshot {reading.duckdb_path.name} is older than it: {fix}"
        )
    datasets.check_loaded(reading, timeout_s)
    with reading.sql_client(timeout_s) as client:
        current = views_are_current(client, known_projects=configured_projects(), rendered_cache=destination.working_dir())
    if not current:
        raise GatehouseError(
            f"{destination.duckdb_path} cannot be written and its analysis views are not this version's over its tables: {fix}"
        )
    return reading
