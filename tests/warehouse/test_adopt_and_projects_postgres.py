"""`gatehouse projects adopt NAME` on DuckDB and a real PostgreSQL server: every version kept, the next run of the
project a no-change rerun, a second adopt refused in one line; and three projects on PostgreSQL with one failing
late (its exposures, its load): the healthy ones loaded as they load alone, their next run a no-change rerun."""

from __future__ import annotations

import json

import duckdb
import pytest

from gatehouse.console_twin import ConsoleTwin, TwinSettings
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
from tests.drills.promises import break_console, broken_warehouse
from tests.warehouse.test_postgres_projects import ROOT_TABLES

pytestmark = pytest.mark.slow


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


def organisation(name: str) -> ConsoleTwin:
    seed, key = {
        "web": (3, "console-twin-local-key"),
        "mobile": (8, "console-Mb7Qx2Lp9Rt4Vn8Kc3"),
        "tools": (9, "console-Tl5Hw8Zr3Jd6Fs2Gy9"),
    }[name]
    return ConsoleTwin(size="small", seed=seed, settings=TwinSettings(api_key=key))


@pytest.fixture(scope="module")
def singles(tmp_path_factory) -> dict[str, tuple[dict[str, int], list]]:
    """web and mobile each alone, into DuckDB: what its first load loads and what its rerun asks. The same for
    every step that fails tools, so made once (four loads)."""
    work, singles = tmp_path_factory.mktemp("singles"), {}
    with pytest.MonkeyPatch.context() as env:
        env.setenv("DLT_DATA_DIR", str(work / "dlt"))
        for name in ("web", "mobile"):
            twin, path = organisation(name), work / f"{name}.duckdb"
            with twin.serve() as base_url:
                summaries = [
                    run_scheduled(Destination(duckdb_path=path), projects=[], source_args=source_args(twin, base_url))[0].summary
                    for _ in range(2)
                ]
                singles[name] = (summaries[0].rows_loaded, summaries[1].requests)
    return singles


@pytest.mark.parametrize("step", ["exposures", "load"])
@pytest.mark.usefixtures("quick_backoff")
def test_three_projects_on_postgres_one_failing_late(tmp_path, monkeypatch, request, singles, step):
    _, query = querying(f"projects_{step}", tmp_path, monkeypatch, request)
    twins = {name: organisation(name) for name in ("web", "mobile", "tools")}
    with twins["web"].serve() as web, twins["mobile"].serve() as mobile, twins["tools"].serve() as tools:
        urls = {"web": web, "mobile": mobile, "tools": tools}
        args = {name: {**source_args(twins[name], urls[name]), "max_attempts": 2} for name in twins}

        def run() -> dict:
            outcomes = run_scheduled(Destination(name="postgres"), projects=list(twins), projects_args=args)
            return {outcome.project: outcome for outcome in outcomes}

        break_console(twins["tools"], step)
        with broken_warehouse(monkeypatch, step, "console_tools"):
            outcomes = run()
        assert outcomes["tools"].error and outcomes["tools"].summary is None
        for name in ("web", "mobile"):
            rows, _ = singles[name]
            assert outcomes[name].summary.rows_loaded == rows, name
            for table in ROOT_TABLES:
                [(count,)] = query(f"select count(*) from console_{name}.{table}")
                assert count == rows.get(table, 0), (name, table)
        for twin in twins.values():
            twin.reset_requests()
        outcomes = run()
        for name in ("web", "mobile"):
            assert outcomes[name].summary.requests == singles[name][1], name
            assert outcomes[name].summary.new_versions == {"gates": 0, "dynamic_configs": 0}, name
    assert json.dumps(sorted(outcomes)) == json.dumps(["mobile", "tools", "web"])
