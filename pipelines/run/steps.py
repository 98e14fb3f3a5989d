"""A gatehouse run: extract the console into the destination, then refresh the analysis views.

The steps are dlt's (extract, normalise, load); this module orders them with what makes a scheduled
run trustworthy: one run at a time per pipeline, a dataset that holds another console refused before
any request, a load a killed run left half done completed first, a DuckDB file another program holds
waited for, and the views refreshed and the readers' snapshot published only after a good load.
`run_extraction` is the run, one step a line; `Run` carries the options and what each step made.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import dlt
from dlt.common.configuration.exceptions import ConfigFieldMissingException, ConfigurationValueError
from dlt.common.destination import TLoaderFileFormat
from dlt.common.runtime import signals
from dlt.sources import DltSource

from gatehouse.pipelines.alerts.dispatch import alert_after_run, log_outcome
from gatehouse.pipelines.errors import GatehouseError, explain
from gatehouse.pipelines.logs import redacting_filter
from gatehouse.pipelines.models import graph
from gatehouse.pipelines.projects import project_settings
from gatehouse.pipelines.run.checks import check_console, check_demo_datasets, check_demo_name, check_resources
from gatehouse.pipelines.run.drift import current_schema, fields_gone, schema_changes, schema_columns
from gatehouse.pipelines.run.options import SELECTABLE, RunOptions
from gatehouse.pipelines.run.progress import Progress
from gatehouse.pipelines.run.recovery import settle_committed_jobs
from gatehouse.pipelines.run.summary import RunSummary, rows_in_database, scd2_counts
from gatehouse.pipelines.run.tally import RunTally
from gatehouse.pipelines.run.tuning import (
    apply_run_defaults,
    batch_garbage_collection,
    extracted_bytes,
    normalize_workers_for,
    release_freed_memory,
)
from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.pipelines.warehouse.lock import lock_timeout
from gatehouse.pipelines.warehouse.snapshot import Published
from gatehouse.sources.console import console, load_phases
from gatehouse.sources.console.client import ClientOptions, ConsoleClient
from gatehouse.sources.console.counts import ExtractionCounts
from gatehouse.sources.console.errors import ConsoleError
from gatehouse.sources.console.settings import resolve_settings

__all__ = ["SELECTABLE", "RunOptions", "RunSummary", "RunTally", "Run", "run_extraction"]

log = logging.getLogger("gatehouse.run")

# Rows are normalised to parquet: dlt's default insert_values format loads row by row as SQL text, far slower.
LOADER_FILE_FORMAT: TLoaderFileFormat = "parquet"
# Imported by dlt's Parquet writer on its first row (see Run.extract).
LAST_PHASE_IMPORTS = ("pandas", "dlt.common.libs.pyarrow")


def run_extraction(options: RunOptions, tally: RunTally | None = None) -> RunSummary:
    """One console's run, step by step (docs/architecture.md, "One run, step by step"): the run lock, the console
    check, the run's start, each load phase extracted, normalised and loaded, the counts, the views, the readers'
    snapshot, then with `options.alerts` the alerts, which tell what is new after a good load and the failure after a
    failed one. `tally`: the caller's, to read what the run did when it fails (several projects)."""
    with failure_alerted(options):
        run = Run.begin(options, tally)
        with run.locked():
            run.check_console()
            with run.dlt_steps():
                run.start()
                with run.progress():
                    for phase in run.phases():
                        run.extract(phase)
                        with run.destination.lock.writing():
                            run.normalise()
                            run.load(phase)
            with run.destination.lock.writing(), kept_after_load():
                run.count()
                run.refresh_views()
                run.publish_snapshot()
    return run.alert(run.summary())


@contextlib.contextmanager
def failure_alerted(options: RunOptions) -> Iterator[None]:
    """With `options.alerts`, a run's failure told to the alert channels, then raised as it was."""
    try:
        yield
    except (GatehouseError, ConsoleError) as err:
        if options.alerts:
            log_outcome(alert_after_run(options.destination, options.lock_timeout_s, run_error=str(err)))
        raise


