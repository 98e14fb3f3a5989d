"""A gatehouse run: extract the console into the destination, then refresh the analysis views.

The steps are dlt's (extract, normalise, load); this module orders them with what makes a scheduled
run trustworthy: one run at a time per pipeline, a dataset that holds another console refused before
any request, a load a killed run left half done completed first, a DuckDB file another program holds
waited for, and the views refreshed and the readers' snapshot published only after a good load.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Optional, Sequence, TypeVar

import dlt
from dlt.common.runtime import signals
from dlt.common.configuration.exceptions import ConfigFieldMissingException, ConfigurationValueError
from dlt.common.destination import TLoaderFileFormat
from dlt.sources import DltSource

from gatehouse.pipelines.alerts.dispatch import AlertOutcome, alert_after_run, log_outcome
from gatehouse.pipelines.run.demo import DEMO_BASE_URL
from gatehouse.pipelines.warehouse import datasets
from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.pipelines.warehouse.lock import lock_timeout
from gatehouse.pipelines.warehouse.names import DEFAULT_DUCKDB, DEMO_DUCKDB
from gatehouse.pipelines.run.drift import fields_gone, schema_changes, schema_columns
from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.errors import explain
from gatehouse.pipelines.logs import redacting_filter
from gatehouse.pipelines.models import graph
from gatehouse.pipelines.models.build import DEFAULT_PROJECT
from gatehouse.pipelines.run.progress import Progress
from gatehouse.pipelines.projects import as_projects, project_settings
from gatehouse.pipelines.run.recovery import settle_committed_jobs
from gatehouse.pipelines.run.summary import RunSummary, rows_in_database, scd2_counts
from gatehouse.pipelines.run.tuning import (
    apply_run_defaults, batch_garbage_collection, normalize_workers_for, one_normalize_worker, release_freed_memory,
)
from gatehouse.sources.console import console, constants, load_phases
from gatehouse.sources.console.client import ClientOptions, ConsoleClient
from gatehouse.sources.console.settings import resolve_settings
from gatehouse.sources.console.errors import ConsoleError
from gatehouse.sources.console.counts import ExtractionCounts

log = logging.getLogger("gatehouse.run")
T = TypeVar("T")

# The tables a user can pick with --resources (the id resources feed them and are not tables).
SELECTABLE = constants.TABLES
# Rows are normalised to parquet: dlt's default insert_values format loads about ten times slower.
LOADER_FILE_FORMAT: TLoaderFileFormat = "parquet"


@dataclass
class RunOptions:
    destination: Destination = field(default_factory=Destination)
    resources: Optional[list[str]] = None
    full_refresh: bool = False
    progress: bool = True
    # Seconds to wait for another run, or for a DuckDB file another program holds (None: the setting).
    lock_timeout_s: Optional[float] = None
    # Load into a dataset that holds another console (a rotated key, a moved URL): never implied.
    repoint: bool = False
    # The demo's console twin: it never loads into a dataset that holds a real console, flag or no flag.
    demo: bool = False
    # Passed to the source instead of dlt's config lookup (the demo and tests use them).
    source_args: dict[str, Any] = field(default_factory=dict)
    # One of several configured projects ([sources.console.projects.<name>]): its section's settings, its own
    # pipeline `gatehouse_<name>` and dataset `console_<name>`. None: the single console of [sources.console].
    project: Optional[str] = None
    # Per project, passed to the source over its section's settings (the demo and tests use them).
    projects_args: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Refresh the views and publish the snapshot after the load (several projects do it once, after all).
    publish: bool = True
    # Then the alerts step: what is new to each channel, or the run's failure (several projects: once, after all).
    alerts: bool = False


@dataclass
class ProjectOutcome:
    """One project's part of a run of several: its summary, or the one line it failed with."""

    project: str
    summary: Optional[RunSummary] = None
    error: Optional[str] = None


