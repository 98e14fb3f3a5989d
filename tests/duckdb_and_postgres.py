"""A test that runs `gatehouse` commands once into a DuckDB file and once (marked slow) into a database of the suite's
real PostgreSQL server, with the same assertions on both."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.drills.conftest import Query, duckdb_destination, postgres_destination

Destination = Callable[[Path, pytest.MonkeyPatch, pytest.FixtureRequest], tuple[list[str], Query]]


def on_duckdb_and_postgres(database: str) -> pytest.MarkDecorator:
    """Parametrizes the test's `destination` (`run_into`) over DuckDB and PostgreSQL database `database`."""
    return pytest.mark.parametrize(
        "destination",
        [duckdb_destination, pytest.param(postgres_destination(database), marks=pytest.mark.slow)],
        ids=["duckdb", "postgres"],
    )


def run_into(
    destination: Destination, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> tuple[list[str], Query]:
    """Commands run in `tmp_path`, dlt's data folder below it (never the user's); the destination's flags for them
    and a query of what they load."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DLT_DATA_DIR", str(tmp_path / "dlt"))
    return destination(tmp_path, monkeypatch, request)