@contextlib.contextmanager
def kept_after_load() -> Iterator[None]:
    """The steps after the load (the counts, the views, the readers' snapshot): a failure is one line that says the
    load is kept, as it is (the next run, or `gatehouse views`, applies the views again)."""
    try:
        yield
    except GatehouseError:
        raise
    except Exception as err:
        log.debug("a step after the load failed", exc_info=True)
        raise GatehouseError(
            f"{explain(err)} (after the load, which is kept; the next run or `gatehouse views`"
            " applies the views and publishes the snapshot again)"
        ) from err


@dataclass
class Run:
    """One console's run: its options, and what each step made that the next one reads."""

    options: RunOptions
    source: DltSource
    counts: ExtractionCounts
    tally: RunTally
    timeout_s: float
    started: float
    pipeline: dlt.Pipeline | None = None
    # the schema's columns before the run: what the run adds is translated ahead and said in the summary
    before: dict[str, dict[str, str]] = field(default_factory=dict)
    # the reads ahead the last state names have started (before the sync)
    reading: bool = False
    # the source's load phases, the bytes the last extract step wrote and what the last normalise step made
    load_phases: list[DltSource] = field(default_factory=list)
    extracted: int = 0
    normalized: Any = None
    # what the steps after the load found
    rows: dict[str, int] = field(default_factory=dict)
    new_versions: dict[str, int] = field(default_factory=dict)
    retired: dict[str, int] = field(default_factory=dict)
    snapshot: Published | None = None
    # the pipeline's schema as the last load left it
    schema: Any = None
    # the destination held open by the steps that use it one after another (`hold`), closed before the run lock
    opened: contextlib.ExitStack = field(default_factory=contextlib.ExitStack)

    @property
    def destination(self) -> Destination:
        return self.options.destination

    @classmethod
    def begin(cls, options: RunOptions, tally: RunTally | None = None) -> Run:
        """The run's source, its settings injected by dlt from `[sources.console]` (or a project's section), and what
        it refuses before anything is locked: an unknown table, the demo's file for a console and the reverse."""
        started = time.monotonic()
        apply_run_defaults()
        counts = ExtractionCounts()
        if options.resources:
            check_resources(options.resources)
        try:
            source = console_source(options, counts)
        except (ConfigFieldMissingException, ConfigurationValueError, ConsoleError) as err:
            raise GatehouseError(explain(err)) from err
        timeout_s = lock_timeout(options.lock_timeout_s)
        if options.project is None:  # several projects: checked once for them all (run_projects)
            check_demo_name(options.destination, options.demo)
        return cls(options, source, counts, tally if tally is not None else RunTally(), timeout_s, started)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """The run lock, to the end of the run. A single console's first run that fails having loaded nothing leaves
        no empty database behind (the next one starts afresh); several projects share the file, and decide it
        once, after all of them (run_projects)."""
        destination = self.destination
        new_file = self.options.project is None and destination.is_duckdb_file and not destination.duckdb_path.exists()
        done = False
        try:
            with destination.lock.exclusive(self.timeout_s), self.opened:
                yield
            done = True
        finally:
            if not done and new_file and (not self.tally.holds_data or not destination.duckdb_path.exists()):
                destination.remove_unloaded_file()

    def hold(self) -> None:
        """The destination held open from here (`Destination.held`) until `let_go`, or the end of the run."""
        self.opened.enter_context(self.destination.held(self.timeout_s))

    def let_go(self) -> None:
        self.opened.close()

    def check_console(self) -> None:
        """Before any request: the demo's file and a dataset that holds another console are never loaded over by
        mistake. The destination is held from here to the sync (`start`)."""
        with self.destination.lock.writing():
            self.hold()
            if self.options.project is None:  # several projects: checked once for them all (run_projects)
                check_demo_datasets(self.destination, self.timeout_s, self.options.demo)
            check_console(self.destination, self.counts, self.options, self.timeout_s)
            self.pipeline = self.destination.pipeline()
            self.before = schema_columns(current_schema(self.pipeline))

    @contextlib.contextmanager
    def dlt_steps(self) -> Iterator[None]:
        """Over dlt's steps: each takes Ctrl-C (and SIGTERM) as a request to stop at its next checkpoint, then fails
        with whatever that stop broke ("generator already executing"); held over all of them, the signal is known
        here, and the run ends as interrupted (KeyboardInterrupt): no failure to report, none to alert about. Any
        other failure is one line, with the tables loaded before it; views dropped on the way (a refresh, an
        interrupted load finished) are applied again, over what the database holds."""
        done = False
        try:
            with signals.intercepted_signals():
                try:
                    yield
                except GatehouseError:
                    raise
                except Exception as err:
                    if signals.was_signal_received():
                        raise KeyboardInterrupt from err
                    log.debug("the run failed", exc_info=True)
                    raise GatehouseError(explain(err) + loaded_before(self.tally, self.options.full_refresh)) from err
                finally:
                    self.counts.close()
                if signals.was_signal_received():
                    raise KeyboardInterrupt  # loaded: the rest of the run (views, snapshot) is not done
            done = True
        finally:
            if not done and self.tally.views_dropped and self.options.publish:  # several projects: once, after all
                restore_views(self.destination, self.timeout_s)

    @contextlib.contextmanager
    def progress(self) -> Iterator[None]:
        """The progress line, and fewer garbage collections, while the phases are read and loaded."""
        with Progress(self.counts, enabled=self.options.progress, label=self.options.project or ""), batch_garbage_collection():
            yield

    def start(self) -> None:
        """What comes before the first extract: the reads ahead the state names, an interrupted load finished, the
        views dropped for a refresh, the sync with the destination; then the reads ahead, if not started yet."""
        with self.destination.lock.writing():
            self.reading = start_run(self)
        # the file is let go while the console is read, for the programs that wait for it
        self.let_go()
        if not self.reading:
            self.counts.start_reading({} if self.options.full_refresh else last_source_state(self))

    def phases(self) -> list[DltSource]:
        """Phase by phase (sources.console.LOAD_PHASES): each is loaded while the reads of the next go on in the
        background, so what is left after the last request is the last phase's load alone. A full refresh drops each
        phase's own tables and resource state in that phase's load (dlt's `drop_resources`), so a run that fails in a
        later phase leaves that phase's tables as they were, never dropped and not reloaded."""
        self.load_phases = load_phases(self.source)
        self.tally.planned = [table for phase in self.load_phases for table in phase.selected_resources]
        return self.load_phases

    def extract(self, phase: DltSource) -> None:
        assert self.pipeline is not None
        if phase is self.load_phases[-1] and len(self.load_phases) > 1:
            # what the last phase's steps would import or read after the last request, while its reads go on
            prepare_last_phase()
        self.tally.pending = self.pipeline
        with self.tally.timed("extract"):
            info = self.pipeline.extract(
                phase, refresh="drop_resources" if self.options.full_refresh else None, loader_file_format=LOADER_FILE_FORMAT
            )
        self.extracted = extracted_bytes(info)

    def normalise(self) -> None:
        assert self.pipeline is not None
        release_freed_memory()
        with self.tally.timed("normalize"), normalize_workers_for(self.extracted):
            self.normalized = self.pipeline.normalize()

    def load(self, phase: DltSource) -> None:
        """The phase's load (the views translated beside the last one when the run adds tables or columns), and
        what it loaded kept in the tally."""
        assert self.pipeline is not None
        last = phase is self.load_phases[-1]
        if last:
            # held from the last load to the snapshot: no request is made after it
            self.hold()
        rendering = self.views_ahead() if last and self.options.publish else None
        with self.tally.timed("load"):
            info: Any = self.destination.load(self.pipeline, self.timeout_s)
        if rendering is not None:
            rendering.join()
        # read once here for the tally and, after the last phase, for the summary: dlt reads it from storage on every
        # ask, so a phase before the last that wrote no rows of a table (a rerun that changed nothing) leaves it unread
        if last or self.tally.counts_rows(self.normalized.row_counts):
            self.schema = current_schema(self.pipeline)
            self.tally.count_rows(self.schema, self.normalized.row_counts)
        self.tally.load_ids.extend(info.loads_ids)
        self.tally.loaded.extend(phase.selected_resources)

    def views_ahead(self) -> threading.Thread | None:
        """When this run adds tables or columns (a first run, a new field), the views must be translated again after
        its last load: translated beside that load instead, for the tables it loads (`Views.render_ahead`).
        A run that adds none finds its views current, and nothing is started."""
        assert self.pipeline is not None
        schema = current_schema(self.pipeline)
        if schema_columns(schema) == self.before:
            return None
        loading = {
            table: list(schema.get_table_columns(table))
            for table in self.normalized.row_counts
            if not table.startswith("_dlt") and table in schema.tables
        }
        return self.destination.views.render_ahead(loading, self.timeout_s)

    def count(self) -> None:
        """The statistics, the rows loaded and the SCD2 counts as the database holds them."""
        if self.tally.load_ids:
            with self.tally.timed("statistics"):
                self.destination.views.refresh_statistics(self.timeout_s)
        self.rows = rows_in_database(self.destination, self.tally.load_ids, self.tally.parents, self.timeout_s)
        self.new_versions, self.retired = scd2_counts(self.destination, self.tally.load_ids, self.timeout_s)

    def refresh_views(self) -> None:
        if self.options.publish:  # several projects: once, after all (run_projects)
            with self.tally.timed("views"):
                self.destination.views.refresh(self.timeout_s)

    def publish_snapshot(self) -> None:
        if self.options.publish:
            with self.tally.timed("snapshot"):
                self.snapshot = self.destination.snapshot.publish(self.timeout_s)

    def alert(self, summary: RunSummary) -> RunSummary:
        if self.options.alerts:
            summary.alerted = alert_after_run(self.destination, self.options.lock_timeout_s)
        return summary

    def summary(self) -> RunSummary:
        assert self.pipeline is not None
        stats, counts, tally, waits = self.counts.request_stats(), self.counts, self.tally, self.destination.waits
        schema = self.schema if self.schema is not None else current_schema(self.pipeline)
        return RunSummary(
            rows_loaded=self.rows, new_versions=self.new_versions, retired=self.retired,
            skipped=[(s.table, s.id, s.reason) for s in counts.skipped],
            left_null=[(v.table, v.id, v.field, v.value, v.why) for v in counts.left_null],
            schema_changes=schema_changes(self.before, schema_columns(schema)) + fields_gone(schema, counts.fields_seen),
            requests=stats.get("requests", 0), retries=stats.get("retries", 0), throttled=stats.get("throttled", 0),
            throttle_wait_s=stats.get("throttle_wait_s", 0.0),
            wall_time_s=time.monotonic() - self.started,
            load_id=tally.load_ids[-1] if tally.load_ids else None,
            waited_s=waits.seconds, waited_for=list(waits.holders),
            snapshot=self.snapshot.path if self.snapshot else None,
            steps=tally.steps, step_started=tally.step_started, ended_at=time.monotonic(),
            unchanged={table: n for table, n in counts.unchanged.items() if n},
            followed=dict(sorted(counts.followed.items())),
        )  # fmt: skip


