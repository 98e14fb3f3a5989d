"""`gatehouse projects adopt NAME` on DuckDB and a real PostgreSQL server: every version kept, the next run of the
project a no-change rerun, a second adopt refused in one line; and projects on PostgreSQL where some fail late,
in one run (one at its exposures, one at its load): the healthy ones loaded as they load alone, their next run a
no-change rerun."""

from __future__ import annotations

import contextlib
import json

import duckdb
import pytest

from gatehouse.pipelines.cli.main import main
from gatehouse.pipelines.run.scheduled import run_scheduled
from gatehouse.pipelines.warehouse.destination import Destination
from tests.drills.conftest import (
    configure_project,
    copy_database,
    duckdb_destination,
    make_twin,
    point_at,
    postgres_destination,
    quick_backoff,  # noqa: F401  (the fixture, for the projects' retries)
    reference_path,  # noqa: F401  (the fixture: a first run of make_twin()'s organisation, made once per session)
    source_args,
)
from tests.drills.projects import healthy_single_loads, organisation
from tests.drills.promises import break_console, broken_warehouse, failing_project
from tests.warehouse.test_postgres_projects import ROOT_TABLES

pytestmark = pytest.mark.slow

# The steps a project fails at late, its first phase loaded or its whole extract read.
LATE_STEPS = ("exposures", "load")


