"""The hand-built console (`console_db`, tests/conftest.py) and the same on PostgreSQL; helpers to read them."""

from __future__ import annotations

import math
import os
import shutil
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path

import dlt
import duckdb
import pytest

from gatehouse.pipelines.warehouse.views import apply_views
from tests.views.console_dataset import console_pipeline, load_console


@pytest.fixture
def writable_db(console_db, tmp_path) -> Path:
    """A copy of the hand-built console for tests that change parameters."""
    copy = tmp_path / "hand_built_copy.duckdb"
    shutil.copy(console_db, copy)
    return copy


@pytest.fixture(scope="module")
def hand_built_reader(console_db, tmp_path_factory) -> Iterator[duckdb.DuckDBPyConnection]:
    """The hand-built console opened once for a module whose tests each read every view, read only: opening the
    file cost about as much as a view's query. A copy of the module's own, so that a test that writes
    `console_db` itself (applying the views again) never meets this open connection's different configuration."""
    copy = tmp_path_factory.mktemp("hand_built_reader") / console_db.name
    shutil.copyfile(console_db, copy)
    with duckdb.connect(str(copy), read_only=True) as connection:
        yield connection


def query(database: Path, sql: str, parameters=None) -> list[tuple]:
    with duckdb.connect(str(database), read_only=True) as connection:
        return connection.execute(sql, parameters or []).fetchall()


def assert_rows(actual: list[tuple], expected: list[tuple], rel: float = 1e-9) -> None:
    """Row by row, value by value; floats to `rel` (the expected ones were worked out by hand)."""
    assert len(actual) == len(expected), f"{len(actual)} rows, expected {len(expected)}:\n{actual}"
    for number, (got, want) in enumerate(zip(actual, expected)):
        assert len(got) == len(want), f"row {number}: {got}"
        for column, (g, w) in enumerate(zip(got, want)):
            if isinstance(w, float) and not isinstance(g, (date, datetime)):
                assert g is not None and math.isclose(g, w, rel_tol=rel, abs_tol=1e-12), (
                    f"row {number} column {column}: {g} != {w}\n{got}"
                )
            else:
                assert g == w and type(g) is type(w) or (g == w and isinstance(w, (int, float))), (
                    f"row {number} column {column}: {g!r} != {w!r}\n{got}"
                )


@pytest.fixture(scope="session")
def postgres_console(postgres_server, tmp_path_factory) -> dlt.Pipeline:
    """The same hand-built console loaded with dlt into a real PostgreSQL database, views applied there."""
    os.environ.setdefault("RUNTIME__LOG_LEVEL", "ERROR")
    work = tmp_path_factory.mktemp("hand_built_console_postgres")
    destination = dlt.destinations.postgres(credentials=postgres_server.database("hand_built_console"))
    load_console(work / "hand_built_postgres.duckdb", work, destination=destination)
    pipeline = console_pipeline(work / "hand_built_postgres.duckdb", work, destination)
    with pipeline.sql_client() as client:
        apply_views(client)
    return pipeline