def console_source(options: RunOptions, counts: ExtractionCounts) -> DltSource:
    """The run's console source: the settings of the project's own section, or of `[sources.console]`, with what
    the caller gave winning (the demo's projects give all of theirs); a `transport` given beside them (the demo's
    and the tests' in-process twins) is the client's."""
    given = dict(options.source_args)
    transport = given.pop("transport", None)
    if options.project and not options.demo:
        chosen = project_settings(options.project, **given)
    else:
        chosen = resolve_settings(**given)
    redacting_filter.add(chosen.api_key)
    client = ConsoleClient(ClientOptions.from_settings(chosen), transport=transport)
    return console(chosen, tables=options.resources, client=client, counts=counts)


def start_run(run: Run) -> bool:
    """The reads ahead the state names, an interrupted load finished, the views dropped for a refresh, the sync with
    the destination. True when the reads ahead have started."""
    assert run.pipeline is not None
    pipeline, destination = run.pipeline, run.destination
    # The per-id reads this run can name (those configured, those the last run's state holds) start before
    # dlt extracts, so the rate budget is spent while the run syncs and dlt sets up: before the sync too when
    # this machine holds the state (a fresh one takes it from the destination); a refresh reads from none.
    held_state = None if run.options.full_refresh else last_source_state(run)
    if held_state:
        run.counts.start_reading(held_state)
    # dlt's steps one by one, as pipeline.run takes them, so that each that opens the DuckDB file
    # goes through the one bounded wait, and a file taken after extraction costs no request.
    # A load left pending goes first: syncing with a dataset it never reached would wipe it.
    if pipeline.has_pending_data:
        run.tally.views_dropped = True
        finish_interrupted_load(destination, pipeline, run.timeout_s)
    if run.options.full_refresh:
        # each phase drops its raw tables as it loads them, which PostgreSQL refuses while a view reads them;
        # the views are applied again at the end of the run, or after its failure
        run.tally.views_dropped = True
        destination.views.drop(run.timeout_s)
    with run.tally.timed("sync"):
        destination.lock.when_free(pipeline.sync_destination, run.timeout_s)
    return bool(held_state)


