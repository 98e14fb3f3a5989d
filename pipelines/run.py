"""`gatehouse run`: extract the console into DuckDB (or any dlt destination), then refresh the views."""

from __future__ import annotations

import argparse
import contextlib
import gc
import logging
import multiprocessing
import os
import shutil
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Optional, Sequence

import dlt
from dlt.common.configuration.exceptions import ConfigFieldMissingException, ConfigurationValueError, LookupTraces
from dlt.common.destination.exceptions import UnknownDestinationModule
from dlt.common.runners.pool_runner import get_default_start_method
from dlt.pipeline.exceptions import PipelineStepFailed

from pipelines.errors import GatehouseError
from pipelines.logs import redacting_filter
from pipelines.recovery import settle_committed_jobs
from pipelines.views import apply_views
from sources.console import console, settings
from sources.console.errors import AuthError, ConsoleError, ForbiddenError, TransportError
from sources.console.extraction import ExtractionReport

log = logging.getLogger("gatehouse.run")

PIPELINE_NAME = "gatehouse"
DATASET_NAME = "console"
DEFAULT_DUCKDB = Path("gatehouse.duckdb")
SCD2_TABLES = ("gates", "dynamic_configs")
# The tables a user can pick with --resources (the id resources feed them and are not tables).
SELECTABLE = ("gates", "dynamic_configs", "qualifying_events", "holdouts", "cumulative_exposures", "ingestion_runs")
# The client counts requests by endpoint; progress shows them by resource.
RESOURCE_ENDPOINTS = {
    "gates": settings.GATES_PATH,
    "dynamic_configs": settings.DYNAMIC_CONFIGS_PATH,
    "qualifying_events": settings.QUALIFYING_EVENTS_PATH,
    "holdouts": settings.HOLDOUT_PATH,
    "cumulative_exposures": settings.CUMULATIVE_EXPOSURES_PATH,
    "ingestion_runs": settings.INGESTION_RUN_PATH,
}
# Rows are normalised to parquet: dlt's default insert_values format loads about ten times slower.
LOADER_FILE_FORMAT = "parquet"
# Garbage-collector thresholds during a run (Python's default is 700, 10, 10): see batch_garbage_collection.
RUN_GC_THRESHOLDS = (10_000, 10, 10)
# Extract-file writer: items buffered per table before a write, and the size a file is rotated at.
EXTRACT_BUFFER_ITEMS = 500
EXTRACT_FILE_BYTES = 2_000_000

EPILOG = """\
examples:
  gatehouse run --demo                       # against a local console twin, no account needed
  gatehouse run                              # ./gatehouse.duckdb, settings from .dlt/ or SOURCES__CONSOLE__*
  gatehouse run --duckdb /data/flags.duckdb --resources gates,dynamic_configs
  gatehouse run --destination motherduck     # credentials from dlt config, e.g. DESTINATION__MOTHERDUCK__CREDENTIALS
  gatehouse run --full-refresh               # drop the console tables and state, load everything again

settings ([sources.console] in .dlt/config.toml and .dlt/secrets.toml, or environment variables):
  base_url            SOURCES__CONSOLE__BASE_URL
  api_key             SOURCES__CONSOLE__API_KEY          (secret)
  experiment_ids      SOURCES__CONSOLE__EXPERIMENT_IDS   JSON list, e.g. '["exp_a","exp_b"]'
  holdout_ids         SOURCES__CONSOLE__HOLDOUT_IDS      JSON list
  ingestion_run_ids   SOURCES__CONSOLE__INGESTION_RUN_IDS JSON list
"""


@dataclass
class RunOptions:
    destination: str = "duckdb"
    duckdb_path: Path = DEFAULT_DUCKDB
    resources: Optional[list[str]] = None
    full_refresh: bool = False
    pipelines_dir: Optional[Path] = None
    progress: bool = True
    # Passed to the source instead of dlt's config lookup (the demo and tests use them).
    source_args: dict[str, Any] = field(default_factory=dict)


