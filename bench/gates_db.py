"""A console's gates in a DuckDB file, loaded as the console source loads them: for the benches that need only the
gates and the views over them (bench.cleanup, bench.cleanup_corpus), without a twin served or a run.

Shared by those entry points, which import no other entry point (bench/results_md.py).
"""

from __future__ import annotations

from pathlib import Path

import dlt


def load_gates(database: Path, gates: list[dict], stamp: str, pipeline_name: str, pipelines_dir: Path) -> None:
    """`gates` loaded into `database` as the console source loads them, with one extraction at `stamp` (the views'
    "as of"), the views applied: all the cleanup benches need of a console."""
    from gatehouse.pipelines.warehouse.destination import Destination

    pipeline = dlt.pipeline(
        pipeline_name,
        destination=dlt.destinations.duckdb(str(database)),
        dataset_name="console",
        pipelines_dir=str(pipelines_dir),
    )
    pipeline.run(
        [
            dlt.resource(gates, name="gates", primary_key="id", write_disposition={"disposition": "merge", "strategy": "scd2"}),
            dlt.resource(
                [{"extraction_id": "bench", "service_time": stamp, "started_at": stamp, "finished_at": stamp}],
                name="extraction_runs",
                primary_key="extraction_id",
                write_disposition="append",
            ),
        ]
    )
    Destination.from_flags(None, database).views.apply()
