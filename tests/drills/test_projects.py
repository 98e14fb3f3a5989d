"""Several consoles into one warehouse (issue 26): three projects from three twins, one answering 500 to
everything. The other two load exactly what a single-console load of the same organisation loads, each into
its own dataset; the failing one is named on the last line and the exit code is non-zero; a rerun with no
change asks no more than single-project reruns would.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

from gatehouse.console_twin import ConsoleTwin, Fault, PageServed
from gatehouse.pipelines.cli.main import main
from gatehouse.pipelines.run.consoles import run_projects
from gatehouse.pipelines.run.steps import RunOptions
from gatehouse.pipelines.warehouse.destination import Destination
from tests.drills.conftest import configure_project, copy_database, make_twin
from tests.drills.projects import SingleLoad, healthy_single_loads, organisation
from tests.drills.snapshot import assert_same_tables, snapshot

pytestmark = pytest.mark.slow


def organisations() -> dict[str, ConsoleTwin]:
    twins = {name: organisation(name) for name in ("web", "mobile", "tools")}
    twins["tools"].settings.faults = [Fault("server_error", rate=1.0)]
    return twins


@pytest.fixture(scope="module")
def single_loads(tmp_path_factory: pytest.TempPathFactory) -> dict[str, SingleLoad]:
    """Each healthy organisation loaded alone, as today, then rerun unchanged: its first load and the rerun's requests."""
    return healthy_single_loads(tmp_path_factory)


def test_three_projects_two_load_exactly_the_failing_one_is_named_and_a_rerun_asks_no_more(
    tmp_path, monkeypatch, capsys, quick_backoff, single_loads
):
    twins = organisations()
    database = tmp_path / "gatehouse.duckdb"
    monkeypatch.setenv("SOURCES__CONSOLE__PROJECTS__TOOLS__MAX_ATTEMPTS", "2")
    with twins["web"].serve() as web, twins["mobile"].serve() as mobile, twins["tools"].serve() as tools:
        for name, base_url in (("web", web), ("mobile", mobile), ("tools", tools)):
            configure_project(monkeypatch, name, twins[name], base_url)

        # Side by side: web's and mobile's first list pages each wait (up to 10 s) for the other's to be served;
        # one after another, the first would wait in vain.
        served = {"web": threading.Event(), "mobile": threading.Event()}
        met: dict[str, bool] = {}

        def meet(name: str, other: str) -> Callable[[PageServed], None]:
            def after_page(page: PageServed) -> None:
                served[name].set()
                if name not in met:
                    met[name] = served[other].wait(10)

            return after_page

        for name, other in (("web", "mobile"), ("mobile", "web")):
            twins[name].settings = dataclasses.replace(twins[name].settings, after_page=meet(name, other))
        # each project's load is written into the file at once, not kept in DuckDB's memory (and its log) until the
        # end, where the projects of one file together outgrew the run's memory cap
        wal, logged = database.with_name(database.name + ".wal"), []
        load = Destination.load

        def checked(self: Destination, *args, **kwargs):
            loaded = load(self, *args, **kwargs)
            logged.append(wal.stat().st_size if wal.exists() else 0)
            return loaded

        monkeypatch.setattr(Destination, "load", checked)
        assert main(["run", "--duckdb", str(database), "--no-progress"]) == 2
        monkeypatch.setattr(Destination, "load", load)
        assert logged and set(logged) == {0}, logged
        out, err = capsys.readouterr()
        assert met == {"web": True, "mobile": True}
        for name in ("web", "mobile"):
            twins[name].settings = dataclasses.replace(twins[name].settings, after_page=None)
        last = err.strip().splitlines()[-1]
        assert last.startswith("gatehouse: error: 1 of 3 projects failed: tools: "), last
        assert "500" in last and "web" not in last and "mobile" not in last, last
        for name in ("mobile", "web"):
            assert f"{database} (dataset console_{name}): project {name}" in out
        assert "  failed: " in out

        for name in ("web", "mobile"):
            assert_same_tables(snapshot(database, f"console_{name}"), single_loads[name].tables,
                               f"project {name}'s dataset")  # fmt: skip
        with duckdb.connect(str(database), read_only=True) as connection:
            schemas = {s for (s,) in connection.execute("select schema_name from information_schema.schemata").fetchall()}
            assert "console_tools" not in schemas or not connection.execute(
                "select count(*) from information_schema.tables where table_schema = 'console_tools'"
                " and table_name = 'extraction_runs'").fetchone()[0]  # fmt: skip
            assert "console" not in schemas, "several projects never load the single console's dataset"
        assert (tmp_path / "gatehouse.snapshot.duckdb").is_file()

        # A rerun with no change: each project asks exactly what its single-project rerun asks.
        for twin in twins.values():
            twin.reset_requests()
        outcomes, _ = run_projects(RunOptions(destination=Destination(duckdb_path=database), progress=False),
                                ["mobile", "tools", "web"])  # fmt: skip
        by_name = {outcome.project: outcome for outcome in outcomes}
        assert by_name["tools"].error and "500" in by_name["tools"].error
        for name in ("web", "mobile"):
            summary = by_name[name].summary
            assert summary is not None, by_name[name].error
            assert summary.requests == single_loads[name].rerun_requests == len(twins[name].requests), name
            assert summary.new_versions == {"gates": 0, "dynamic_configs": 0}, name

        # --project runs one; a name that is not configured is one line.
        assert main(["run", "--duckdb", str(database), "--no-progress", "--project", "web"]) == 0
        out, _ = capsys.readouterr()
        assert "project web" in out and "project mobile" not in out
        assert main(["run", "--duckdb", str(database), "--project", "ios"]) == 2
        assert capsys.readouterr().err.strip().splitlines()[-1] == (
            "gatehouse: error: --project ios: not a configured project (configured: mobile, tools, web);"
            " name it under [sources.console.projects.<name>] in .dlt/config.toml"
        )


