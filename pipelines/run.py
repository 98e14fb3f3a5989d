"""A gatehouse run: extract the console into the destination, then refresh the analysis views.

The steps are dlt's (extract, normalise, load); this module orders them with what makes a scheduled
run trustworthy: one run at a time per pipeline, a load a killed run left half done completed first,
a DuckDB file another program holds waited for, and the views refreshed only after a good load.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any, Optional

import dlt
from dlt.common.configuration.exceptions import ConfigFieldMissingException, ConfigurationValueError
from dlt.pipeline.exceptions import PipelineStepFailed

from pipelines.destination import Destination, lock_timeout
from pipelines.drift import fields_gone, schema_changes, schema_columns
from pipelines.errors import GatehouseError
from pipelines.explain import explain
from pipelines.logs import redacting_filter
from pipelines.progress import Progress
from pipelines.recovery import settle_committed_jobs
from pipelines.summary import RunSummary, scd2_counts
from pipelines.tuning import apply_run_defaults, batch_garbage_collection
from sources.console import console
from sources.console.errors import ConsoleError
from sources.console.report import ExtractionReport

log = logging.getLogger("gatehouse.run")

# The tables a user can pick with --resources (the id resources feed them and are not tables).
SELECTABLE = ("gates", "dynamic_configs", "qualifying_events", "holdouts", "cumulative_exposures", "ingestion_runs")
# Rows are normalised to parquet: dlt's default insert_values format loads about ten times slower.
LOADER_FILE_FORMAT = "parquet"


@dataclass
class RunOptions:
    destination: Destination = field(default_factory=Destination)
    resources: Optional[list[str]] = None
    full_refresh: bool = False
    progress: bool = True
    # Seconds to wait for another run, or for a DuckDB file another program holds (None: the setting).
    lock_timeout_s: Optional[float] = None
    # Passed to the source instead of dlt's config lookup (the demo and tests use them).
    source_args: dict[str, Any] = field(default_factory=dict)


def run_extraction(options: RunOptions) -> RunSummary:
    started = time.monotonic()
    started_wall = time.time()
    apply_run_defaults()
    redacting_filter.add(options.source_args.get("api_key"))
    report = ExtractionReport()
    try:
        source = console(report=report, **options.source_args)
    except (ConfigFieldMissingException, ConfigurationValueError, ConsoleError) as err:
        raise GatehouseError(explain(err)) from err
    if options.resources:
        unknown = sorted(set(options.resources) - set(SELECTABLE))
        if unknown:
            raise GatehouseError(f"unknown resource(s) {', '.join(unknown)}; choose from {', '.join(SELECTABLE)}")
        source = source.with_resources(*options.resources, "extraction_runs")

    destination = options.destination
    timeout_s = lock_timeout(options.lock_timeout_s)
    with destination.exclusive(timeout_s):
        pipeline = destination.pipeline()
        before = schema_columns(pipeline)
        try:
            destination.wait_until_free(timeout_s)
            if pipeline.has_pending_data:
                finish_interrupted_load(pipeline)
            with Progress(report, enabled=options.progress), batch_garbage_collection():
                info = pipeline.run(
                    source,
                    loader_file_format=LOADER_FILE_FORMAT,
                    refresh="drop_sources" if options.full_refresh else None,
                )
        except PipelineStepFailed as err:
            info = load_when_free(destination, pipeline, err, timeout_s)
        except ConsoleError as err:
            raise GatehouseError(explain(err)) from err
        finally:
            report.close()

        load_id = info.loads_ids[-1] if info.loads_ids else None
        trace = pipeline.last_trace
        rows = dict(trace.last_normalize_info.row_counts) if trace and trace.last_normalize_info else {}
        rows = {t: n for t, n in rows.items() if not t.startswith("_dlt")}
        new_versions, retired = scd2_counts(pipeline, load_id, started_wall)
        stats = report.request_stats()
        summary = RunSummary(
            rows_loaded=rows,
            new_versions=new_versions,
            retired=retired,
            skipped=[(s.table, s.id, s.reason) for s in report.skipped],
            schema_changes=schema_changes(before, schema_columns(pipeline)) + fields_gone(pipeline, report.fields_seen),
            requests=stats.get("requests", 0),
            retries=stats.get("retries", 0),
            throttled=stats.get("throttled", 0),
            throttle_wait_s=stats.get("throttle_wait_s", 0.0),
            wall_time_s=time.monotonic() - started,
            load_id=load_id,
        )
        destination.refresh_views(timeout_s)
    return summary


def load_when_free(destination: Destination, pipeline: dlt.Pipeline, err: PipelineStepFailed, timeout_s: float) -> Any:
    """A load refused because another program took the DuckDB file mid-run: wait for it, then load.

    What was extracted stays in the pipeline's folder either way; if the wait runs out, the next run
    loads it first (finish_interrupted_load).
    """
    if err.step != "load" or destination.held_by(err) is None:
        raise GatehouseError(explain(err)) from err
    destination.wait_until_free(timeout_s, extracted=True)
    try:
        return pipeline.load()
    except PipelineStepFailed as again:
        holder = destination.held_by(again)
        raise GatehouseError(destination.held_message(holder, timeout_s, extracted=True) if holder else explain(again)) from again


def finish_interrupted_load(pipeline: dlt.Pipeline) -> None:
    """Completes what a killed or failed run left in the pipeline, then the run extracts as usual."""
    log.warning("a previous run left a load unfinished: completing it first")
    settle_committed_jobs(pipeline)
    pipeline.normalize()
    pipeline.load()
