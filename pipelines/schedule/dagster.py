"""gatehouse as Dagster assets: `pip install 'gatehouse[dagster]'`, then `dagster dev -m gatehouse.pipelines.schedule.dagster`.

- `console/<table>`: one asset per raw table, all made by one multi-asset, `gatehouse_run`, that runs gatehouse's
  own run (`gatehouse.pipelines.run.steps.run_extraction`). It cannot be subset: the console source discovers holdouts and
  experiments from what gates and configs reference, so a table alone would load wrong. The pipeline's folder
  and its pending packages are kept, so a run killed while loading is completed by the next one (dagster-dlt's
  resource drops them before each run, which is why it is not used here).
- `analytics/<view>`: the staging and analysis views, which the same run refreshes; each depends on the tables
  and views its SQL reads (`gatehouse.pipelines.schedule.lineage`), so the lineage runs from the raw tables to the worklist.
- `reports/<notebook>`: the three HTML reports of `gatehouse report`, after the views they read.
- `gatehouse_daily`: a schedule for all of it, 06:00 UTC.

Where the data goes comes from dlt's configuration, as for `gatehouse run`: `gatehouse.destination`
(GATEHOUSE__DESTINATION, e.g. postgres, credentials as DESTINATION__POSTGRES__CREDENTIALS) or
`gatehouse.duckdb` (GATEHOUSE__DUCKDB, default ./gatehouse.duckdb); the console from [sources.console].
A failed run fails the step with gatehouse's one line as its message.
"""


from pathlib import Path
from typing import Any, Iterator, Optional

import dlt
from dagster import (
    AssetExecutionContext,
    AssetKey,
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

from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.reports.report import NOTEBOOKS, prepare, write_reports
from gatehouse.pipelines.run.steps import RunOptions, run_extraction
from gatehouse.pipelines.schedule import lineage
from gatehouse.pipelines.run.summary import SCD2_TABLES, RunSummary
from gatehouse.sources.console.errors import ConsoleError

RAW_GROUP, VIEWS_GROUP, REPORTS_GROUP = "console", "analytics", "reports"
DAILY_CRON = "0 6 * * *"


def table_key(table: str) -> AssetKey:
    return AssetKey(["console", table])


def view_key(view: str) -> AssetKey:
    return AssetKey(["analytics", view])


def report_key(notebook: str) -> AssetKey:
    return AssetKey(["reports", notebook])


class GatehouseResource(ConfigurableResource):
    """Where gatehouse loads and writes its reports; unset fields come from dlt's configuration."""

    destination: Optional[str] = None  # a dlt destination name; default: setting gatehouse.destination, else duckdb
    duckdb: Optional[str] = None  # the DuckDB file; default: setting gatehouse.duckdb, else ./gatehouse.duckdb
    reports_dir: str = "reports"
    lock_timeout_s: Optional[float] = None
    # Send `gatehouse alerts` after each run (and a failed run), to the channels dlt's configuration names.
    alerts: bool = False

    def target(self) -> Destination:
        return Destination.from_flags(
            self.destination or dlt.config.get("gatehouse.destination"), self.duckdb or dlt.config.get("gatehouse.duckdb")
        )

    def source_args(self) -> dict[str, Any]:
        """Arguments for the console source beyond dlt's configuration (none: the tests pass a twin here)."""
        return {}

    def run(self, destination: Destination) -> RunSummary:
        options = RunOptions(destination=destination, progress=False, lock_timeout_s=self.lock_timeout_s,
                             source_args=self.source_args())
        try:
            if not self.alerts:
                return run_extraction(options)
            from gatehouse.pipelines.alerts.dispatch import run_with_alerts

            summary, _ = run_with_alerts(options)
            return summary
        except (GatehouseError, ConsoleError) as err:
            raise Failure(description=str(err)) from None


def raw_table_specs() -> list[AssetSpec]:
    return [
        AssetSpec(table_key(table), group_name=RAW_GROUP, kinds={"dlt"},
                  description=f"console.{table}, loaded by gatehouse run")
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


def view_specs() -> list[AssetSpec]:
    return [
        AssetSpec(view_key(view), group_name=VIEWS_GROUP, kinds={"sql"},
                  deps=[table_key(t) for t in reads.tables] + [view_key(v) for v in reads.views],
                  description=f"view analytics.{view}, refreshed after each load")
        for view, reads in lineage.view_reads().items()
    ]


def report_specs() -> list[AssetSpec]:
    reads = lineage.report_reads()
    return [
        AssetSpec(report_key(name), group_name=REPORTS_GROUP, kinds={"html"},
                  deps=[view_key(view) for view in reads[name]], description=f"gatehouse report: {name}.html")
        for name in NOTEBOOKS
    ]


RAW_KEYS = frozenset(spec.key for spec in raw_table_specs())


@multi_asset(name="gatehouse_run", specs=raw_table_specs() + view_specs(), can_subset=False)
def gatehouse_run(context: AssetExecutionContext, gatehouse: GatehouseResource) -> Iterator[MaterializeResult]:
    """gatehouse's own run: extract, normalise, load (a pending load first), refresh the views, publish the snapshot."""
    destination = gatehouse.target()
    summary = gatehouse.run(destination)
    context.log.info("\n".join(summary.lines()))
    context.log.debug("gatehouse run: %.1f s", summary.wall_time_s)
    run_metadata = {
        "requests": summary.requests,
        "load_id": MetadataValue.text(summary.load_id or ""),
        "destination": MetadataValue.text(destination.label()),
    }
    for spec in context.assets_def.specs:
        if spec.key not in RAW_KEYS:
            yield MaterializeResult(asset_key=spec.key, metadata=run_metadata)
            continue
        table = spec.key.path[-1]
        metadata: dict[str, Any] = {"rows": summary.rows_loaded.get(table, 0), **run_metadata}
        if table in SCD2_TABLES:
            metadata["new_versions"] = summary.new_versions.get(table, 0)
            metadata["retired"] = summary.retired.get(table, 0)
        yield MaterializeResult(asset_key=spec.key, metadata=metadata)


@multi_asset(name="gatehouse_reports", specs=report_specs(), can_subset=False)
def gatehouse_reports(context: AssetExecutionContext, gatehouse: GatehouseResource) -> Iterator[MaterializeResult]:
    """`gatehouse report`: the notebooks executed headless against the snapshot the run published."""
    destination = gatehouse.target()
    try:
        summary = prepare(destination, timeout_s=gatehouse.lock_timeout_s)
        reports = write_reports(destination.for_reading(), Path(gatehouse.reports_dir))
    except GatehouseError as err:
        raise Failure(description=str(err)) from None
    context.log.info(summary)
    for report in reports:
        yield MaterializeResult(asset_key=report_key(report.notebook),
                                metadata={"path": MetadataValue.path(str(report.html.resolve()))})


daily = ScheduleDefinition(
    name="gatehouse_daily",
    cron_schedule=DAILY_CRON,
    execution_timezone="UTC",
    job=define_asset_job("gatehouse_daily_job", selection=AssetSelection.assets(gatehouse_run, gatehouse_reports)),
)

defs = Definitions(
    assets=[gatehouse_run, gatehouse_reports, *code_reference_specs()],
    schedules=[daily],
    resources={"gatehouse": GatehouseResource()},
)