def finish_interrupted_load(destination: Destination, pipeline: dlt.Pipeline, timeout_s: float) -> None:
    """Completes what a killed or failed run left in the pipeline, then the run extracts as usual."""
    log.warning("a previous run left a load unfinished: completing it first")
    # it may drop tables the views read (a --full-refresh cut short): the views go first, and come back at the end
    destination.views.drop(timeout_s)
    settle_committed_jobs(pipeline)
    pipeline.normalize()
    destination.load(pipeline, timeout_s)


def loaded_before(tally: RunTally, full_refresh: bool = False) -> str:
    """What a run that failed had loaded before it did (whole tables, its extraction not recorded), or nothing;
    for a full refresh, the tables it did not reach, which keep what they held."""
    tables = [t for t in tally.loaded if t in SELECTABLE]
    if not tables:
        return ""
    if full_refresh:
        kept = [t for t in tally.planned if t not in tally.loaded]
        return f" (--full-refresh reloaded before the failure: {', '.join(tables)}; {', '.join(kept)} kept as they were)"
    return f" (loaded before the failure: {', '.join(tables)}; the run is not recorded in extraction_runs)"


def restore_views(destination: Destination, timeout_s: float, known_projects: Sequence[str] = ()) -> None:
    """After a failed run that dropped the views: applied again over what the database holds, so they still answer.
    The run's own failure is what the user sees: one that keeps the views away is logged (`gatehouse views`)."""
    try:
        with destination.lock.writing():
            destination.views.refresh(timeout_s, known_projects=known_projects)
    except Exception as err:  # the run's failure is raised; this one is said beside it
        log.warning(
            "the analysis views could not be applied again after the failure (%s); `gatehouse views` applies them", explain(err)
        )
        log.debug("applying the views after a failed run", exc_info=True)


def last_source_state(run: Run) -> dict[str, Any]:
    """The source's state as the pipeline holds it before this run extracts (empty when it holds none)."""
    assert run.pipeline is not None
    return run.pipeline.state.get("sources", {}).get(run.source.name, {})


def prepare_last_phase() -> None:
    """What the steps after a run's last request need and would otherwise take on its critical path: dlt's Arrow
    helpers and pandas (the last phase's Parquet writer imports them, a wait of its own, when the phases before wrote no
    rows, as on a rerun that changed nothing), and the views' packaged definitions (the views check reads them)."""
    for name in LAST_PHASE_IMPORTS:
        importlib.import_module(name)
    graph.view_definitions()
