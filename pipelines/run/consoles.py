"""Which consoles a run loads: every configured project side by side (`run_projects`), or the single console
(`run_extraction`); `run_consoles` is the one place that decides, for `gatehouse run`, Dagster and Airflow."""

from __future__ import annotations

import dataclasses
import importlib
import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from gatehouse.pipelines.alerts.dispatch import AlertOutcome, alert_after_run, log_outcome
from gatehouse.pipelines.errors import GatehouseError, explain
from gatehouse.pipelines.models.build import DEFAULT_PROJECT
from gatehouse.pipelines.projects import as_projects, check_distinct_consoles
from gatehouse.pipelines.run.checks import check_demo_file, check_resources
from gatehouse.pipelines.run.options import RunOptions
from gatehouse.pipelines.run.steps import kept_after_load, restore_views, run_extraction
from gatehouse.pipelines.run.summary import RunSummary
from gatehouse.pipelines.run.tally import RunTally
from gatehouse.pipelines.run.tuning import apply_run_defaults, one_normalize_worker
from gatehouse.pipelines.warehouse.lock import lock_timeout
from gatehouse.sources.console.errors import ConsoleError

log = logging.getLogger("gatehouse.run")

# What a run imports only once it needs it (dlt's arrow and pandas helpers, DuckDB's client, the HTTP
# stack of dlt's helpers): measured as the modules new in sys.modules after a first run. Two threads
# importing pandas at once fail with "partially initialized module 'pandas'", so the projects' threads
# find them imported.
LAZY_IMPORTS = (
    "numpy",
    "pandas",
    "pyarrow",
    "pyarrow.parquet",
    "pyarrow.compute",
    "duckdb",
    "requests",
    "sqlalchemy",
    "sqlglot",
    "pendulum",
    "dlt.sources.helpers",
    "dlt.destinations.insert_job_client",
)


@dataclass
class ProjectOutcome:
    """One project's part of a run of several: its summary, or the one line it failed with."""

    project: str
    summary: RunSummary | None = None
    error: str | None = None


def run_consoles(options: RunOptions, projects: list[str]) -> tuple[list[ProjectOutcome], AlertOutcome | None]:
    """Every project of `projects` side by side, or with none the single console (as project `default`): each
    outcome in the order named, a failure as its one line (never raised), and the alerts step's outcome."""
    if projects:
        try:
            return run_projects(options, projects)
        except (GatehouseError, ConsoleError) as err:
            # what every project shares failed (the file held past the wait, a bad setting): the run failed, and
            # is told so, as a single console's failure is
            if options.alerts:
                log_outcome(alert_after_run(options.destination, options.lock_timeout_s, run_error=str(err)))
            raise
    try:
        summary = run_extraction(options)
    except (GatehouseError, ConsoleError) as err:
        return [ProjectOutcome(DEFAULT_PROJECT, error=str(err))], None
    return [ProjectOutcome(DEFAULT_PROJECT, summary=summary)], summary.alerted


def run_projects(options: RunOptions, projects: list[str]) -> tuple[list[ProjectOutcome], AlertOutcome | None]:
    """Each project loaded into its own dataset, side by side: a project that fails is recorded with its
    one-line reason and the others still load. The views are refreshed over all projects and the readers'
    snapshot published once, after all of them.

    Each project has its own client and rate limit, so their requests go out together; a DuckDB file
    takes one writer at a time, so they normalise and load it in turn (`RunLock.writing`), while
    other destinations take them together, each project in a dataset (and staging dataset) of its own
    (docs/decisions.md, "Several consoles"). Outcomes come back in the order the projects were named, with, when
    `options.alerts`, the alerts step's outcome: what is new in the projects that loaded, and each failed project.
    """
    destination = options.destination
    # What every project shares fails the run in one line, before any project starts: the file's name and
    # folder; and a file removed by hand leaves every project's state stale.
    check_resources(options.resources)
    check_distinct_consoles(projects, options.projects_args)
    destination.check_duckdb_path()
    destination.forget_removed_database()
    check_demo_file(destination, lock_timeout(options.lock_timeout_s), options.demo)
    apply_run_defaults()
    import_before_threads()
    # Decided once for all projects: a project's failure never removes the file the others load into.
    new_file = destination.is_duckdb_file and not destination.duckdb_path.exists()

    tallies = {project: RunTally() for project in projects}

    def load(project: str) -> ProjectOutcome:
        project_options = dataclasses.replace(
            options, project=project, destination=destination.for_project(project), publish=False, alerts=False,
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
        destination.remove_unloaded_file()
    if any(outcome.summary for outcome in outcomes):
        # once, over every project's dataset (the views read them all), as a single console's run does
        with destination.lock.exclusive(timeout_s), kept_after_load():
            # with every configured project's dataset too, not only those this run loaded (--project web)
            destination.views.refresh(timeout_s, known_projects=projects)
        with kept_after_load():
            destination.snapshot.publish(timeout_s)
    elif any(tally.views_dropped for tally in tallies.values()):
        # every project failed, one after dropping the views: they answer again, over what was there
        with destination.lock.exclusive(timeout_s):
            restore_views(destination, timeout_s, known_projects=projects)
    return outcomes, alert_after_projects(options, outcomes) if options.alerts else None


def alert_after_projects(options: RunOptions, outcomes: list[ProjectOutcome]) -> AlertOutcome:
    # each failure under its project's key, whether or not another loaded (nothing loaded: the views, which show the
    # last good loads, are not read); only the projects this run ran have a failure cleared
    errors = {outcome.project: outcome.error for outcome in outcomes if outcome.error}
    ran = [outcome.project for outcome in outcomes]
    return alert_after_run(options.destination, options.lock_timeout_s, project_errors=errors, ran=ran)


def import_before_threads() -> None:
    for name in LAZY_IMPORTS:
        try:
            importlib.import_module(name)
        except ImportError:  # not installed: then no run imports it either
            pass