@dataclass
class RunSummary:
    rows_loaded: dict[str, int]
    new_versions: dict[str, int]
    retired: dict[str, int]
    skipped: list[tuple[str, str, str]]
    schema_changes: list[str]
    requests: int
    retries: int
    throttled: int
    throttle_wait_s: float
    wall_time_s: float
    load_id: Optional[str]

    def lines(self) -> list[str]:
        out = [f"loaded in {self.wall_time_s:.1f}s with {self.requests} requests"
               f" ({self.retries} retried, {self.throttled} throttled, {self.throttle_wait_s:.1f}s waiting on the rate limit)"]
        # Nested tables (rules, histories...) are summed into their root table's line.
        roots: dict[str, list[int]] = {}
        for table, rows in self.rows_loaded.items():
            counts = roots.setdefault(table.split("__")[0], [0, 0])
            counts[0 if "__" not in table else 1] += rows
        width = max((len(t) for t in roots), default=10)
        for table, (rows, nested) in sorted(roots.items()):
            extra = f" (+{nested} nested)" if nested else ""
            if table in self.new_versions:
                extra += f", {self.new_versions[table]} new versions, {self.retired.get(table, 0)} retired"
            out.append(f"  {table:<{width}}  {rows:>7} rows{extra}")
        for table, id_, reason in self.skipped:
            out.append(f"  skipped {table} {id_}: {reason}")
        for change in self.schema_changes:
            out.append(f"  schema: {change}")
        return out


def pipelines_dir_for(options: RunOptions) -> Optional[Path]:
    if options.pipelines_dir is not None:
        return options.pipelines_dir
    if options.destination == "duckdb":
        # State lives beside the database it describes, so another database never inherits it.
        db = options.duckdb_path.resolve()
        return db.parent / f".{db.name}.dlt"
    return None


# DuckDB names a file's catalog after the file: these names would clash with the schemas.
RESERVED_DUCKDB_NAMES = (DATASET_NAME, "analytics")


def make_pipeline(options: RunOptions) -> dlt.Pipeline:
    pipelines_dir = pipelines_dir_for(options)
    if options.destination == "duckdb":
        if options.duckdb_path.stem in RESERVED_DUCKDB_NAMES:
            raise GatehouseError(
                f"--duckdb {options.duckdb_path}: pick another file name; DuckDB would name its catalog"
                f" '{options.duckdb_path.stem}', the name of a gatehouse schema"
            )
        if pipelines_dir is not None and pipelines_dir.exists() and not options.duckdb_path.exists():
            # The database was removed: its old state would make incremental resources skip data.
            log.info("database %s is new: starting from empty state", options.duckdb_path)
            shutil.rmtree(pipelines_dir)
        destination: Any = dlt.destinations.duckdb(str(options.duckdb_path))
    else:
        destination = options.destination
    return dlt.pipeline(
        pipeline_name=PIPELINE_NAME,
        destination=destination,
        dataset_name=DATASET_NAME,
        pipelines_dir=str(pipelines_dir) if pipelines_dir else None,
    )


def root_cause(err: BaseException) -> BaseException:
    """The innermost ConsoleError (or config error) that dlt wrapped on the way up."""
    seen = set()
    current: Optional[BaseException] = err
    found: BaseException = err
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, (ConsoleError, ConfigFieldMissingException, ConfigurationValueError)):
            found = current
        current = current.__cause__ or current.__context__
    return found


def setting_hint(field: str) -> str:
    return f"sources.console.{field} (SOURCES__CONSOLE__{field.upper()})"


def missing_setting_keys(traces: Any) -> list[str]:
    """The environment-variable name of each missing setting, as the docs spell it
    (SOURCES__CONSOLE__API_KEY, DESTINATION__POSTGRES__CREDENTIALS__PASSWORD...)."""
    keys = []
    for field_traces in traces.values():
        nested = [t for t in field_traces if isinstance(t, LookupTraces)]
        if nested:
            keys += missing_setting_keys(nested[0].traces)
            continue
        conventional = [
            t.key for t in field_traces
            if "environment" in t.provider.lower() and t.key.startswith(("SOURCES__", "DESTINATION__"))
            # dlt also tries SOURCES__CONSOLE__CONSOLE__... (section and source name) first
            and len(set(parts := t.key.split("__"))) == len(parts)
        ]
        if conventional:
            keys.append(max(conventional, key=len))
    return sorted(dict.fromkeys(keys))


