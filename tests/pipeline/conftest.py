"""Runs of `gatehouse run` against the console twin over loopback, and readers of what they loaded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from gatehouse.console_twin import ConsoleTwin
from gatehouse.pipelines.run.steps import RunOptions, RunSummary, run_extraction
from gatehouse.pipelines.warehouse.destination import Destination
from tests.conftest import made_once
from tests.drills.conftest import copy_database, load

# The organisation most tests of runs load: the small one of seed 3.
TWIN_SEED = 3


def make_twin() -> ConsoleTwin:
    return ConsoleTwin(size="small", seed=TWIN_SEED)


def seed_reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One fault-free run of a fresh `make_twin()` (its DuckDB file, pipeline state beside it), made once per
    `pytest` command however many workers ask: copied (tests/drills/conftest.py `copy_database`) by a test whose
    subject is what comes after a first run, never changed (a first load costs a second of processor time)."""

    def make(folder: Path) -> Path:
        twin, path = make_twin(), folder / "reference.duckdb"
        with twin.serve() as base_url:
            load(twin, base_url, path)
        return path

    return made_once(tmp_path_factory, f"twin-small-seed-{TWIN_SEED}", make)


@pytest.fixture(scope="session")
def seed_reference_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return seed_reference(tmp_path_factory)


class Loader:
    """One DuckDB file and its pipeline state, loaded repeatedly from one twin."""

    def __init__(self, twin: ConsoleTwin, base_url: str, workdir: Path) -> None:
        self.twin, self.base_url, self.workdir = twin, base_url, workdir
        self.duckdb_path = workdir / "gatehouse.duckdb"
        workdir.mkdir(parents=True, exist_ok=True)

    def source_args(self, **overrides: Any) -> dict[str, Any]:
        args = {
            "base_url": self.base_url,
            "api_key": self.twin.settings.api_key,
            "experiment_ids": self.twin.experiment_ids,
            "ingestion_run_ids": self.twin.ingestion_run_ids,
        }
        args.update(overrides)
        return args

    def run(self, **options: Any) -> RunSummary:
        source_args = self.source_args(**options.pop("source_args", {}))
        return run_extraction(
            RunOptions(
                destination=Destination(duckdb_path=self.duckdb_path, pipelines_dir=self.workdir / "pipelines"),
                progress=False,
                source_args=source_args,
                **options,
            )
        )

    def start_loaded(self, reference: Path) -> None:
        """The database and pipeline state as a first fault-free `run()` of a fresh twin leaves them: a copy of
        `seed_reference`, for a test whose subject is the runs after it."""
        copy_database(reference, self.duckdb_path, self.base_url)
        state = self.duckdb_path.with_name(f".{self.duckdb_path.name}.dlt")
        state.rename(self.workdir / "pipelines")

    def query(self, sql: str, *params: Any) -> list[tuple]:
        with duckdb.connect(str(self.duckdb_path), read_only=True) as con:
            return con.execute(sql, list(params)).fetchall()


@pytest.fixture
def twin() -> ConsoleTwin:
    return make_twin()


@pytest.fixture
def loader(twin: ConsoleTwin, tmp_path: Path) -> Iterator[Loader]:
    with twin.serve() as base_url:
        yield Loader(twin, base_url, tmp_path)
