"""The Dagster definitions: asset keys and lineage, and materialisations in-process against the twin."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

dagster = pytest.importorskip("dagster")  # in the `test` extra; the skip only helps a bare install

from gatehouse.console_twin import ConsoleTwin  # noqa: E402
from gatehouse.pipelines.models.build import SOURCE_COLUMNS, view_definitions  # noqa: E402
from gatehouse.pipelines.schedule import dagster as definitions  # noqa: E402
from gatehouse.pipelines.schedule.dagster import GatehouseResource, gatehouse_reports, gatehouse_run  # noqa: E402
from tests.drills.promises import broken_warehouse  # noqa: E402
from tests.schedule.conftest import FAILING, HEALTHY, failing_datasets, projects_failing_each_at_its_step  # noqa: E402

A = dagster.AssetKey
BASE_URL = "http://console-twin.dagster.invalid"


def twin_resource(twin: ConsoleTwin, **fields: Any) -> GatehouseResource:
    class TwinGatehouse(GatehouseResource):
        def source_args(self) -> dict[str, Any]:
            return {
                "base_url": BASE_URL,
                "api_key": fields.pop("api_key", None) or twin.settings.api_key,
                "experiment_ids": twin.experiment_ids,
                "ingestion_run_ids": twin.ingestion_run_ids,
                "transport": twin.transport(),
            }

    return TwinGatehouse(**{k: v for k, v in fields.items() if k != "api_key"})


def materialised(result: Any) -> dict[str, dict[str, Any]]:
    """Asset key ('console/gates') -> its materialisation's metadata values."""
    return {
        "/".join(m.asset_key.path): {k: getattr(v, "value", v) for k, v in m.metadata.items()}
        for m in (event.materialization for event in result.get_asset_materialization_events())
    }


def test_one_asset_per_raw_table_one_per_view_and_the_lineage_from_the_sql():
    graph = definitions.defs.resolve_asset_graph()
    keys = {"/".join(key.path) for key in graph.get_all_asset_keys()}
    views = [definition.name for definition in view_definitions()]
    assert keys == (
        {f"console/{table}" for table in SOURCE_COLUMNS}
        | {f"analytics/{view}" for view in views}
        | {"reports/stale_gates", "reports/exposure_growth", "reports/ingestion_health"}
    )
    parents = {"/".join(key.path): {"/".join(p.path) for p in graph.get(key).parent_keys} for key in graph.get_all_asset_keys()}
    assert parents["analytics/stg_gate_versions"] == {"console/gates"}
    assert parents["analytics/stale_gates_by_owner"] == {"analytics/stale_gates"}
    assert parents["analytics/stale_gates"] == {
        "analytics/gate_staleness",
        "analytics/gate_lifecycle",
        "analytics/int_gate_code_lines",
        "analytics/stg_code_reference_scans",
    }
    assert parents["analytics/int_gate_code_lines"] == {"analytics/stg_code_references"}
    assert parents["analytics/exposure_srm"] == {
        "analytics/exposure_daily",
        "analytics/exposure_srm_daily",
        "analytics/exposure_srm_expected_shares",
    }
    assert {"analytics/stale_gates", "analytics/stale_gates_by_owner", "analytics/cleanup_worklist"} <= parents[
        "reports/stale_gates"
    ]
    assert parents["console/gates"] == set()

    def upstream(key: str) -> set[str]:
        seen, todo = set(), [key]
        while todo:
            for parent in parents[todo.pop()] - seen:
                seen.add(parent)
                todo.append(parent)
        return seen

    # staging through to the worklist and its report
    assert {
        "console/gates",
        "console/gates__rules",
        "analytics/stg_gates",
        "analytics/current_gates",
        "analytics/stale_gates",
    } <= upstream("analytics/cleanup_worklist")
    assert "console/gates" in upstream("reports/stale_gates")
    assert "console/cumulative_exposures" in upstream("reports/exposure_growth")
    # every view's deps are real: each parent view is built before it
    order = {view: index for index, view in enumerate(views)}
    for view in views:
        for parent in parents[f"analytics/{view}"]:
            if parent.startswith("analytics/"):
                assert order[parent.split("/")[1]] < order[view]

    # the run is one step that cannot be subset; code references come from `gatehouse code-refs`
    assert not gatehouse_run.can_subset
    assert graph.get(A(["console", "code_references"])).is_external
    schedule = definitions.defs.resolve_schedule_def("gatehouse_daily")
    assert schedule.cron_schedule == "0 6 * * *"


@pytest.fixture(scope="module")
def twin() -> Iterator[ConsoleTwin]:
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RUNTIME__LOG_LEVEL", "ERROR")  # dlt's warnings about columns with only nulls
        yield ConsoleTwin(size="small", seed=3)