def explain(err: BaseException) -> str:
    """One line that says which setting or id to fix."""
    cause = root_cause(err)
    if isinstance(cause, ConfigFieldMissingException):
        where = ", ".join(f"{env.lower().replace('__', '.')} ({env})" for env in missing_setting_keys(cause.traces))
        hint = "; or try `gatehouse run --demo`" if "SOURCES__CONSOLE__" in where else ""
        return f"missing setting {where or cause.spec_name}: set it in .dlt/config.toml, .dlt/secrets.toml or the environment{hint}"
    if isinstance(cause, ConfigurationValueError):
        field = getattr(cause, "field_name", None)
        if field and field.endswith("_ids"):
            return f"{setting_hint(field)} must be a JSON list of ids, e.g. '[\"id_a\", \"id_b\"]'"
        if field:
            return f"invalid value for {setting_hint(field)}: {cause}"
        return f"invalid setting: {cause}"
    if isinstance(cause, AuthError):
        return f"{cause}; or try `gatehouse run --demo`"
    if isinstance(cause, ForbiddenError):
        return f"{cause}; set {setting_hint('api_key')} to a key that has it"
    if isinstance(cause, TransportError):
        return f"{cause}; check {setting_hint('base_url')}"
    if isinstance(cause, ConsoleError):
        return str(cause)
    # dlt's step errors put the useful part (e.g. `pip install "dlt[postgres]"`) on later lines.
    inner = getattr(err, "exception", None) or err
    text = " ".join(line.strip() for line in str(inner).splitlines() if line.strip())
    if isinstance(err, PipelineStepFailed) and err.step == "sync" and err.pipeline.destination is not None:
        # the step that first connects to the destination: the driver's message alone does not say which
        text = f"destination {err.pipeline.destination.destination_name}: {text}"
    return text[:500] or type(err).__name__


class Progress:
    """One line per interval: per resource pages and items, and the requests so far."""

    def __init__(self, report: ExtractionReport, interval_s: float = 2.0, enabled: bool = True) -> None:
        self.report, self.interval_s, self.enabled = report, interval_s, enabled
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="gatehouse-progress", daemon=True)
        self._tty = sys.stderr.isatty()

    def line(self) -> str:
        stats = self.report.request_stats()
        requests, retries = stats.get("by_endpoint", {}), stats.get("retries_by_endpoint", {})
        parts = []
        for name, progress in self.report.snapshot().items():
            endpoint = RESOURCE_ENDPOINTS.get(name, "")
            pages = f" {progress.pages} pages" if progress.pages else ""
            parts.append(f"{name}: {progress.items} items{pages}, {requests.get(endpoint, 0)} requests,"
                         f" {retries.get(endpoint, 0)} retries")
        return (f"{stats.get('requests', 0)} requests, {stats.get('throttled', 0)} throttled | " + "; ".join(parts))

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            if self._tty:
                sys.stderr.write("\r\033[K" + self.line()[:200])
                sys.stderr.flush()
            else:
                log.info("progress: %s", self.line())

    def __enter__(self) -> "Progress":
        if self.enabled:
            self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self.enabled:
            self._thread.join()
            if self._tty:
                sys.stderr.write("\r\033[K")


def schema_columns(pipeline: dlt.Pipeline) -> dict[str, dict[str, str]]:
    try:
        schema = pipeline.default_schema
    except Exception:  # no schema before the first run
        return {}
    return {
        name: {col: str(spec.get("data_type")) for col, spec in table.get("columns", {}).items()}
        for name, table in schema.tables.items()
        if not name.startswith("_dlt")
    }


def fields_gone(pipeline: dlt.Pipeline, fields_seen: dict[str, set[str]]) -> list[str]:
    """Columns of a table whose field the console did not send at all this run.

    dlt keeps such columns (filled with nulls from now on), so without this a field the console
    dropped would go unnoticed. Nested objects count by their top-level field (owner__owner_id: owner).
    """
    try:
        schema = pipeline.default_schema
    except Exception:
        return []
    gone = []
    for table, seen in sorted(fields_seen.items()):
        if not seen or table not in schema.tables:
            continue
        sent = {schema.naming.normalize_identifier(key) for key in seen}
        for column, spec in schema.tables[table]["columns"].items():
            if column.startswith("_dlt") or "__v_" in column or spec.get("x-normalizer", {}).get("seen-null-first"):
                continue
            if column.split("__")[0] not in sent:
                gone.append(f"field no longer sent {table}.{column} (kept, null from now on)")
    return gone