def run_projects(options: RunOptions, projects: list[str]) -> tuple[list[ProjectOutcome], Optional[AlertOutcome]]:
    """Each project loaded into its own dataset, side by side: a project that fails is recorded with its
    one-line reason and the others still load. The views are refreshed over all projects and the readers'
    snapshot published once, after all of them.

    Each project has its own client and rate limit, so their requests go out together; a DuckDB file
    takes one writer at a time, so they normalise and load it in turn (`Destination.writing`), while
    other destinations take them together, each project in a dataset (and staging dataset) of its own
    (docs/decisions.md, "Several consoles"). Outcomes come back in the order the projects were named, with, when
    `options.alerts`, the alerts step's outcome: what is new in the projects that loaded, and each failed project.
    """
    # What every project shares fails the run in one line, before any project starts: the file's name and
    # folder; and a file removed by hand leaves every project's state stale.
    check_resources(options.resources)
    options.destination.check_duckdb_path()
    options.destination.forget_removed_database()
    check_demo_file(options.destination, lock_timeout(options.lock_timeout_s), options.demo)
    apply_run_defaults()
    import_before_threads()
    # Decided once for all projects: a project's failure never removes the file the others load into.
    new_file = options.destination.is_duckdb_file and not options.destination.duckdb_path.exists()

    tallies = {project: RunTally() for project in projects}

    def load(project: str) -> ProjectOutcome:
        project_options = dataclasses.replace(
            options, project=project, destination=options.destination.for_project(project), publish=False, alerts=False,
            source_args=dict(options.projects_args.get(project, {})),
        )  # fmt: skip
        try:
            return ProjectOutcome(project, summary=run_extraction(project_options, tallies[project]))
        except (GatehouseError, ConsoleError) as err:
            return ProjectOutcome(project, error=as_projects(str(err), project))
        except Exception as err:  # any other failure is this project's alone; the others still load
            log.exception("project %s failed", project)
            return ProjectOutcome(project, error=explain(err))

    with one_normalize_worker(), ThreadPoolExecutor(max_workers=len(projects), thread_name_prefix="gatehouse-project") as pool:
        outcomes = list(pool.map(load, projects))
    timeout_s = lock_timeout(options.lock_timeout_s)
    if new_file and not any(tally.holds_data for tally in tallies.values()):
        # every project failed before it loaded anything: no empty database is left to read as all clear
        options.destination.remove_unloaded_file()
    if any(outcome.summary for outcome in outcomes):
        # once, over every project's dataset (the views read them all), as a single console's run does
        with options.destination.lock.exclusive(timeout_s):
            # with every configured project's dataset too, not only those this run loaded (--project web)
            after_load(options.destination.views.refresh, timeout_s, known_projects=projects)
        after_load(options.destination.snapshot.publish, timeout_s)
    elif any(tally.views_dropped for tally in tallies.values()):
        # every project failed, one after dropping the views: they answer again, over what was there
        with options.destination.lock.exclusive(timeout_s):
            restore_views(options.destination, timeout_s, known_projects=projects)
    return outcomes, alert_after_projects(options, outcomes) if options.alerts else None


def alert_after_projects(options: RunOptions, outcomes: list[ProjectOutcome]) -> AlertOutcome:
    errors = {outcome.project: outcome.error for outcome in outcomes if outcome.error}
    if len(errors) == len(outcomes):
        # nothing loaded: the views show the last good loads, only the failures are news
        return alert_after_run(options.destination, options.lock_timeout_s,
                               run_error="; ".join(f"{project}: {error}" for project, error in errors.items()))
    return alert_after_run(options.destination, options.lock_timeout_s, project_errors=errors)


# What a run imports only once it needs it (dlt's arrow and pandas helpers, DuckDB's client, the HTTP
# stack of dlt's helpers): measured as the modules new in sys.modules after a first run. Two threads
# importing pandas at once fail with "partially initialized module 'pandas'", so the projects' threads
# find them imported.
LAZY_IMPORTS = ("numpy", "pandas", "pyarrow", "pyarrow.parquet", "pyarrow.compute", "duckdb", "requests", "sqlalchemy",
                "sqlglot", "pendulum", "dlt.sources.helpers", "dlt.destinations.insert_job_client")