def test_two_materialisations_a_day_apart_load_only_the_changes(twin, tmp_path_factory):
    work = tmp_path_factory.mktemp("dagster_duckdb")
    resource = twin_resource(twin, duckdb=str(work / "gatehouse.duckdb"), reports_dir=str(work / "reports"))
    first = materialised(dagster.materialize([gatehouse_run], resources={"gatehouse": resource}))
    assert first["console/gates"]["rows"] == len(twin.organisation.listed_gates())
    assert first["console/gates"]["new_versions"] == first["console/gates"]["rows"]
    assert first["console/holdouts"]["rows"] > 0
    assert first["console/gates"]["requests"] > 0
    assert "analytics/cleanup_worklist" in first

    twin.advance(days=1)
    second = materialised(dagster.materialize([gatehouse_run], resources={"gatehouse": resource}))
    # only what changed: new gate versions alone are written, exposures from the next day on, fewer requests
    gates, exposures = second["console/gates"], second["console/cumulative_exposures"]
    assert gates["new_versions"] < first["console/gates"]["new_versions"]
    assert exposures["rows"] < first["console/cumulative_exposures"]["rows"] / 5
    assert gates["requests"] < first["console/gates"]["requests"]
    with duckdb.connect(str(work / "gatehouse.snapshot.duckdb"), read_only=True) as con:
        [(versions,)] = con.execute("select count(*) from console.gates").fetchall()
        [(days,)] = con.execute("select count(*) from console.cumulative_exposures").fetchall()
    assert versions == first["console/gates"]["new_versions"] + gates["new_versions"]
    # exposures merge on (experiment, group, date): the late window is read again and updated in place
    assert (
        first["console/cumulative_exposures"]["rows"] < days <= first["console/cumulative_exposures"]["rows"] + exposures["rows"]
    )
    assert second["console/extraction_runs"]["rows"] == 1

    # the reports, after the views they read
    result = dagster.materialize([gatehouse_reports], resources={"gatehouse": resource}, selection=[gatehouse_reports])
    paths = {key: Path(meta["path"]) for key, meta in materialised(result).items()}
    assert set(paths) == {"reports/stale_gates", "reports/exposure_growth", "reports/ingestion_health"}
    assert all(path.is_file() and path.parent == work / "reports" for path in paths.values())


def test_a_failed_run_fails_with_gatehouses_one_line(twin, tmp_path):
    resource = twin_resource(twin, duckdb=str(tmp_path / "gatehouse.duckdb"), api_key="not-the-key-0000")
    result = dagster.materialize([gatehouse_run], resources={"gatehouse": resource}, raise_on_error=False)
    assert not result.success
    [failure] = result.get_step_failure_events()
    description = failure.step_failure_data.user_failure_data.description
    assert "\n" not in description and "API key" in description or "401" in description
    assert "not-the-key-0000" not in description


def test_materialises_on_postgres(twin, postgres_server, tmp_path, monkeypatch):
    monkeypatch.setenv("DESTINATION__POSTGRES__CREDENTIALS", postgres_server.database("gatehouse_dagster"))
    monkeypatch.setenv("DLT_DATA_DIR", str(tmp_path / "dlt"))
    monkeypatch.setenv("GATEHOUSE__DESTINATION", "postgres")
    resource = twin_resource(twin)  # the destination from dlt's configuration
    first = materialised(dagster.materialize([gatehouse_run], resources={"gatehouse": resource}))
    assert first["console/gates"]["destination"] == "postgres"
    assert first["console/gates"]["rows"] == len(twin.organisation.listed_gates())
    again = materialised(dagster.materialize([gatehouse_run], resources={"gatehouse": resource}))
    assert again["console/gates"]["new_versions"] == 0
    assert again["console/dynamic_configs"]["new_versions"] == 0
    # nothing changed: only the exposures' late window is read again, with fewer requests
    assert again["console/cumulative_exposures"]["rows"] < first["console/cumulative_exposures"]["rows"] / 5
    assert again["console/gates"]["requests"] < first["console/gates"]["requests"]


def test_every_configured_project_loads_and_each_that_fails_is_named(tmp_path, monkeypatch):
    # a project failing at each step of its run, all in one run: web and mobile load all the same
    twins = projects_failing_each_at_its_step()

    class ProjectsGatehouse(GatehouseResource):
        def projects_args(self) -> dict[str, dict[str, Any]]:
            return {name: {"base_url": f"http://{name}.console-twin.invalid", "api_key": twin.settings.api_key,
                           "experiment_ids": twin.experiment_ids, "ingestion_run_ids": twin.ingestion_run_ids,
                           "transport": twin.transport(), "max_attempts": 1,
                           **({"page_size": 10} if name in FAILING else {})}
                    for name, twin in twins.items()}  # fmt: skip

    run = definitions.run_asset(sorted(twins))
    keys = {"/".join(spec.key.path) for spec in run.specs}
    assert {"console_web/gates", "console_mobile/gates", "analytics/stale_gates"} <= keys
    assert {f"console_{project}/gates" for project in FAILING} <= keys
    assert "console/gates" not in keys
    graph = definitions.build(run).resolve_asset_graph()
    assert {f"console_{name}/gates" for name in twins} == {
        "/".join(p.path) for p in graph.get(A(["analytics", "stg_gate_versions"])).parent_keys
    }

    resource = ProjectsGatehouse(duckdb=str(tmp_path / "gatehouse.duckdb"))
    with broken_warehouse(monkeypatch, failing_datasets()):
        result = dagster.materialize([run], resources={"gatehouse": resource}, raise_on_error=False)
    assert not result.success
    [failure] = result.get_step_failure_events()
    description = failure.step_failure_data.user_failure_data.description
    for project, step in FAILING.items():
        assert f"{project}: " in description, (project, step, description)
    assert description.startswith(f"{len(FAILING)} of {len(twins)} projects failed: ") and "\n" not in description, description
    assert "web: " not in description and "mobile: " not in description, description
    assert "gatehouse run --demo" not in description
    done = materialised(result)
    for name in HEALTHY:
        gates = done[f"console_{name}/gates"]
        assert gates["project"] == name and gates["rows"] == len(twins[name].organisation.listed_gates()) > 0, name
        assert gates["destination"] == f"{tmp_path / 'gatehouse.duckdb'} (dataset console_{name})"
    for project, step in FAILING.items():
        assert not any(key.startswith(f"console_{project}/") for key in done), (project, step)
    assert done["analytics/stale_gates"]["projects"] == "mobile, web"
    with duckdb.connect(str(tmp_path / "gatehouse.snapshot.duckdb"), read_only=True) as con:
        assert con.execute("select distinct project from analytics.stg_gates order by 1").fetchall() == [("mobile",), ("web",)]