def schema_changes(before: dict[str, dict[str, str]], after: dict[str, dict[str, str]]) -> list[str]:
    if not before:
        return []
    changes = []
    for table, columns in sorted(after.items()):
        if table not in before:
            changes.append(f"new table {table}")
            continue
        for column, data_type in columns.items():
            if column not in before[table]:
                variant = "__v_" in column
                what = "type change (variant column)" if variant else "new column"
                changes.append(f"{what} {table}.{column} ({data_type})")
    for table, columns in sorted(before.items()):
        if table in after:
            for column in columns:
                if column not in after[table]:
                    changes.append(f"column gone {table}.{column}")
    return changes


def scd2_counts(pipeline: dlt.Pipeline, load_id: Optional[str], started_at: float) -> tuple[dict[str, int], dict[str, int]]:
    """New versions written by this load and entities retired by it, per SCD2 table."""
    new_versions: dict[str, int] = {}
    retired: dict[str, int] = {}
    if load_id is None:
        return new_versions, retired
    with contextlib.suppress(Exception), pipeline.sql_client() as client:
        for table in SCD2_TABLES:
            name = client.make_qualified_table_name(table)
            rows = client.execute_sql(f"select count(*) from {name} where _dlt_load_id = %s", load_id)
            new_versions[table] = rows[0][0]
            # A retired entity: a version closed by this load with no open version left.
            rows = client.execute_sql(
                f"select count(distinct g.id) from {name} g where g._dlt_valid_to is not null"
                f" and g._dlt_valid_to >= to_timestamp(%s)"
                f" and not exists (select 1 from {name} a where a.id = g.id and a._dlt_valid_to is null)",
                started_at - 1,
            )
            retired[table] = rows[0][0]
    return new_versions, retired