# Imported by dlt's Parquet writer on its first row (see prepare_last_phase).
LAST_PHASE_IMPORTS = ("pandas", "dlt.common.libs.pyarrow")


def check_resources(resources: Optional[list[str]]) -> None:
    unknown = sorted(set(resources or ()) - set(SELECTABLE))
    if unknown:
        raise GatehouseError(f"unknown resource(s) {', '.join(unknown)}; choose from {', '.join(SELECTABLE)}")


def import_before_threads() -> None:
    for name in LAZY_IMPORTS:
        try:
            importlib.import_module(name)
        except ImportError:  # not installed: then no run imports it either
            pass


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


@dataclass
class RunTally:
    """What one run's steps add up as they go: seconds per step and when each began, the tables and load ids per phase,
    the tables of the phases loaded, the pipeline once dlt holds data it extracted, and whether the views were
    dropped."""

    steps: dict[str, float] = field(default_factory=dict)
    step_started: dict[str, float] = field(default_factory=dict)
    # each table a phase normalised rows into, with its parent table (None for a root table): where the summary
    # counts what the database holds of this run (`rows_in_database`)
    parents: dict[str, Optional[str]] = field(default_factory=dict)
    load_ids: list[str] = field(default_factory=list)
    loaded: list[str] = field(default_factory=list)
    # the tables of every phase of the run, in load order
    planned: list[str] = field(default_factory=list)
    pending: Optional[dlt.Pipeline] = None
    # The analysis views were dropped for a load that drops tables: applied again whatever happens next.
    views_dropped: bool = False

    def count_rows(self, pipeline: dlt.Pipeline, row_counts: dict[str, int]) -> None:
        """The tables a phase normalised rows into, and how their rows are found again in the database."""
        schema = pipeline.default_schema
        for table, rows in row_counts.items():
            if not table.startswith("_dlt") and rows:
                self.parents[table] = schema.tables.get(table, {}).get("parent")

    @property
    def holds_data(self) -> bool:
        """Whether the run loaded a phase, or left one for the next run to complete."""
        return bool(self.loaded) or (self.pending is not None and self.pending.has_pending_data)

    def timed(self, name: str) -> contextlib.AbstractContextManager[None]:
        return _timed(self.steps, name, self.step_started)


def run_extraction(options: RunOptions, tally: Optional[RunTally] = None) -> RunSummary:
    """One console's run: its load (`load_console`), then, with `options.alerts`, the alerts step, which tells
    what is new after a good load and the failure after a failed one (the failure is then raised as it was).
    `tally`: the caller's, to read what the run did when it fails (several projects)."""
    try:
        summary = load_console(options, tally)
    except (GatehouseError, ConsoleError) as err:
        if options.alerts:
            log_outcome(alert_after_run(options.destination, options.lock_timeout_s, run_error=str(err)))
        raise
    if options.alerts:
        summary.alerted = alert_after_run(options.destination, options.lock_timeout_s)
    return summary