def test_a_project_without_its_own_key_is_refused_and_never_borrows_the_single_consoles(tmp_path, monkeypatch, capsys):
    twin = make_twin()
    with twin.serve() as base_url:
        monkeypatch.setenv("SOURCES__CONSOLE__API_KEY", twin.settings.api_key)
        monkeypatch.setenv("SOURCES__CONSOLE__PROJECTS__WEB__BASE_URL", base_url)
        assert main(["run", "--duckdb", str(tmp_path / "gatehouse.duckdb"), "--no-progress"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "gatehouse: error: 1 of 1 projects failed: web: missing setting sources.console.projects.web.api_key"
        " (SOURCES__CONSOLE__PROJECTS__WEB__API_KEY): each project names its own console, never [sources.console]'s;"
        " set it in .dlt/config.toml, .dlt/secrets.toml or the environment"
    )
    assert twin.requests == []


def test_switching_from_one_console_to_projects_warns_that_the_single_consoles_dataset_is_still_counted(
    reference_path, tmp_path, monkeypatch, capsys
):
    twin = make_twin()
    database = str(tmp_path / "gatehouse.duckdb")
    with twin.serve() as base_url:
        monkeypatch.setenv("SOURCES__CONSOLE__BASE_URL", base_url)
        monkeypatch.setenv("SOURCES__CONSOLE__API_KEY", twin.settings.api_key)
        copy_database(reference_path, Path(database), base_url)  # the single console's load
        configure_project(monkeypatch, "web", twin, base_url)
        capsys.readouterr()
        assert main(["run", "--duckdb", database, "--no-progress"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-2] == (
        "warning: dataset console still holds a single console's load (project default): every view and report"
        ' shows it beside web; to retire it, see "Several projects" in the README'
    )
    with duckdb.connect(database, read_only=True) as connection:
        assert sorted(connection.execute("select distinct project from analytics.stg_gates").fetchall()) == [
            ("default",),
            ("web",),
        ]


def test_a_project_whose_key_is_refused_is_told_its_own_setting_and_no_demo(tmp_path, monkeypatch, capsys):
    twin = make_twin()
    with twin.serve() as base_url:
        monkeypatch.setenv("SOURCES__CONSOLE__PROJECTS__WEB__BASE_URL", base_url)
        monkeypatch.setenv("SOURCES__CONSOLE__PROJECTS__WEB__API_KEY", "console-a-key-the-twin-refuses")
        assert main(["run", "--duckdb", str(tmp_path / "gatehouse.duckdb"), "--no-progress"]) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("gatehouse: error: 1 of 1 projects failed: web: "), last
    assert "check sources.console.projects.web.api_key / SOURCES__CONSOLE__PROJECTS__WEB__API_KEY" in last, last
    assert "--demo" not in last and "sources.console.api_key" not in last and "SOURCES__CONSOLE__API_KEY" not in last
