"""The example Airflow DAG: its wiring, and its task callables run in order against the twin.

Airflow itself is not in the `test` extra (about 80 more packages; docs/scheduling.md has the numbers): the
DAG file is imported once with stand-ins for the two Airflow names it uses, which record the DAG and its
tasks, so the file's own code runs; with Airflow installed, `DagBag` imports it for real as well.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from gatehouse.console_twin import ConsoleTwin
from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.run.demo import twin_source_args
from gatehouse.pipelines.schedule import airflow_dag
from tests.alerts.receiver import Receiver, receiving
from tests.drills.promises import broken_warehouse
from tests.schedule.conftest import FAILING, HEALTHY, failing_datasets, projects_failing_each_at_its_step

DAG_FILE = Path(airflow_dag.__file__)
BASE_URL = "http://console-twin.airflow.invalid"


class FakeTaskInstance:
    """XCom as Airflow keeps it between the tasks of one DAG run."""

    def __init__(self) -> None:
        self.xcom: dict[tuple[str, str], Any] = {}
        self.task_id = ""

    def xcom_push(self, key: str, value: Any) -> None:
        self.xcom[(self.task_id, key)] = value

    def xcom_pull(self, task_ids: str, key: str) -> Any:
        return self.xcom.get((task_ids, key))


def run_dag(
    ti: FakeTaskInstance,
    source_args: dict[str, Any],
    reports_dir: Path | None,
    projects_args: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The three callables in the DAG's order, as Airflow calls them: extract's failure does not stop alerts.
    `reports_dir` None: the DAG run's reports are not the test's subject and are not written (each writing runs
    the three notebooks in a kernel of its own: about a quarter of the first test's processor time)."""
    results: dict[str, Any] = {}
    ti.task_id = "extract"
    try:
        results["extract"] = airflow_dag.extract(ti=ti, source_args=source_args, projects_args=projects_args)
        if reports_dir is not None:
            ti.task_id = "report"
            results["report"] = airflow_dag.report(ti=ti, reports_dir=str(reports_dir))
    except GatehouseError as err:
        results["error"] = str(err)
    ti.task_id = "alerts"
    results["alerts"] = airflow_dag.alerts(ti=ti)
    return results


def test_the_dag_file_wires_extract_report_alerts(monkeypatch):
    made: dict[str, Any] = {}

    class DAG:
        def __init__(self, **kwargs: Any) -> None:
            made["dag"], self.kwargs, self.tasks = kwargs, kwargs, []

        def __enter__(self) -> DAG:
            made["context"] = self
            return self

        def __exit__(self, *exc: Any) -> None:
            pass

    class PythonOperator:
        def __init__(self, task_id: str, python_callable: Any, trigger_rule: str = "all_success") -> None:
            self.task_id, self.python_callable, self.trigger_rule, self.downstream = task_id, python_callable, trigger_rule, []
            made["context"].tasks.append(self)

        def __rshift__(self, other: PythonOperator) -> PythonOperator:
            self.downstream.append(other.task_id)
            return other

    sdk = types.ModuleType("airflow.sdk")
    sdk.DAG = DAG
    operators = types.ModuleType("airflow.providers.standard.operators.python")
    operators.PythonOperator = PythonOperator
    for name in ("airflow", "airflow.providers", "airflow.providers.standard", "airflow.providers.standard.operators"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, "airflow.sdk", sdk)
    monkeypatch.setitem(sys.modules, "airflow.providers.standard.operators.python", operators)
    module = importlib.reload(airflow_dag)
    try:
        assert made["dag"]["dag_id"] == "gatehouse" and made["dag"]["schedule"] == "0 6 * * *"
        assert made["dag"]["max_active_runs"] == 1 and made["dag"]["catchup"] is False
        tasks = {task.task_id: task for task in module.dag.tasks}
        assert list(tasks) == ["extract", "report", "alerts"]
        assert tasks["extract"].downstream == ["report"] and tasks["report"].downstream == ["alerts"]
        assert tasks["alerts"].trigger_rule == "all_done"
        assert [tasks[t].python_callable.__name__ for t in tasks] == ["extract", "report", "alerts"]
    finally:
        monkeypatch.undo()
        importlib.reload(airflow_dag)


@pytest.fixture(scope="module")
def setup(tmp_path_factory) -> Iterator[tuple[ConsoleTwin, Path, Receiver]]:
    work = tmp_path_factory.mktemp("airflow")
    twin = ConsoleTwin(size="small", seed=3)
    with receiving() as receiver, pytest.MonkeyPatch.context() as env:
        env.setenv("GATEHOUSE__DUCKDB", str(work / "gatehouse.duckdb"))
        env.setenv("GATEHOUSE__ALERTS__WEBHOOK_URL", receiver.base_url + "/hook")
        env.setenv("RUNTIME__LOG_LEVEL", "ERROR")
        yield twin, work, receiver


def twin_args(twin: ConsoleTwin, **overrides: Any) -> dict[str, Any]:
    return {**twin_source_args(twin, BASE_URL, transport=twin.transport()), **overrides}


def test_the_task_callables_load_report_and_alert_keeping_the_pipeline_folder(setup):
    twin, work, receiver = setup
    first = run_dag(FakeTaskInstance(), twin_args(twin), work / "reports")
    assert first["extract"]["rows"] > 0 and first["extract"]["destination"] == str(work / "gatehouse.duckdb")
    assert sorted(Path(p).name for p in first["report"]) == ["exposure_growth.html", "ingestion_health.html", "stale_gates.html"]
    assert first["alerts"][0].startswith("alerts: sent ") and len(receiver.posts) == 1
    # the pipeline's working folder stays beside the database, for the next run to continue from
    assert (work / ".gatehouse.duckdb.dlt" / "gatehouse" / "state.json").is_file()

    receiver.reset()
    twin.advance(days=1)
    second = run_dag(FakeTaskInstance(), twin_args(twin), None)  # the reports of a later run: the first's code again
    assert second["extract"]["new_versions"]["gates"] < first["extract"]["new_versions"]["gates"]
    assert all(alert["keys"] for post in receiver.posts for alert in post.body["alerts"])


