"""Several projects into one PostgreSQL warehouse (issue 26): each project into its own schema
`console_<name>`, a failing project named on the last line, the others loaded as a single console would be.

What a single console loads is the suite's once-made loads of the same organisations, read only: web's the seed-3
twin's (tests/pipeline/conftest.py), mobile's the drills' (tests/drills/projects.py)."""

from __future__ import annotations

import json

import duckdb
import psycopg2
import pytest

from gatehouse.console_twin import ConsoleTwin, Fault, TwinSettings
from gatehouse.pipelines.cli.main import main
from gatehouse.pipelines.run.steps import RunOptions
from gatehouse.pipelines.warehouse.destination import Destination
from tests.drills.projects import organisation, single_load_path
from tests.drills.snapshot import snapshot
from tests.pipeline.conftest import seed_reference

pytestmark = pytest.mark.slow

TOOLS_KEY = "console-Pq4Wd9Lx2Hs7Kz3Bv8"
ROOT_TABLES = (
    "gates",
    "dynamic_configs",
    "holdouts",
    "qualifying_events",
    "cumulative_exposures",
    "ingestion_runs",
    "extraction_runs",
)


def test_two_projects_into_postgres_one_failing(postgres_server, tmp_path_factory, tmp_path, monkeypatch, capsys):
    credentials = postgres_server.database("gatehouse_projects")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DESTINATION__POSTGRES__CREDENTIALS", credentials)
    monkeypatch.setenv("DLT_DATA_DIR", str(tmp_path / "dlt"))
    monkeypatch.setenv("SOURCES__CONSOLE__PROJECTS__TOOLS__MAX_ATTEMPTS", "1")
    web = ConsoleTwin(size="small", seed=3)
    tools = ConsoleTwin(size="small", seed=4, settings=TwinSettings(api_key=TOOLS_KEY, faults=[Fault("server_error", rate=1.0)]))
    with web.serve() as web_url, tools.serve() as tools_url:
        for name, twin, url in (("web", web, web_url), ("tools", tools, tools_url)):
            prefix = f"SOURCES__CONSOLE__PROJECTS__{name.upper()}__"
            monkeypatch.setenv(prefix + "BASE_URL", url)
            monkeypatch.setenv(prefix + "API_KEY", twin.settings.api_key)
            monkeypatch.setenv(prefix + "EXPERIMENT_IDS", json.dumps(twin.experiment_ids))
            monkeypatch.setenv(prefix + "INGESTION_RUN_IDS", json.dumps(twin.ingestion_run_ids))
        assert main(["run", "--no-progress", "--destination", "postgres"]) == 2
        last = capsys.readouterr().err.strip().splitlines()[-1]
        assert last.startswith("gatehouse: error: 1 of 2 projects failed: tools: ") and "500" in last, last
    expected = snapshot(seed_reference(tmp_path_factory), "console")  # web alone: the same twin's first load
    with psycopg2.connect(credentials) as connection, connection.cursor() as cursor:
        for table in ROOT_TABLES:
            cursor.execute(f"select count(*) from console_web.{table}")
            assert cursor.fetchone()[0] == len(expected[f"console.{table}"].rows), table
        cursor.execute("select count(*) from information_schema.tables where table_schema = 'console_tools'"
                       " and table_name = 'extraction_runs'")  # fmt: skip
        assert cursor.fetchone()[0] == 0
        cursor.execute("select count(*) from information_schema.schemata where schema_name = 'console'")
        assert cursor.fetchone()[0] == 0


# the views a person reads first, and the clock they count ages from
COMPARED_VIEWS = (
    "as_of",
    "stale_gates_by_owner",
    "cleanup_worklist",
    "exposure_growth",
    "exposure_srm",
    "ingestion_source_health",
)


def test_the_views_on_postgres_read_both_projects_and_filter_them(postgres_server, tmp_path_factory, tmp_path, monkeypatch):
    """Two projects into PostgreSQL: each project's rows of the views are its single-console rows (loaded into
    DuckDB), and analytics.view_projects filters them."""
    from gatehouse.pipelines.models.build import view_definitions
    from gatehouse.pipelines.run.consoles import run_projects
    from tests.views.test_destinations_agree import values_agree
    from tests.views.test_projects_views import without_project

    credentials = postgres_server.database("gatehouse_projects_views")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DESTINATION__POSTGRES__CREDENTIALS", credentials)
    monkeypatch.setenv("DLT_DATA_DIR", str(tmp_path / "dlt"))
    twins = {"web": ConsoleTwin(size="small", seed=3), "mobile": organisation("mobile")}
    singles = {"web": seed_reference(tmp_path_factory), "mobile": single_load_path(tmp_path_factory, "mobile")}
    with twins["web"].serve() as web_url, twins["mobile"].serve() as mobile_url:
        for name, url in (("web", web_url), ("mobile", mobile_url)):
            prefix = f"SOURCES__CONSOLE__PROJECTS__{name.upper()}__"
            monkeypatch.setenv(prefix + "BASE_URL", url)
            monkeypatch.setenv(prefix + "API_KEY", twins[name].settings.api_key)
            monkeypatch.setenv(prefix + "EXPERIMENT_IDS", json.dumps(twins[name].experiment_ids))
            monkeypatch.setenv(prefix + "INGESTION_RUN_IDS", json.dumps(twins[name].ingestion_run_ids))
        postgres = Destination(name="postgres")
        outcomes, _ = run_projects(RunOptions(destination=postgres, progress=False), ["mobile", "web"])
        assert [outcome.error for outcome in outcomes] == [None, None]

    keys = {d.name: d.key for d in view_definitions()}
    with psycopg2.connect(credentials) as connection, connection.cursor() as cursor:

        def rows(sql: str) -> tuple[list[str], list[tuple]]:
            cursor.execute(sql)
            return [column[0] for column in cursor.description], cursor.fetchall()

        for name in COMPARED_VIEWS:
            for project in twins:
                names, got = rows(f"select * from analytics.{name} where project = '{project}'")
                want_names, want = duckdb_view_rows(singles[project], name)
                assert names == want_names
                got, want = without_project(names, got, keys[name]), without_project(names, want, keys[name])
                assert len(got) == len(want) > 0, (name, project)
                for got_row, want_row in zip(got, want):
                    assert all(values_agree(g, w) for g, w in zip(got_row, want_row)), (name, project, got_row, want_row)

    postgres.views.apply(projects=["web"])
    with psycopg2.connect(credentials) as connection, connection.cursor() as cursor:
        for name in COMPARED_VIEWS:
            cursor.execute(f"select distinct project from analytics.{name}")
            assert cursor.fetchall() == [("web",)], name
    postgres.views.apply(projects=[])
    with psycopg2.connect(credentials) as connection, connection.cursor() as cursor:
        cursor.execute("select project from analytics.as_of order by 1")
        assert cursor.fetchall() == [("mobile",), ("web",)]


def duckdb_view_rows(database, name: str) -> tuple[list[str], list[tuple]]:
    """A view's column names and rows in a DuckDB file, read only."""
    with duckdb.connect(str(database), read_only=True) as connection:
        cursor = connection.execute(f"select * from analytics.{name}")
        return [column[0] for column in cursor.description], cursor.fetchall()
