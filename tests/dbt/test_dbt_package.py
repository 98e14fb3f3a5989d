"""The dbt package in dbt/: current with the model files, built and tested by dbt on DuckDB and PostgreSQL, every model
holding the rows of gatehouse's view of the same name (over the demo's two projects on DuckDB, the single console and
a project on PostgreSQL), and a team's own project building on `stale_gates`."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.models import dbt_package
from gatehouse.pipelines.models.build import DEFAULT_PARAMETERS
from gatehouse.pipelines.models.graph import view_definitions
from gatehouse.pipelines.warehouse.dbt_build import DBT_SCHEMA, build_with_dbt
from gatehouse.pipelines.warehouse.destination import Destination
from tests.dbt.conftest import DOWNSTREAM_SCHEMA, FRESHNESS_VARS
from tests.drills.computed_views import views_as_tables

DEFINITIONS = view_definitions()
TABLES = dbt_package.PARAMETER_MODELS


def test_the_committed_package_is_what_make_dbt_writes():
    stale = dbt_package.stale_files()
    assert not stale, f"dbt/ is stale, run `make dbt`: {', '.join(stale)}"


def sorted_rows(read, schema: str, name: str) -> tuple[list[str], list[tuple]]:
    columns, rows = read(f"select * from {schema}.{name}")
    return columns, sorted(rows, key=repr)


def test_dbt_builds_every_model_and_passes_every_test_on_duckdb(duckdb_build):
    assert duckdb_build.finished.returncode == 0, duckdb_build.finished.stdout + duckdb_build.finished.stderr
    statuses = {result["unique_id"]: result["status"] for result in duckdb_build.results["results"]}
    assert set(statuses.values()) <= {"success", "pass"}
    models = {unique_id.split(".")[-1] for unique_id in statuses if unique_id.startswith("model.")}
    assert models == {d.name for d in DEFINITIONS} | set(TABLES) | {"gates_to_remove"}
    # every key stated on a model's first line is tested: unique, and not null
    tests = [unique_id.split(".")[2] for unique_id in statuses if unique_id.startswith("test.")]
    for definition in DEFINITIONS:
        assert any(test.startswith(("unique_key_", "unique_")) and definition.name in test for test in tests), definition.name
        assert any(test.startswith("not_null_") and definition.name in test for test in tests) or not definition.not_null_key


@pytest.fixture(scope="module")
def duckdb_model_rows(duckdb_build) -> dict[str, dict[str, tuple[list[str], list[tuple]]]]:
    """Every model's and every view's sorted rows, by schema and name. Each schema's views are computed once, in build
    order, each into a table the views above it read (a view read on its own plans the chain of views under it
    afresh), then rolled back: the file is left as dbt built it."""
    computed: dict[str, dict[str, tuple[list[str], list[tuple]]]] = {}
    for schema in (DOWNSTREAM_SCHEMA, "analytics"):
        with views_as_tables(duckdb_build.connection, schema):
            tables = duckdb_build.read(f"select table_name from duckdb_tables() where schema_name = '{schema}'")[1]
            computed[schema] = {name: sorted_rows(duckdb_build.read, schema, name) for (name,) in tables}
    return computed


def assert_model_holds_the_view(computed: dict, models_schema: str, name: str) -> tuple[list[str], list[tuple]]:
    """dbt's model `name` (in `models_schema`) has the columns and rows of gatehouse's view of that name; its rows."""
    model, view = computed[models_schema].get(name), computed["analytics"].get(name)
    assert model is not None, f"dbt built no model {name}"
    assert view is not None, f"gatehouse has no view {name}"
    assert model == view
    return model


@pytest.mark.parametrize("name", [d.name for d in DEFINITIONS] + list(TABLES))
def test_each_model_holds_the_rows_of_the_view_on_duckdb(duckdb_model_rows, name):
    assert_model_holds_the_view(duckdb_model_rows, DOWNSTREAM_SCHEMA, name)


def test_the_downstream_project_builds_on_stale_gates(duckdb_build):
    _, rows = duckdb_build.read(f"select project, gate_id, recommended_action from {DOWNSTREAM_SCHEMA}.gates_to_remove")
    _, stale = duckdb_build.read(
        "select project, gate_id, recommended_action from analytics.stale_gates"
        " where staleness in ('marked stale', 'meets stale rules') and recommended_action like 'remove the flag%'"
    )
    assert rows and sorted(rows) == sorted(stale)


def test_dbt_source_freshness_is_the_time_of_the_last_extraction_run(duckdb_build):
    (result,) = duckdb_build.freshness["results"]
    assert result["unique_id"] == f"source.gatehouse.gatehouse.{dbt_package.FRESHNESS_TABLE}"
    _, [(last_run,)] = duckdb_build.read(f"select max({dbt_package.FRESHNESS_FIELD}) from console_web.extraction_runs")
    assert datetime.fromisoformat(result["max_loaded_at"]) == last_run
    warn_after = FRESHNESS_VARS["gatehouse_freshness_warn_after_hours"]
    assert result["criteria"]["warn_after"] == {"count": warn_after, "period": "hour"}
    assert result["criteria"]["error_after"] == {"count": dbt_package.FRESHNESS_HOURS["error_after"], "period": "hour"}
    assert result["status"] == "pass"  # the demo's runs started moments ago


def test_gatehouse_views_dbt_builds_on_postgres_with_the_destinations_credentials(postgres_build):
    build, output = postgres_build
    models = len(DEFINITIONS) + len(TABLES)
    assert f"postgres: {models} dbt models in schema {DBT_SCHEMA}" in output and "(projects default, web)" in output
    _, parameters = build.read(f"select name, value from {DBT_SCHEMA}.view_parameters")
    assert dict(parameters) == {name: default for name, (default, _) in DEFAULT_PARAMETERS.items()}


@pytest.fixture(scope="module")
def postgres_model_rows(postgres_build) -> dict[str, dict[str, tuple[list[str], list[tuple]]]]:
    """As `duckdb_model_rows` on PostgreSQL: a view there is bound to the views under it, so each keeps its name and
    is replaced by one over a table of its rows, which the views above it then read; all rolled back."""
    build, _ = postgres_build
    order = {definition.name: index for index, definition in enumerate(DEFINITIONS)}
    computed: dict[str, dict[str, tuple[list[str], list[tuple]]]] = {}
    for schema in (DBT_SCHEMA, "analytics"):
        views = [name for (name,) in build.read(f"select viewname from pg_views where schemaname = '{schema}'")[1]]
        tables = [name for (name,) in build.read(f"select tablename from pg_tables where schemaname = '{schema}'")[1]]
        with build.connection.cursor() as cursor:
            cursor.execute("begin")
            try:
                for view in sorted(views, key=lambda name: order.get(name, -1)):
                    cursor.execute(f'create table {schema}."computed {view}" as select * from {schema}."{view}"')
                    cursor.execute(f'create or replace view {schema}."{view}" as select * from {schema}."computed {view}"')
                computed[schema] = {name: sorted_rows(build.read, schema, name) for name in views + tables}
            finally:
                cursor.execute("rollback")
    return computed


@pytest.mark.parametrize("name", [d.name for d in DEFINITIONS] + list(TABLES))
def test_each_model_holds_the_rows_of_the_view_on_postgres(postgres_model_rows, name):
    columns, rows = assert_model_holds_the_view(postgres_model_rows, DBT_SCHEMA, name)
    if columns[0] == "project" and name != "code_orphans":
        assert {row[0] for row in rows} == {"default", "web"}, "both datasets are read"


def test_dbt_is_refused_in_one_line_where_the_package_cannot_build():
    with pytest.raises(GatehouseError, match="builds on duckdb and postgres, not snowflake"):
        build_with_dbt(Destination(name="snowflake"))


def test_gatehouse_views_works_without_dbt_installed(console_db, tmp_path):
    """`dbt` made unimportable in a new interpreter: `gatehouse views` applies the views, `--dbt` says what to install."""
    database = tmp_path / "no_dbt.duckdb"
    database.write_bytes(Path(console_db).read_bytes())
    script = (
        "import sys; sys.modules['dbt'] = None\n"
        "from gatehouse.pipelines.cli.main import main\n"
        f"assert main(['views', '--duckdb', {str(database)!r}]) == 0\n"
        f"sys.exit(main(['views', '--duckdb', {str(database)!r}, '--dbt']))\n"
    )
    finished = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert finished.returncode == 2, finished.stderr
    assert f"{len(DEFINITIONS)} views in schema analytics" in finished.stdout
    assert "gatehouse views --dbt needs dbt and its duckdb adapter: pip install 'gatehouse-console[dbt]'" in finished.stderr