def test_a_failed_extract_fails_its_task_and_alerts_tells_it(setup):
    twin, work, receiver = setup
    receiver.reset()
    ti = FakeTaskInstance()
    failed = run_dag(ti, twin_args(twin, api_key="wrong-key-for-airflow"), work / "reports")
    assert "report" not in failed and ti.xcom[("extract", airflow_dag.ERROR_XCOM)] == failed["error"]
    [post] = receiver.posts
    assert [a["keys"] for a in post.body["alerts"]] == [["run_failed"]]
    assert failed["error"] in post.body["alerts"][0]["text"] and "wrong-key-for-airflow" not in post.raw


def test_a_failure_every_project_shares_is_left_for_alerts_and_told(setup, tmp_path, monkeypatch):
    # before any project starts (here the database's folder is missing): extract raised before it left its line
    twin, _, receiver = setup
    receiver.reset()
    twin.reset_requests()
    monkeypatch.setenv("GATEHOUSE__DUCKDB", str(tmp_path / "no-such-folder" / "gatehouse.duckdb"))
    monkeypatch.setenv("SOURCES__CONSOLE__PROJECTS__WEB__BASE_URL", BASE_URL)
    monkeypatch.setenv("SOURCES__CONSOLE__PROJECTS__WEB__API_KEY", twin.settings.api_key)
    ti = FakeTaskInstance()
    failed = run_dag(ti, {}, None, projects_args={"web": twin_args(twin)})
    assert failed["error"] and ti.xcom[("extract", airflow_dag.ERROR_XCOM)] == failed["error"]
    [post] = receiver.posts
    assert [alert["keys"] for alert in post.body["alerts"]] == [["run_failed"]]
    assert twin.requests == [] and not (tmp_path / "no-such-folder").exists()


def test_a_run_where_every_project_fails_tells_each_under_its_own_key(setup, tmp_path, monkeypatch):
    # under the run's one key, a project still failing was told again once another recovered
    twin, _, receiver = setup
    receiver.reset()
    monkeypatch.setenv("GATEHOUSE__DUCKDB", str(tmp_path / "gatehouse.duckdb"))
    for name in ("web", "mobile"):
        monkeypatch.setenv(f"SOURCES__CONSOLE__PROJECTS__{name.upper()}__BASE_URL", BASE_URL)
        monkeypatch.setenv(f"SOURCES__CONSOLE__PROJECTS__{name.upper()}__API_KEY", f"wrong-key-{name}")
    ti = FakeTaskInstance()
    projects_args = {name: twin_args(twin, api_key=f"wrong-key-{name}") for name in ("web", "mobile")}
    failed = run_dag(ti, {}, None, projects_args=projects_args)
    assert failed["error"].startswith("2 of 2 projects failed: ")
    assert ti.xcom[("extract", airflow_dag.RAN_XCOM)] == ["mobile", "web"]
    assert sorted(alert["keys"] for post in receiver.posts for alert in post.body["alerts"]) == [
        ["run_failed:mobile"],
        ["run_failed:web"],
    ]


def test_every_configured_project_loads_and_each_failing_one_is_named_and_alerted(tmp_path, monkeypatch):
    # a project failing at each step of its run, all in one run: web and mobile load and are alerted on all the same
    twins = projects_failing_each_at_its_step()
    for name in twins:  # configured as a scheduler configures them; the tests hand each its twin
        monkeypatch.setenv(f"SOURCES__CONSOLE__PROJECTS__{name.upper()}__BASE_URL", f"http://{name}.console-twin.invalid")
    projects_args = {
        name: twin_args(
            twin, base_url=f"http://{name}.console-twin.invalid", max_attempts=1, **({"page_size": 10} if name in FAILING else {})
        )
        for name, twin in twins.items()
    }
    with receiving() as receiver, broken_warehouse(monkeypatch, failing_datasets()):
        monkeypatch.setenv("GATEHOUSE__DUCKDB", str(tmp_path / "gatehouse.duckdb"))
        monkeypatch.setenv("GATEHOUSE__ALERTS__WEBHOOK_URL", receiver.base_url + "/hook")
        ti = FakeTaskInstance()
        done = run_dag(ti, {}, tmp_path / "reports", projects_args)
        posts = receiver.posts
    for project, step in FAILING.items():
        assert f"{project}: " in done["error"], (project, step, done["error"])
    assert done["error"].startswith(f"{len(FAILING)} of {len(twins)} projects failed: "), done["error"]
    assert "gatehouse run --demo" not in done["error"]
    assert ti.xcom[("extract", airflow_dag.PROJECT_ERRORS_XCOM)].keys() == FAILING.keys()
    with duckdb.connect(str(tmp_path / "gatehouse.duckdb"), read_only=True) as con:
        loaded = dict(con.execute("select project, count(*) from analytics.stg_gates group by 1").fetchall())
    assert loaded == {name: len(twins[name].organisation.listed_gates()) for name in HEALTHY}
    alerts = [alert for post in posts for alert in post.body["alerts"]]
    failed = [alert["keys"] for alert in alerts if alert["keys"][0].startswith("run_failed")]
    assert sorted(failed) == sorted([f"run_failed:{project}"] for project in FAILING), [a["keys"] for a in alerts]
    assert {key.split(":")[1] for keys in (a["keys"] for a in alerts) for key in keys if key.startswith("srm:")} == {
        "web",
        "mobile",
    }