def load_console(options: RunOptions, tally: Optional[RunTally] = None) -> RunSummary:
    """One console's load, step by step: the console check, then the state's reads ahead, an interrupted load
    finished, the sync, each load phase extracted, normalised and loaded, then the statistics, the SCD2 counts, the
    views and the readers' snapshot (docs/architecture.md, "One run, step by step"). Views dropped on the way (a
    refresh, an interrupted load finished) are applied again when the run fails, over what the database holds."""
    started = time.monotonic()
    apply_run_defaults()
    counts = ExtractionCounts()
    if options.resources:
        check_resources(options.resources)
    try:
        source = console_source(options, counts)
    except (ConfigFieldMissingException, ConfigurationValueError, ConsoleError) as err:
        raise GatehouseError(explain(err)) from err

    destination = options.destination
    timeout_s = lock_timeout(options.lock_timeout_s)
    tally = tally if tally is not None else RunTally()
    if options.project is None:  # several projects: checked once for them all (run_projects)
        check_demo_file(destination, timeout_s, options.demo)
    # a first run that fails before it loads anything leaves no empty database behind (the next one starts afresh);
    # several projects share the file, and decide it once, after all of them (run_projects)
    new_file = options.project is None and destination.is_duckdb_file and not destination.duckdb_path.exists()
    try:
        with destination.lock.exclusive(timeout_s), contextlib.ExitStack() as file_held:
            # Projects side by side in this process open a DuckDB file one at a time (DuckDB refuses a second
            # instance of a file the process holds): held for every step that opens it, let go while extracting.
            file_held.enter_context(destination.lock.writing())
            # Before any request: a dataset that holds another console is never loaded over by mistake.
            check_console(destination, counts, options, timeout_s)
            pipeline = destination.pipeline()
            before = schema_columns(pipeline)
            try:
                extract_and_load(options, pipeline, source, counts, tally, before, timeout_s, file_held)
            except BaseException:
                file_held.close()
                if tally.views_dropped and options.publish:  # several projects: applied once, after all (run_projects)
                    restore_views(destination, timeout_s)
                raise
            # to the end of the run
            file_held.enter_context(destination.lock.writing())
            ended = after_load(end_run, options, destination, tally, timeout_s)
    except BaseException:
        if new_file and (not tally.holds_data or not destination.duckdb_path.exists()):
            destination.remove_unloaded_file()
        raise
    finally:
        waited = destination.waits.seconds
    rows, new_versions, retired, snapshot = ended
    stats = counts.request_stats()
    return RunSummary(
        rows_loaded=rows,
        new_versions=new_versions,
        retired=retired,
        skipped=[(s.table, s.id, s.reason) for s in counts.skipped],
        left_null=[(v.table, v.id, v.field, v.value, v.why) for v in counts.left_null],
        schema_changes=schema_changes(before, schema_columns(pipeline)) + fields_gone(pipeline, counts.fields_seen),
        requests=stats.get("requests", 0),
        retries=stats.get("retries", 0),
        throttled=stats.get("throttled", 0),
        throttle_wait_s=stats.get("throttle_wait_s", 0.0),
        wall_time_s=time.monotonic() - started,
        load_id=tally.load_ids[-1] if tally.load_ids else None,
        waited_s=waited,
        waited_for=list(destination.waits.holders),
        snapshot=snapshot.path if snapshot else None,
        steps=tally.steps,
        step_started=tally.step_started,
        ended_at=time.monotonic(),
        unchanged={table: n for table, n in counts.unchanged.items() if n},
        followed=dict(sorted(counts.followed.items())),
    )


def extract_and_load(options: RunOptions, pipeline: dlt.Pipeline, source: DltSource, counts: ExtractionCounts,
                     tally: RunTally, before: dict[str, dict[str, str]], timeout_s: float,
                     file_held: contextlib.ExitStack) -> None:
    """The run's start (`start_run`; the file let go after it), the reads ahead, then each load phase. dlt's steps
    each take Ctrl-C (and SIGTERM) as a request to stop at their next checkpoint, then fail with whatever that stop
    broke ("generator already executing"); held over all of them, the signal is known here, and the run ends as
    interrupted (KeyboardInterrupt): no failure to report, none to alert about."""
    destination = options.destination
    with signals.intercepted_signals():
        try:
            reading = start_run(options, destination, pipeline, source, counts, tally, timeout_s)
            file_held.close()
            if not reading:
                counts.start_reading({} if options.full_refresh else last_source_state(pipeline, source.name))
            load_in_phases(options, destination, pipeline, source, counts, tally, before, timeout_s)
        except GatehouseError:
            raise
        except Exception as err:  # any step's failure is one line, with what loaded before it
            if signals.was_signal_received():
                raise KeyboardInterrupt from err
            log.debug("the run failed", exc_info=True)
            raise GatehouseError(explain(err) + loaded_before(tally, options.full_refresh)) from err
        finally:
            counts.close()
        if signals.was_signal_received():
            raise KeyboardInterrupt  # loaded: the rest of the run (views, snapshot) is not done