def querying(kind: str, tmp_path, monkeypatch, request):
    """The run's destination flags and a query of it (tests/drills/conftest.py), in a folder of the test's own."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DLT_DATA_DIR", str(tmp_path / "dlt"))
    pick = duckdb_destination if kind == "duckdb" else postgres_destination(f"adopt_{kind}")
    return pick(tmp_path, monkeypatch, request)


def versions(query, dataset: str) -> list[tuple]:
    return sorted(
        query(f"select id, version, _dlt_valid_to is null from {dataset}.gates")
        + query(f"select id, version, _dlt_valid_to is null from {dataset}.dynamic_configs")
    )


def first_run(kind: str, request, database, base_url: str, flags: list[str]) -> None:
    """The single console's first run of make_twin()'s organisation: on DuckDB a copy of the session's reference of
    it (tests/drills/conftest.py, made once for every worker: the adopt tests are about the runs after it)."""
    if kind == "duckdb":
        copy_database(request.getfixturevalue("reference_path"), database, base_url)
    else:
        assert main(["run", "--no-progress", *flags]) == 0


@pytest.mark.parametrize("kind", ["duckdb", "postgres"])
def test_adopt_carries_the_single_consoles_history_into_a_project(tmp_path, monkeypatch, capsys, request, kind):
    flags, query = querying(kind, tmp_path, monkeypatch, request)
    twin = make_twin()
    with twin.serve() as base_url:
        point_at(monkeypatch, twin, base_url)
        first_run(kind, request, tmp_path / "gatehouse.duckdb", base_url, flags)
        twin.advance(1)  # a second version of what changed, so that history is more than one load
        assert main(["run", "--no-progress", *flags]) == 0
        before = versions(query, "console")
        assert len(before) > len({row[0] for row in before})

        capsys.readouterr()
        assert main(["projects", "adopt", "web", *flags]) == 0
        out = capsys.readouterr().out
        assert "dataset console is now console_web (project web): " in out
        assert f"{len(before)} gate and config versions kept" in out
        assert versions(query, "console_web") == before
        schemas = {name for (name,) in query("select schema_name from information_schema.schemata")}
        assert "console" not in schemas and "console_staging" not in schemas

        # the console named as project web: its next run continues the history, changing nothing
        for name in ("BASE_URL", "API_KEY", "EXPERIMENT_IDS", "INGESTION_RUN_IDS"):
            monkeypatch.delenv(f"SOURCES__CONSOLE__{name}")
        configure_project(monkeypatch, "web", twin, base_url)
        twin.reset_requests()
        assert main(["run", "--no-progress", *flags]) == 0
        out = capsys.readouterr().out
        assert "gates                 unchanged:" in out and "new versions" not in out, out
        assert versions(query, "console_web") == before
        assert query("select count(*) from analytics.stg_gates where project = 'web'")[0][0] > 0

        # DuckDB's DESCRIBE and SHOW TABLES answered on every warehouse; SUMMARIZE refused in one line elsewhere
        capsys.readouterr()
        assert main(["sql", *flags, "describe analytics.stale_gates"]) == 0
        described = capsys.readouterr().out.splitlines()
        assert described[0].split()[:2] == ["column_name", "column_type" if kind == "duckdb" else "data_type"]
        assert any(line.split()[0] == "gate_id" for line in described[2:-1])
        assert main(["sql", *flags, "summarize analytics.stale_gates"]) == (0 if kind == "duckdb" else 2)
        if kind == "postgres":
            assert capsys.readouterr().err.strip().splitlines()[-1] == (
                "gatehouse: error: SUMMARIZE is DuckDB's own and postgres has no such statement: write a query over"
                " information_schema.columns or information_schema.tables instead"
            )

        # once: the project has its dataset now, and there is no single console's left
        assert main(["projects", "adopt", "web", *flags]) == 2
        assert capsys.readouterr().err.strip().splitlines()[-1].endswith("holds no single console's dataset (console) to adopt")


def test_adopt_refuses_a_project_that_has_a_dataset(tmp_path, monkeypatch, capsys, request):
    database = tmp_path / "gatehouse.duckdb"
    twin = make_twin()
    with twin.serve() as base_url:
        point_at(monkeypatch, twin, base_url)
        first_run("duckdb", request, database, base_url, ["--duckdb", str(database)])
        configure_project(monkeypatch, "web", twin, base_url)
        assert main(["run", "--no-progress", "--duckdb", str(database)]) == 0
    with duckdb.connect(str(database), read_only=True) as connection:
        before = connection.execute("select count(*) from console.gates").fetchone()
    capsys.readouterr()
    assert main(["projects", "adopt", "web", "--duckdb", str(database)]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"gatehouse: error: project web already has dataset console_web in {database}: adopt never merges two"
        " histories; drop one of them first"
    ]
    with duckdb.connect(str(database), read_only=True) as connection:
        assert connection.execute("select count(*) from console.gates").fetchone() == before


@pytest.fixture(scope="module")
def singles(tmp_path_factory) -> dict[str, tuple[dict[str, int], int]]:
    """web and mobile each alone, into DuckDB: what its first load loads (as a first load's summary counts it: every
    row of each table that holds any) and what its rerun asks. The drills' single loads (tests/drills/projects.py),
    made once per `pytest` command."""
    return {
        name: (
            {table.split(".", 1)[1]: len(rows.rows) for table, rows in single.tables.items() if rows.rows},
            single.rerun_requests,
        )
        for name, single in healthy_single_loads(tmp_path_factory).items()
    }


@pytest.mark.usefixtures("quick_backoff")
def test_projects_on_postgres_failing_late(tmp_path, monkeypatch, request, singles):
    # one run, a project of tools' organisation failing at each late step beside web and mobile
    _, query = querying("projects_late", tmp_path, monkeypatch, request)
    failing = {failing_project(step): step for step in LATE_STEPS}
    twins = {name: organisation(name) for name in ("web", "mobile")} | {project: organisation("tools") for project in failing}
    beside = "beside " + ", ".join(f"{project} failing at {step}" for project, step in failing.items())
    with contextlib.ExitStack() as serving:
        urls = {name: serving.enter_context(twin.serve()) for name, twin in twins.items()}
        args = {name: {**source_args(twin, urls[name]), "max_attempts": 2} for name, twin in twins.items()}

        def run() -> dict:
            outcomes = run_scheduled(Destination(name="postgres"), projects=list(twins), projects_args=args)
            return {outcome.project: outcome for outcome in outcomes}

        for project, step in failing.items():
            break_console(twins[project], step)
        with broken_warehouse(monkeypatch, {f"console_{project}": step for project, step in failing.items()}):
            outcomes = run()
        for project, step in failing.items():
            assert outcomes[project].error and outcomes[project].summary is None, (project, step, outcomes[project])
        for name in ("web", "mobile"):
            rows, _ = singles[name]
            assert outcomes[name].summary.rows_loaded == rows, (name, beside)
            for table in ROOT_TABLES:
                [(count,)] = query(f"select count(*) from console_{name}.{table}")
                assert count == rows.get(table, 0), (name, table, beside)
        for twin in twins.values():
            twin.reset_requests()
        outcomes = run()
        for name in ("web", "mobile"):
            assert outcomes[name].summary.requests == singles[name][1], (name, beside)
            assert outcomes[name].summary.new_versions == {"gates": 0, "dynamic_configs": 0}, (name, beside)
    assert json.dumps(sorted(outcomes)) == json.dumps(sorted(twins))
