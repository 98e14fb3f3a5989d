"""gatehouse as Dagster assets: `pip install -e '.[dagster]'`, then `dagster dev -m gatehouse.pipelines.schedule.dagster`.

- `console/<table>`: one asset per raw table, all made by one multi-asset, `gatehouse_run`, that runs gatehouse's
  own run (`gatehouse.pipelines.run.scheduled`). It cannot be subset: the console source discovers holdouts and
  experiments from what gates and configs reference, so a table alone would load wrong. The pipeline's folder
  and its pending packages are kept, so a run killed while loading is completed by the next one (dagster-dlt's
  resource drops them before each run, which is why it is not used here).
- Several projects (configured when Dagster loads this module): `console_<project>/<table>` for each, the key
  being the project's dataset; the one run loads them side by side, as `gatehouse run` does. The projects that
  load are materialised, each with its own metadata; a project that fails fails the step afterwards, with the
  one line that names it and its reason.
- `analytics/<view>`: the staging and analysis views, which the same run refreshes; each depends on the tables
  and views its SQL reads (`gatehouse.pipelines.schedule.lineage`), so the lineage runs from the raw tables to the worklist.
- `reports/<notebook>`: the three HTML reports of `gatehouse report`, after the views they read.
- `gatehouse_daily`: a schedule for all of it, 06:00 UTC.

Where the data goes comes from dlt's configuration, as for `gatehouse run`: `gatehouse.destination`
(GATEHOUSE__DESTINATION, e.g. postgres, credentials as DESTINATION__POSTGRES__CREDENTIALS) or
`gatehouse.duckdb` (GATEHOUSE__DUCKDB, default ./gatehouse.duckdb); the consoles from [sources.console].
"""

from collections.abc import Iterator
from typing import Any

from dagster import (
    AssetExecutionContext,
    AssetKey,
    AssetsDefinition,
    AssetSelection,
    AssetSpec,
    ConfigurableResource,
    Definitions,
    Failure,
    MaterializeResult,
    MetadataValue,
    ScheduleDefinition,
    define_asset_job,
    multi_asset,
)

from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.models.build import DEFAULT_PROJECT
from gatehouse.pipelines.projects import configured_projects
from gatehouse.pipelines.reports.report import NOTEBOOKS, prepare, write_reports
from gatehouse.pipelines.run.consoles import ProjectOutcome
from gatehouse.pipelines.run.scheduled import failure_line, run_scheduled
from gatehouse.pipelines.run.summary import SCD2_TABLES
from gatehouse.pipelines.schedule import lineage
from gatehouse.pipelines.settings import reports_folder
from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.pipelines.warehouse.names import DATASET_NAME

RAW_GROUP, VIEWS_GROUP, REPORTS_GROUP = "console", "analytics", "reports"
DAILY_CRON = "0 6 * * *"


def dataset_of(project: str) -> str:
    """The dataset a project loads into: `console` for the single console, `console_<project>` for each project."""
    return DATASET_NAME if project == DEFAULT_PROJECT else f"{DATASET_NAME}_{project}"


def table_key(table: str, project: str = DEFAULT_PROJECT) -> AssetKey:
    """`console/<table>`, or `console_<project>/<table>`: the asset key is where the table is."""
    return AssetKey([dataset_of(project), table])


def view_key(view: str) -> AssetKey:
    return AssetKey(["analytics", view])


def report_key(notebook: str) -> AssetKey:
    return AssetKey(["reports", notebook])


class GatehouseResource(ConfigurableResource):
    """Where gatehouse loads and writes its reports; unset fields come from dlt's configuration."""

    destination: str | None = None  # a dlt destination name; default: setting gatehouse.destination, else duckdb
    duckdb: str | None = None  # the DuckDB file; default: setting gatehouse.duckdb, else ./gatehouse.duckdb
    reports_dir: str | None = None  # default: setting gatehouse.reports_dir, else ./reports
    lock_timeout_s: float | None = None
    # Send `gatehouse alerts` after each run (and a failed run), to the channels dlt's configuration names.
    alerts: bool = False

    def target(self) -> Destination:
        return Destination.from_flags(self.destination, self.duckdb)

    def source_args(self) -> dict[str, Any]:
        """Arguments for the single console's source beyond dlt's configuration (none: the tests pass a twin here)."""
        return {}

    def projects_args(self) -> dict[str, dict[str, Any]]:
        """The same by project (none: each project's settings come from dlt's configuration)."""
        return {}

    def run(self, destination: Destination, projects: list[str]) -> list[ProjectOutcome]:
        return run_scheduled(
            destination,
            lock_timeout_s=self.lock_timeout_s,
            alerts=self.alerts,
            projects=projects,
            source_args=self.source_args(),
            projects_args=self.projects_args(),
        )


def raw_table_specs(projects: list[str]) -> list[AssetSpec]:
    return [
        AssetSpec(
            table_key(table, project),
            group_name=RAW_GROUP,
            kinds={"dlt"},
            description=f"{dataset_of(project)}.{table}, loaded by gatehouse run"
            + ("" if project == DEFAULT_PROJECT else f" (project {project})"),
        )
        for project in projects or [DEFAULT_PROJECT]
        for table in lineage.raw_tables()
        if lineage.loaded_by_run(table)
    ]