def start_run(options: RunOptions, destination: Destination, pipeline: dlt.Pipeline, source: DltSource,
              counts: ExtractionCounts, tally: RunTally, timeout_s: float) -> bool:
    """What comes before the first extract: the reads ahead the state names, an interrupted load finished, the
    views dropped for a refresh, the sync with the destination. True when the reads ahead have started."""
    # The per-id reads this run can name (those configured, those the last run's state holds) start before
    # dlt extracts, so the rate budget is spent while the run syncs and dlt sets up: before the sync too when
    # this machine holds the state (a fresh one takes it from the destination); a refresh reads from none.
    held_state = None if options.full_refresh else last_source_state(pipeline, source.name)
    if held_state:
        counts.start_reading(held_state)
    # dlt's steps one by one, as pipeline.run takes them, so that each that opens the DuckDB file
    # goes through the one bounded wait, and a file taken after extraction costs no request.
    # A load left pending goes first: syncing with a dataset it never reached would wipe it.
    if pipeline.has_pending_data:
        tally.views_dropped = True
        finish_interrupted_load(destination, pipeline, timeout_s)
    if options.full_refresh:
        # each phase drops its raw tables as it loads them, which PostgreSQL refuses while a view reads them;
        # the views are applied again at the end of the run, or after its failure
        tally.views_dropped = True
        destination.views.drop(timeout_s)
    with tally.timed("sync"):
        destination.lock.when_free(pipeline.sync_destination, timeout_s)
    return bool(held_state)


def load_in_phases(options: RunOptions, destination: Destination, pipeline: dlt.Pipeline, source: DltSource,
                   counts: ExtractionCounts, tally: RunTally, before: dict[str, dict[str, str]], timeout_s: float) -> None:
    """Phase by phase (sources.console.LOAD_PHASES): each is loaded while the reads of the next go on in the
    background, so what is left after the last request is the last phase's load alone. A full refresh drops each
    phase's own tables and resource state in that phase's load (dlt's `drop_resources`), so a run that fails in a
    later phase leaves that phase's tables as they were, never dropped and not reloaded."""
    with Progress(counts, enabled=options.progress, label=options.project or ""), batch_garbage_collection():
        phases = load_phases(source)
        tally.planned = [table for phase in phases for table in phase.selected_resources]
        for number, phase in enumerate(phases):
            tally.pending = pipeline
            with tally.timed("extract"):
                pipeline.extract(
                    phase,
                    refresh="drop_resources" if options.full_refresh else None,
                    loader_file_format=LOADER_FILE_FORMAT,
                )
            last = number == len(phases) - 1
            # one normalises and writes the file at a time
            with destination.lock.writing():
                release_freed_memory()
                with tally.timed("normalize"), normalize_workers_for(pipeline):
                    normalized = pipeline.normalize()
                rendering = views_ahead(destination, pipeline, before, normalized, timeout_s) if last and options.publish else None
                with tally.timed("load"):
                    info: Any = destination.load(pipeline, timeout_s)
                if rendering is not None:
                    rendering.join()
            if not last:
                # what the last phase's steps would import or read after the last request, while its reads go on
                prepare_last_phase()
            tally.count_rows(pipeline, normalized.row_counts)
            tally.load_ids.extend(info.loads_ids)
            tally.loaded.extend(phase.selected_resources)


def end_run(options: RunOptions, destination: Destination, tally: RunTally,
            timeout_s: float) -> tuple[dict[str, int], dict[str, int], dict[str, int], Any]:
    """After the last load: the statistics, the rows loaded and the SCD2 counts as the database holds them, the
    views and the readers' snapshot."""
    if tally.load_ids:
        with tally.timed("statistics"):
            destination.views.refresh_statistics(timeout_s)
    rows = rows_in_database(destination, tally.load_ids, tally.parents, timeout_s)
    new_versions, retired = scd2_counts(destination, tally.load_ids, timeout_s)
    snapshot = None
    if options.publish:
        with tally.timed("views"):
            destination.views.refresh(timeout_s)
        with tally.timed("snapshot"):
            snapshot = destination.snapshot.publish(timeout_s)
    return rows, new_versions, retired, snapshot


