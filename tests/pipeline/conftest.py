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

    def query(self, sql: str, *params: Any) -> list[tuple]:
        with duckdb.connect(str(self.duckdb_path), read_only=True) as con:
            return con.execute(sql, list(params)).fetchall()


@pytest.fixture
def twin() -> ConsoleTwin:
    return ConsoleTwin(size="small", seed=3)


@pytest.fixture
def loader(twin: ConsoleTwin, tmp_path: Path) -> Iterator[Loader]:
    with twin.serve() as base_url:
        yield Loader(twin, base_url, tmp_path)
