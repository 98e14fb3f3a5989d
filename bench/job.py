"""One measured job in its own process: `python -m bench.job SPEC.json RESULT.json`.

The spec names the job (`gatehouse`, or `rest_api` with a variant), the twin's address and the ids
to follow; the result holds the job's own view: wall time of the run, rows per table, step timings
(gatehouse: its run summary's, as it runs dlt's steps one by one; rest_api: dlt's trace), and for
gatehouse its run summary. Peak memory and the request counts are measured from
outside (the parent process and the twin), never by the job itself.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import psutil

PROCESS_STARTED = psutil.Process().create_time()


def step_timings(trace: Any) -> dict[str, float]:
    """Seconds per dlt step (extract, normalize, load) of the last run."""
    timings: dict[str, float] = {}
    for step in getattr(trace, "steps", None) or []:
        if step.started_at is not None and step.finished_at is not None:
            timings[step.step] = (step.finished_at - step.started_at).total_seconds()
    return timings


def step_starts(trace: Any, process_started: float) -> dict[str, float]:
    """When each dlt step started, in seconds since the job's process started (to place memory peaks)."""
    return {
        step.step: step.started_at.timestamp() - process_started
        for step in getattr(trace, "steps", None) or []
        if step.started_at is not None
    }


def table_rows(trace: Any) -> dict[str, int]:
    info = getattr(trace, "last_normalize_info", None)
    counts = dict(info.row_counts) if info is not None else {}
    return {table: rows for table, rows in counts.items() if not table.startswith("_dlt")}


def run_gatehouse(spec: dict[str, Any]) -> dict[str, Any]:

    from gatehouse.pipelines.run.steps import RunOptions, run_extraction
    from gatehouse.pipelines.warehouse.destination import Destination

    workdir = Path(spec["workdir"])
    requests, window = spec["rate_limit"]
    options = RunOptions(
        destination=Destination(duckdb_path=workdir / "gatehouse.duckdb"),
        progress=False,
        source_args={
            "base_url": spec["base_url"],
            "api_key": spec["api_key"],
            **spec["ids"],
            "rate_limit_requests": requests,
            "rate_limit_window": window,
        },
    )
    started = time.perf_counter()
    summary = run_extraction(options)
    wall = time.perf_counter() - started
    # run_extraction takes dlt's steps one by one, so dlt's trace holds only the last: the summary times them.
    monotonic_to_epoch = time.time() - time.monotonic()
    return {
        "wall_s": wall,
        "rows": summary.rows_loaded,
        "new_versions": summary.new_versions,
        "retired": summary.retired,
        "unchanged": summary.unchanged,
        # every step the run timed (sync, views and snapshot too): the tail after the load is theirs and the counts'
        "steps": dict(summary.steps),
        "step_starts": {
            step: summary.step_started[step] + monotonic_to_epoch - PROCESS_STARTED
            for step in ("extract", "normalize", "load")
            if step in summary.step_started
        },
        # time.monotonic(), as the twin's request log keeps it: the bench measures the run's tail with it
        "ended_at": summary.ended_at,
        "client": {
            "requests": summary.requests,
            "retries": summary.retries,
            "throttled": summary.throttled,
            "throttle_wait_s": summary.throttle_wait_s,
        },
    }


def run_rest_api(spec: dict[str, Any]) -> dict[str, Any]:
    from bench.rest_api_alternative import DATASET_NAME, PIPELINE_NAME, VARIANTS, alternative_source, rest_api_config

    variant = VARIANTS[spec["variant"]]
    # Worker settings are dlt configuration: they must be in place before dlt resolves them.
    os.environ.update(variant.environment)
    import dlt

    workdir = Path(spec["workdir"])
    config = rest_api_config(spec["base_url"], spec["api_key"], page_size=variant.page_size, **spec["ids"])
    pipeline = dlt.pipeline(
        pipeline_name=PIPELINE_NAME,
        destination=dlt.destinations.duckdb(str(workdir / "rest_api.duckdb")),
        dataset_name=DATASET_NAME,
        pipelines_dir=str(workdir / "pipelines"),
    )
    started = time.perf_counter()
    pipeline.run(alternative_source(config), loader_file_format=variant.loader_file_format)
    wall = time.perf_counter() - started
    ended_at = time.monotonic()
    trace = pipeline.last_trace
    return {
        "wall_s": wall,
        "rows": table_rows(trace),
        "steps": step_timings(trace),
        "step_starts": step_starts(trace, PROCESS_STARTED),
        "ended_at": ended_at,
    }


RUNNERS = {"gatehouse": run_gatehouse, "rest_api": run_rest_api}


def main(argv: list[str] | None = None) -> int:
    spec_path, result_path = (argv if argv is not None else sys.argv[1:])[:2]
    spec = json.loads(Path(spec_path).read_text())
    os.environ.setdefault("RUNTIME__DLTHUB_TELEMETRY", "false")
    try:
        result = {"ok": True, **RUNNERS[spec["kind"]](spec)}
        code = 0
    except Exception as err:  # the parent reports a failed job and goes on with the others
        result = {
            "ok": False,
            "error": f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}",
            "traceback": traceback.format_exc()[-4000:],
        }
        code = 1
    Path(result_path).write_text(json.dumps(result, indent=2, default=str))
    return code


if __name__ == "__main__":
    raise SystemExit(main())