def after_load(step: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """A step after the load (the counts, the views, the readers' snapshot): its failure is one line that says the
    load is kept, as it is (the next run, or `gatehouse views`, applies the views again)."""
    try:
        return step(*args, **kwargs)
    except GatehouseError:
        raise
    except Exception as err:
        log.debug("a step after the load failed", exc_info=True)
        raise GatehouseError(f"{explain(err)} (after the load, which is kept; the next run or `gatehouse views`"
                             " applies the views and publishes the snapshot again)") from err


def views_ahead(destination: Destination, pipeline: dlt.Pipeline, before: dict[str, dict[str, str]], normalized: Any,
                timeout_s: Optional[float]) -> Optional[threading.Thread]:
    """When this run adds tables or columns (a first run, a new field), the views must be translated again after
    its last load: translated beside that load instead, for the tables it loads (`Views.render_ahead`).
    A run that adds none finds its views current, and nothing is started."""
    if schema_columns(pipeline) == before:
        return None
    schema = pipeline.default_schema
    loading = {
        table: list(schema.get_table_columns(table))
        for table in normalized.row_counts
        if not table.startswith("_dlt") and table in schema.tables
    }
    return destination.views.render_ahead(loading, timeout_s)


def loaded_before(tally: RunTally, full_refresh: bool = False) -> str:
    """What a run that failed had loaded before it did (whole tables, its extraction not recorded), or nothing;
    for a full refresh, the tables it did not reach, which keep what they held."""
    tables = [t for t in tally.loaded if t in SELECTABLE]
    if not tables:
        return ""
    if full_refresh:
        kept = [t for t in tally.planned if t not in tally.loaded]
        return (f" (--full-refresh reloaded before the failure: {', '.join(tables)}; {', '.join(kept)} kept as"
                " they were)")
    return f" (loaded before the failure: {', '.join(tables)}; the run is not recorded in extraction_runs)"


def restore_views(destination: Destination, timeout_s: float, known_projects: Sequence[str] = ()) -> None:
    """After a failed run that dropped the views: applied again over what the database holds, so they still answer.
    The run's own failure is what the user sees: one that keeps the views away is logged (`gatehouse views`)."""
    try:
        with destination.lock.writing():
            destination.views.refresh(timeout_s, known_projects=known_projects)
    except Exception as err:  # the run's failure is raised; this one is said beside it
        log.warning("the analysis views could not be applied again after the failure (%s); `gatehouse views` applies"
                    " them", explain(err))
        log.debug("applying the views after a failed run", exc_info=True)


def last_source_state(pipeline: dlt.Pipeline, source_name: str) -> dict[str, Any]:
    """The source's state as the pipeline holds it before this run extracts (empty when it holds none)."""
    return pipeline.state.get("sources", {}).get(source_name, {})


def prepare_last_phase() -> None:
    """What the steps after a run's last request need and would otherwise take on its critical path: dlt's Arrow
    helpers and pandas (the last phase's Parquet writer imports them, about 0.3 s, when the phases before wrote no
    rows, as on a rerun that changed nothing), and the views' packaged definitions (the views check reads them)."""
    for name in LAST_PHASE_IMPORTS:
        importlib.import_module(name)
    graph.view_definitions()


def single_console_left(destination: Destination, projects: list[str], timeout_s: Optional[float] = None) -> Optional[str]:
    """The warning for a database that still holds a single console's dataset beside the configured projects (a
    setup switched from one console to projects): the views and reports count it as project `default`, which
    is most often one of the projects a second time. None when there is no such dataset."""
    if DEFAULT_PROJECT in projects:
        return None
    dataset = datasets.console_datasets(destination, timeout_s, projects).get(DEFAULT_PROJECT)
    if dataset is None:
        return None
    return (f"warning: dataset {dataset} still holds a single console's load (project {DEFAULT_PROJECT}): every view and"
            f" report shows it beside {', '.join(projects)}; to retire it, see \"Several projects\" in the README")


def check_demo_file(destination: Destination, timeout_s: float, demo: bool) -> None:
    """The demo and the consoles never share a DuckDB file: the demo's projects load into datasets of their own, and
    a file where any dataset holds a real console is refused to the demo, flag or no flag; a console's run is refused
    the demo's file (by its name, or by a dataset that holds the demo), which `make demo` would then refuse in turn."""
    if not destination.is_duckdb_file:
        return
    if not demo and destination.duckdb_path.resolve() == DEMO_DUCKDB.resolve():
        raise GatehouseError(
            f"{destination.label()} is the demo's file: a console loads into a file of its own; run it without --duckdb"
            f" (it writes {DEFAULT_DUCKDB}) or name another file (`make reset-demo` starts the demo afresh)"
        )
    for dataset, extraction in datasets.console_extractions(destination, timeout_s).items():
        held = extraction.console
        if held is None or (held.base_url == DEMO_BASE_URL) == demo:
            continue
        if demo:
            raise GatehouseError(
                f"{destination.label()} holds the console {held} (dataset {dataset}): the demo never loads into a real"
                f" console's database; run it without --duckdb (it writes {DEMO_DUCKDB}) or give it a file of its own"
            )
        raise GatehouseError(
            f"{destination.label()} holds the demo (dataset {dataset}): a console loads into a file of its own; run it"
            f" without --duckdb (it writes {DEFAULT_DUCKDB}) or name another file"
        )


def check_console(destination: Destination, counts: ExtractionCounts, options: RunOptions, timeout_s: float) -> None:
    """Refuses, in one line and before it extracts, a run whose console is not the one the dataset holds.

    A mistyped base URL or key looks like another console too: one cheap read first, so that a URL or key
    that does not work is reported as such (the setting to fix), and only a working one as another console.
    """
    console = counts.console_identity()
    if console is None:
        return
    last = datasets.last_extraction(destination, timeout_s)
    held = last.console if last else None
    if held is None or held.same_console(console):
        return
    try:
        counts.check_access()
    except ConsoleError as err:
        raise GatehouseError(explain(err)) from err
    if options.demo:
        raise GatehouseError(
            f"{destination.label()} holds the console {held}: the demo never loads into a real console's dataset;"
            f" run it without --duckdb (it writes {DEMO_DUCKDB}) or give it a file of its own"
        )
    if options.repoint:
        log.warning("--repoint: %s held %s and follows %s from this run on%s", destination.label(), held, console,
                    " (--full-refresh: what it held is dropped first)" if options.full_refresh
                    else "; its history continues, and what the new console lacks is retired")
        return
    raise GatehouseError(
        f"{destination.label()} holds the console {held}, not {console}: load this console into another"
        f" {'file (--duckdb PATH)' if destination.is_duckdb_file else 'dataset (another database in the destination credentials)'},"
        f" or pass --repoint to make {destination.label()} follow it (with --full-refresh to drop what it holds first)"
    )


@contextlib.contextmanager
def _timed(steps: dict[str, float], name: str, started_at: Optional[dict[str, float]] = None) -> Iterator[None]:
    started = time.monotonic()
    if started_at is not None:
        started_at.setdefault(name, started)
    try:
        yield
    finally:
        steps[name] = steps.get(name, 0.0) + time.monotonic() - started


def finish_interrupted_load(destination: Destination, pipeline: dlt.Pipeline, timeout_s: float) -> None:
    """Completes what a killed or failed run left in the pipeline, then the run extracts as usual."""
    log.warning("a previous run left a load unfinished: completing it first")
    # it may drop tables the views read (a --full-refresh cut short): the views go first, and come back at the end
    destination.views.drop(timeout_s)
    settle_committed_jobs(pipeline)
    pipeline.normalize()
    destination.load(pipeline, timeout_s)