def code_reference_specs() -> list[AssetSpec]:
    """The tables `gatehouse code-refs` loads: shown in the lineage, materialised outside Dagster."""
    return [
        AssetSpec(table_key(table), group_name=RAW_GROUP, description=f"console.{table}, loaded by gatehouse code-refs")
        for table in lineage.raw_tables()
        if not lineage.loaded_by_run(table)
    ]


def view_specs(projects: list[str]) -> list[AssetSpec]:
    def table_deps(table: str) -> list[AssetKey]:
        if not lineage.loaded_by_run(table):  # the code references: one dataset for every project
            return [table_key(table)]
        return [table_key(table, project) for project in projects or [DEFAULT_PROJECT]]

    return [
        AssetSpec(
            view_key(view),
            group_name=VIEWS_GROUP,
            kinds={"sql"},
            deps=[key for t in reads.tables for key in table_deps(t)] + [view_key(v) for v in reads.views],
            description=f"view analytics.{view}, refreshed after each load",
        )
        for view, reads in lineage.view_reads().items()
    ]


def report_specs() -> list[AssetSpec]:
    reads = lineage.report_reads()
    return [
        AssetSpec(
            report_key(name),
            group_name=REPORTS_GROUP,
            kinds={"html"},
            deps=[view_key(view) for view in reads[name]],
            description=f"gatehouse report: {name}.html",
        )
        for name in NOTEBOOKS
    ]


def run_asset(projects: list[str]) -> AssetsDefinition:
    """The multi-asset of one run: every project's tables (or the single console's) and the views."""
    raw_keys = {
        spec.key: (project, spec.key.path[-1])
        for project in projects or [DEFAULT_PROJECT]
        for spec in raw_table_specs([project] if projects else [])
    }

    @multi_asset(name="gatehouse_run", specs=raw_table_specs(projects) + view_specs(projects), can_subset=False)
    def gatehouse_run(context: AssetExecutionContext, gatehouse: GatehouseResource) -> Iterator[MaterializeResult]:
        """gatehouse's own run: extract, normalise, load (a pending load first), refresh the views, publish the
        snapshot; with several projects, each side by side, and the views once over all of them."""
        destination = gatehouse.target()
        outcomes = {outcome.project: outcome for outcome in gatehouse.run(destination, projects)}
        for outcome in outcomes.values():
            if outcome.summary:
                context.log.info("\n".join([f"project {outcome.project}", *outcome.summary.lines()]))
        loaded = [outcome.summary for outcome in outcomes.values() if outcome.summary]
        for spec in context.assets_def.specs:
            if spec.key not in raw_keys:
                if loaded:
                    yield MaterializeResult(
                        asset_key=spec.key,
                        metadata={
                            "destination": MetadataValue.text(destination.label()),
                            "projects": MetadataValue.text(", ".join(p for p, o in outcomes.items() if o.summary)),
                        },
                    )
                continue
            project, table = raw_keys[spec.key]
            summary = outcomes[project].summary
            if summary is None:
                continue
            metadata: dict[str, Any] = {
                "project": MetadataValue.text(project),
                "rows": summary.rows_loaded.get(table, 0),
                "requests": summary.requests,
                "load_id": MetadataValue.text(summary.load_id or ""),
                "destination": MetadataValue.text(
                    destination.for_project(project).label() if project != DEFAULT_PROJECT else destination.label()
                ),
            }
            if table in SCD2_TABLES:
                metadata["new_versions"] = summary.new_versions.get(table, 0)
                metadata["retired"] = summary.retired.get(table, 0)
            yield MaterializeResult(asset_key=spec.key, metadata=metadata)
        failed = failure_line(list(outcomes.values()))
        if failed:
            # what loaded is materialised above; the step fails with the one line naming what did not
            raise Failure(description=failed)

    return gatehouse_run


@multi_asset(name="gatehouse_reports", specs=report_specs(), can_subset=False)
def gatehouse_reports(context: AssetExecutionContext, gatehouse: GatehouseResource) -> Iterator[MaterializeResult]:
    """`gatehouse report`: the notebooks executed headless against the snapshot the run published."""
    destination = gatehouse.target()
    try:
        summary = prepare(destination, timeout_s=gatehouse.lock_timeout_s)
        reports = write_reports(destination.for_reading(), reports_folder(gatehouse.reports_dir))
    except GatehouseError as err:
        raise Failure(description=str(err)) from None
    context.log.info(summary)
    for report in reports:
        yield MaterializeResult(
            asset_key=report_key(report.notebook), metadata={"path": MetadataValue.path(str(report.html.resolve()))}
        )


def build(run: AssetsDefinition) -> Definitions:
    """The definitions around a run's assets (`run_asset`): the reports, the code references, the daily schedule."""
    daily = ScheduleDefinition(
        name="gatehouse_daily",
        cron_schedule=DAILY_CRON,
        execution_timezone="UTC",
        job=define_asset_job("gatehouse_daily_job", selection=AssetSelection.assets(run, gatehouse_reports)),
    )
    return Definitions(
        assets=[run, gatehouse_reports, *code_reference_specs()],
        schedules=[daily],
        resources={"gatehouse": GatehouseResource()},
    )


# The projects configured when Dagster loads this module (dlt's configuration: [sources.console.projects.*] or
# SOURCES__CONSOLE__PROJECTS__<NAME>__*); none: the single console of [sources.console].
PROJECTS = configured_projects()
gatehouse_run = run_asset(PROJECTS)
defs = build(gatehouse_run)
