"""An example Airflow DAG for gatehouse: copy this file into your DAGs folder (gatehouse installed beside Airflow).

Three tasks, daily at 06:00 UTC, one DAG run at a time:

    extract  ->  report  ->  alerts

- `extract` is gatehouse's own run (`gatehouse.pipelines.run.steps.run_extraction`), not dlt's `PipelineTasksGroup`: that one
  points DLT_DATA_DIR at a temporary folder and wipes it, losing the pending packages a run killed while
  loading leaves for the next run to complete. Here the pipeline's working folder is kept: beside the DuckDB
  file (`gatehouse.duckdb` -> `.gatehouse.duckdb.dlt`), or dlt's own folder (~/.dlt/pipelines) for a warehouse.
  A failure fails the task with gatehouse's one line, and leaves that line for `alerts`.
- `report` writes the three HTML reports (setting `gatehouse.reports_dir`, default ./reports).
- `alerts` runs whatever happened before it (trigger rule all_done): a failed run is told; after a good run,
  what is new (`gatehouse alerts`). A channel that fails is logged, never fails the DAG run.

Configuration is dlt's, as for `gatehouse run`: [sources.console] base_url / api_key, `gatehouse.destination`
(GATEHOUSE__DESTINATION; credentials as DESTINATION__POSTGRES__CREDENTIALS...) or `gatehouse.duckdb`
(GATEHOUSE__DUCKDB), and the alert channels (`runtime.slack_incoming_hook`, `gatehouse.alerts.webhook_url`).
The task callables are plain functions of Airflow's context, so they run (and are tested) without Airflow.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

log = logging.getLogger("gatehouse.airflow")

DAG_ID = "gatehouse"
SCHEDULE = "0 6 * * *"
ERROR_XCOM = "gatehouse_error"
PROJECT_ERRORS_XCOM = "gatehouse_project_errors"  # {project: its one line}, of a run of several projects
RAN_XCOM = "gatehouse_projects_ran"  # the projects a run of several ran: only their failures are cleared


def destination() -> Any:
    from gatehouse.pipelines.warehouse.destination import Destination

    return Destination.from_flags(None, None)  # the settings, as every command reads them


def extract(
    ti: Any = None,
    source_args: dict[str, Any] | None = None,
    projects_args: dict[str, dict[str, Any]] | None = None,
    **_: Any,
) -> dict[str, Any]:
    """gatehouse's run, of every configured project side by side or of the single console; its figures as the
    task's XCom, by project. A project that fails fails the task after the others loaded, with the one line that
    names it, left (with each project's reason) for `alerts`."""
    from gatehouse.pipelines.errors import GatehouseError
    from gatehouse.pipelines.models.build import DEFAULT_PROJECT
    from gatehouse.pipelines.run.scheduled import failure_line, run_scheduled

    target = destination()
    try:
        outcomes = run_scheduled(target, source_args=source_args, projects_args=projects_args)
    except Exception as err:
        # what every project shares failed before any loaded (the file held, a bad setting): left for `alerts` too
        if ti is not None:
            ti.xcom_push(key=ERROR_XCOM, value=str(err).splitlines()[0] if str(err) else type(err).__name__)
        raise
    figures = {}
    for outcome in outcomes:
        if outcome.summary is None:
            continue
        for line in outcome.summary.lines():
            log.info("%s: %s", outcome.project, line)
        summary = outcome.summary
        figures[outcome.project] = {
            "rows": sum(summary.rows_loaded.values()), "requests": summary.requests, "new_versions": summary.new_versions,
            "retired": summary.retired, "load_id": summary.load_id,
        }  # fmt: skip
    failed = failure_line(outcomes)
    if failed:
        if ti is not None:
            ti.xcom_push(key=ERROR_XCOM, value=failed)
            if [outcome.project for outcome in outcomes] != [DEFAULT_PROJECT]:
                # each failure under its project's key, whether or not another loaded (as `gatehouse run --alerts`)
                ti.xcom_push(key=PROJECT_ERRORS_XCOM, value={o.project: o.error for o in outcomes if o.error})
                ti.xcom_push(key=RAN_XCOM, value=[outcome.project for outcome in outcomes])
        raise GatehouseError(failed)
    # the single console's figures at the top, as before projects; every project's under "projects"
    single = figures.get(DEFAULT_PROJECT, {}) if list(figures) == [DEFAULT_PROJECT] else {}
    return {"destination": target.label(), **single, "projects": figures}


def report(reports_dir: str | None = None, **_: Any) -> list[str]:
    """`gatehouse report`: the notebooks against the snapshot the run published; the HTML paths as XCom."""
    from gatehouse.pipelines.reports.report import prepare, write_reports
    from gatehouse.pipelines.settings import reports_folder

    target = destination()
    log.info("%s", prepare(target))
    out = reports_folder(reports_dir)
    return [str(written.html) for written in write_reports(target.for_reading(), out)]


def alerts(ti: Any = None, **_: Any) -> list[str]:
    """What is new since the last alert, or the failed run `extract` left its line for; never fails."""
    from gatehouse.pipelines.alerts.dispatch import send_alerts

    error = ti.xcom_pull(task_ids="extract", key=ERROR_XCOM) if ti is not None else None
    project_errors = ti.xcom_pull(task_ids="extract", key=PROJECT_ERRORS_XCOM) if ti is not None else None
    ran = ti.xcom_pull(task_ids="extract", key=RAN_XCOM) if ti is not None else None
    try:
        if project_errors:  # a run of several projects: what is new in those that loaded, and each failed project
            lines = send_alerts(destination(), project_errors=project_errors, after_run=True, ran=ran).lines()
        else:
            lines = send_alerts(destination(), run_error=error, after_run=True).lines()
    except Exception as err:  # noqa: BLE001 - alerting never fails the DAG run; the reason is logged
        lines = [f"alerts: not sent: {str(err).splitlines()[0] if str(err) else type(err).__name__}"]
    for line in lines:
        log.info("%s", line)
    return lines


try:
    from airflow.providers.standard.operators.python import PythonOperator
    from airflow.sdk import DAG
except ImportError:  # Airflow not installed: the callables above stay importable
    DAG = None

if DAG is not None:
    with DAG(
        dag_id=DAG_ID,
        schedule=SCHEDULE,
        start_date=datetime(2026, 1, 1, tzinfo=UTC),
        catchup=False,
        max_active_runs=1,  # gatehouse locks the pipeline anyway; a second run would only wait
        default_args={"retries": 0},  # a failed load is completed by the next run, not retried blindly
        tags=["gatehouse"],
    ) as dag:
        extract_task = PythonOperator(task_id="extract", python_callable=extract)
        report_task = PythonOperator(task_id="report", python_callable=report)
        alerts_task = PythonOperator(task_id="alerts", python_callable=alerts, trigger_rule="all_done")
        extract_task >> report_task >> alerts_task
