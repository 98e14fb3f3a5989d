"""A `gatehouse run --full-refresh` that fails in its last phase (every exposure read answers 500), on DuckDB and on
a real PostgreSQL server: one error line; the lists reloaded, the exposures and the extraction record as they were,
every analysis view there and answering; the next run that succeeds loads on from there."""

from __future__ import annotations

from gatehouse.console_twin import Fault
from gatehouse.pipelines.cli.main import main
from gatehouse.pipelines.models.build import view_definitions
from tests.drills.conftest import copy_database, duckdb_destination, error_lines, point_at
from tests.duckdb_and_postgres import on_duckdb_and_postgres, run_into
from tests.pipeline.conftest import make_twin

FIRST_PHASE = "ingestion_runs, qualifying_events, gates, dynamic_configs, holdouts"


@on_duckdb_and_postgres("gatehouse_full_refresh_failure")
def test_a_full_refresh_failing_in_its_last_phase_keeps_that_phases_tables_and_the_views(
    destination, tmp_path, monkeypatch, capsys, request
):
    # two attempts a request: the failure comes at once
    monkeypatch.setenv("SOURCES__CONSOLE__MAX_ATTEMPTS", "2")
    flags, query = run_into(destination, tmp_path, monkeypatch, request)
    run = ["run", "--no-progress", *flags]
    twin = make_twin()
    exposures = "select experiment_id, group_id, date, exposures from console.cumulative_exposures order by 1, 2, 3"
    extractions = "select extraction_id from console.extraction_runs order by 1"
    views = "select table_name from information_schema.views where table_schema = 'analytics' order by 1"
    with twin.serve() as base_url:
        point_at(monkeypatch, twin, base_url)
        if destination is duckdb_destination:  # the first run's file, made once for the suite: the runs after are the subject
            copy_database(request.getfixturevalue("seed_reference_path"), tmp_path / "gatehouse.duckdb", base_url)
        else:
            assert main(run) == 0, capsys.readouterr().err
        gate = twin.organisation.listed_gates()[0]["id"]
        with twin.lock:
            twin.organisation.gates[gate]["description"] = "edited before the refresh"
            twin.organisation.gates[gate]["version"] += 1
        assert main(run) == 0, capsys.readouterr().err
        live = len(twin.organisation.listed_gates())
        assert query("select count(*) from console.gates") == [(live + 1,)], "the edited gate has two versions"
        loaded_exposures, loaded_extractions = query(exposures), query(extractions)
        assert len(loaded_exposures) > 0 and len(loaded_extractions) == 2
        growth = query("select experiment_id, total_exposures from analytics.exposure_growth order by 1")
        applied = query(views)
        assert {name for (name,) in applied} >= {definition.name for definition in view_definitions()}

        twin.settings.faults = [Fault("server_error", rate=1.0, path_suffix="/cumulative_exposures")]
        capsys.readouterr()
        assert main([*run, "--full-refresh"]) == 2
        [line] = error_lines(capsys.readouterr().err)

        # the first phase started over (one version a gate), the last kept what it held
        assert query("select count(*), count(distinct id) from console.gates where _dlt_valid_to is null") == [(live, live)]
        assert query("select count(*) from console.gates") == [(live,)]
        assert query(exposures) == loaded_exposures
        assert query(extractions) == loaded_extractions
        # every view is there and answers over what the database holds
        assert query(views) == applied
        assert query("select count(*) from analytics.current_gates") == [(live,)]
        assert query("select experiment_id, total_exposures from analytics.exposure_growth order by 1") == growth
        # one line: what failed, what was reloaded and what was kept
        assert line.startswith("gatehouse: error: the console failed on GET /console/v1/experiments/"), line
        assert line.endswith(
            f"(--full-refresh reloaded before the failure: {FIRST_PHASE}; cumulative_exposures, extraction_runs"
            " kept as they were)"
        ), line

        twin.settings.faults = []
        assert main(run) == 0, capsys.readouterr().err
    assert query(exposures) == loaded_exposures
    assert len(query(extractions)) == 3
    assert query("select count(*) from analytics.current_gates") == [(live,)]