@contextlib.contextmanager
def batch_garbage_collection() -> Iterator[None]:
    """Fewer, cheaper garbage collections while a run makes and drops millions of short-lived rows.

    Rows are freed by reference counting; the collector only hunts cycles, yet with Python's defaults
    it ran a full collection seven times in the large twin's normalise step, rescanning every live
    object each time: about 1.2 s of 9.3 s (bench/RESULTS.md). Objects alive before the run (modules,
    dlt's schemas) are frozen out of the scans and young collections come every 10,000 allocations
    instead of 700; peak memory measured the same.
    """
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(*RUN_GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


def normalize_workers() -> int:
    """Two normalize processes where forking them is cheap, else one.

    dlt's relational normaliser is pure Python, so a second process is the only way to use a second
    core: on the large twin the normalise step went from 7.2 to 5.6 s (bench medians). Forked
    workers share the parent's pages and start at once; where dlt would spawn them instead (Airflow,
    Dagster, Prefect, or a run from a thread that is not the main one) each would import dlt again and
    hold its own copy, costing seconds and memory that a run of this size does not win back.
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    if cores < 2:
        return 1
    return 2 if get_default_start_method(multiprocessing.get_start_method()) == "fork" else 1


def run_defaults() -> dict[str, str]:
    """dlt settings gatehouse runs with unless the user set them (environment or .dlt/config.toml)."""
    return {
        "extract.next_item_mode": "fifo",
        "runtime.log_level": "ERROR",
        # Arrow rows (cumulative_exposures) carry dlt's row and load ids like every other table.
        "normalize.parquet_normalizer.add_dlt_id": "true",
        "normalize.parquet_normalizer.add_dlt_load_id": "true",
        # The extract files are temporary and local: compressing them cost CPU twice, on the main
        # thread while requests were in flight and again in normalize. Small buffers keep memory to
        # about a page per table; files of a couple of MB let normalize workers share the work evenly.
        "sources.data_writer.disable_compression": "true",
        "sources.data_writer.buffer_max_items": str(EXTRACT_BUFFER_ITEMS),
        "sources.data_writer.file_max_bytes": str(EXTRACT_FILE_BYTES),
        "normalize.workers": str(normalize_workers()),
        # DuckDB takes 80% of RAM and every core by default; capped, its SCD2 merges spill to disk
        # instead (measured on the large twin: peak 514 MB uncapped at 256 MB, 430 MB at 128 MB and
        # one thread, for about a second more of load time).
        "destination.duckdb.credentials.global_config": '{"memory_limit": "128MB", "threads": 1}',
    }


def apply_run_defaults() -> None:
    for key, value in run_defaults().items():
        if dlt.config.get(key) is None:
            os.environ[key.upper().replace(".", "__")] = value


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

    try:
        pipeline = make_pipeline(options)
    except UnknownDestinationModule as err:
        raise GatehouseError(
            f"--destination {options.destination}: not a dlt destination (e.g. duckdb, motherduck, snowflake,"
            " bigquery, databricks, postgres, filesystem)"
        ) from err
    before = schema_columns(pipeline)
    try:
        if pipeline.has_pending_data:
            finish_interrupted_load(pipeline)
        with Progress(report, enabled=options.progress), batch_garbage_collection():
            info = pipeline.run(
                source,
                loader_file_format=LOADER_FILE_FORMAT,
                refresh="drop_sources" if options.full_refresh else None,
            )
    except PipelineStepFailed as err:
        raise GatehouseError(explain(err)) from err
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
    if options.destination == "duckdb":
        apply_views(options.duckdb_path)
    return summary


def finish_interrupted_load(pipeline: dlt.Pipeline) -> None:
    """Completes what a killed or failed run left in the pipeline, then the run extracts as usual."""
    log.warning("a previous run left a load unfinished: completing it first")
    settle_committed_jobs(pipeline)
    pipeline.normalize()
    pipeline.load()


@contextlib.contextmanager
def demo_console() -> Iterator[dict[str, Any]]:
    """A small console twin on a free loopback port, and the source settings that point at it."""
    from console_twin import ConsoleTwin

    twin = ConsoleTwin(size="small")
    with twin.serve() as base_url:
        yield {
            "base_url": base_url,
            "api_key": twin.settings.api_key,
            "experiment_ids": list(twin.experiment_ids),
            "ingestion_run_ids": list(twin.ingestion_run_ids),
        }


def handle(args: argparse.Namespace) -> int:
    resources = [r.strip() for r in args.resources.split(",") if r.strip()] if args.resources else None
    options = RunOptions(
        destination=args.destination,
        duckdb_path=Path(args.duckdb),
        resources=resources,
        full_refresh=args.full_refresh,
        progress=not args.no_progress,
    )
    with demo_console() if args.demo else contextlib.nullcontext({}) as demo_args:
        if args.demo:
            print(f"demo: console twin at {demo_args['base_url']}", file=sys.stderr)
        options.source_args = dict(demo_args)
        summary = run_extraction(options)
    target = options.duckdb_path if options.destination == "duckdb" else options.destination
    print(f"gatehouse: {target}")
    for line in summary.lines():
        print(line)
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "run",
        help="extract the console into DuckDB (or any dlt destination)",
        description="Extract gates, dynamic configs, holdouts, qualifying events, cumulative exposures and"
        " ingestion runs incrementally, then refresh the analysis views.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--demo", action="store_true", help="run against a local console twin (no account needed)")
    parser.add_argument("--duckdb", default=str(DEFAULT_DUCKDB), metavar="PATH", help="DuckDB file (default: %(default)s)")
    parser.add_argument("--destination", default="duckdb", metavar="NAME",
                        help="any dlt destination name (motherduck, snowflake, bigquery, databricks, postgres, filesystem...);"
                        " its credentials come from dlt config")
    parser.add_argument("--resources", metavar="A,B", help=f"load only these tables: {', '.join(SELECTABLE)}")
    parser.add_argument("--full-refresh", action="store_true", help="drop the console tables and state first")
    parser.add_argument("--no-progress", action="store_true", help="no progress lines while running")
    parser.set_defaults(handler=handle)
