"""The views over several consoles (issue 26): two organisations loaded as projects `web` and `mobile` into one
DuckDB file, and each alone into a file of its own. Every analysis view, filtered to a project and without its
`project` column, holds exactly the rows of that organisation's single-console load; `analytics.view_projects`
filters every view at once; a code reference to a gate id two projects share shows under both.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import duckdb
import pytest

from gatehouse.console_twin import ConsoleTwin, TwinSettings
from gatehouse.pipelines.cli.main import main
from gatehouse.pipelines.models.build import SHARED_TABLES, view_definitions
from gatehouse.pipelines.run.consoles import run_projects
from gatehouse.pipelines.run.steps import RunOptions
from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.pipelines.warehouse.views import apply_views
from tests.drills.computed_views import views_as_tables
from tests.drills.conftest import configure_project, copy_database, load
from tests.pipeline.conftest import make_twin, seed_reference
from tests.views.conftest import query
from tests.views.test_destinations_agree import keyed_rows
from tests.warehouse.test_postgres_run import clockless

pytestmark = pytest.mark.slow

MOBILE_KEY = "console-Vw3Nb8Qs5Ty2Lk7Rx4"
PROJECTS = ("mobile", "web")
# The views with a project column: all but the staging views of the code references, which are no project's.
PROJECT_VIEWS = [d for d in view_definitions() if not any(table in d.sql for table in SHARED_TABLES)]


def organisations() -> dict[str, ConsoleTwin]:
    return {"web": make_twin(),
            "mobile": ConsoleTwin(size="small", seed=8, settings=TwinSettings(api_key=MOBILE_KEY))}  # fmt: skip


@pytest.fixture(scope="module")
def loads(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """`projects`: both organisations as projects of one file (run_projects applies the views once); each
    organisation's name: it alone, as a single console (web's the suite's once-made load of its twin, copied)."""
    work = tmp_path_factory.mktemp("projects_views")
    twins = organisations()
    paths = {"projects": work / "projects.duckdb", **{name: work / f"{name}.duckdb" for name in twins}}
    with pytest.MonkeyPatch.context() as env, twins["web"].serve() as web, twins["mobile"].serve() as mobile:
        urls = {"web": web, "mobile": mobile}
        copy_database(seed_reference(tmp_path_factory), paths["web"], web)
        load(twins["mobile"], mobile, paths["mobile"])
        for name, twin in twins.items():
            configure_project(env, name, twin, urls[name])
        outcomes, _ = run_projects(
            RunOptions(destination=Destination(duckdb_path=paths["projects"]), progress=False), list(PROJECTS)
        )
        assert [outcome.error for outcome in outcomes] == [None, None]
    return paths


@pytest.fixture(scope="module")
def view_rows(loads: dict[str, Path]) -> dict[str, dict[str, tuple[list[str], list[tuple]]]]:
    """Every view's column names and rows in each of `loads`' files, by file and view, computed once for the module:
    each file's views in build order, each into a table the views above it read (tests/drills/computed_views.py: a
    view read on its own plans the views under it afresh, the costly ones once a file for each view above them), then
    rolled back, the file left as it was loaded."""
    computed: dict[str, dict[str, tuple[list[str], list[tuple]]]] = {}
    for database, path in loads.items():
        with duckdb.connect(str(path)) as connection, views_as_tables(connection) as views:
            computed[database] = {}
            for name in views:
                cursor = connection.execute(f'select * from analytics."{name}"')
                computed[database][name] = ([column[0] for column in cursor.description], cursor.fetchall())
    return computed


def without_project(names: list[str], rows: list[tuple], key: tuple[str, ...]) -> list[tuple]:
    """The rows without their first column, `project`, load-time values reduced to whether they are there."""
    assert names[0] == "project"
    return keyed_rows(names[1:], clockless(names[1:], [row[1:] for row in rows]), tuple(c for c in key if c != "project"))


@pytest.mark.parametrize("definition", PROJECT_VIEWS, ids=lambda d: d.name)
def test_each_projects_rows_are_its_single_console_rows(view_rows, definition):
    names, every = view_rows["projects"][definition.name]  # each project's rows taken from the one read
    for project in PROJECTS:
        rows = [row for row in every if row[0] == project]
        single_names, single_rows = view_rows[project][definition.name]
        assert single_names == names
        assert {row[0] for row in single_rows} <= {"default"}
        got, want = without_project(names, rows, definition.key), without_project(names, single_rows, definition.key)
        assert got == want, f"{definition.name}, project {project}"
    assert [row for row in every if row[0] not in PROJECTS] == []  # none of another project, nor of none


def test_the_views_worth_checking_have_rows_in_both_projects(view_rows):
    for name in (
        "stale_gates_by_owner",
        "cleanup_worklist",
        "exposure_growth",
        "exposure_srm",
        "ingestion_source_health",
        "as_of",
    ):
        names, rows = view_rows["projects"][name]
        assert names[0] == "project", name
        counts = Counter(row[0] for row in rows)
        assert set(counts) == set(PROJECTS) and min(counts.values()) > 0, (name, counts)


def test_view_projects_filters_every_view(loads, tmp_path, monkeypatch, capsys):
    database = tmp_path / "filtered.duckdb"
    shutil.copyfile(loads["projects"], database)
    apply_views(database, projects=["web"])
    assert query(database, "select project from analytics.view_projects") == [("web",)]
    # every view computed once, in build order (an opening cost as much as a query, a view read on its own its chain)
    with duckdb.connect(str(database)) as connection, views_as_tables(connection):
        for definition in PROJECT_VIEWS:
            projects = connection.execute(f"select distinct project from analytics.{definition.name}").fetchall()
            assert {p for (p,) in projects} <= {"web"}, definition.name
    assert query(database, "select * from analytics.stale_gates order by gate_id") == query(
        loads["projects"], "select * from analytics.stale_gates where project = 'web' order by gate_id"
    )
    # kept when the views are applied again; `[]` shows every project
    apply_views(database)
    assert query(database, "select distinct project from analytics.as_of") == [("web",)]
    apply_views(database, projects=[])
    assert query(database, "select project from analytics.as_of order by 1") == [("mobile",), ("web",)]

    # the command: --projects, then --projects all (the file holds no single console: the projects are configured)
    for name in PROJECTS:
        monkeypatch.setenv(f"SOURCES__CONSOLE__PROJECTS__{name.upper()}__BASE_URL", "http://127.0.0.1:9")
    assert main(["views", "--duckdb", str(database), "--projects", "mobile"]) == 0
    assert query(database, "select project from analytics.as_of") == [("mobile",)]
    assert main(["views", "--duckdb", str(database), "--projects", "all"]) == 0
    assert query(database, "select project from analytics.as_of order by 1") == [("mobile",), ("web",)]
    assert main(["views", "--duckdb", str(database), "--projects", "web,Nope"]) == 2
    assert "project name 'Nope'" in capsys.readouterr().err


def test_a_code_reference_to_an_id_two_projects_hold_shows_under_both(loads, tmp_path):
    database = tmp_path / "code_refs.duckdb"
    shutil.copyfile(loads["projects"], database)
    [(shared, mobile_gate)] = query(
        database,
        "select (select min(gate_id) from analytics.stale_gates where project = 'web'),"
        " (select min(gate_id) from analytics.stale_gates where project = 'mobile')",
    )
    with duckdb.connect(str(database)) as connection:
        # the mobile console has a gate of the same id as one of web's (its history too)
        connection.execute("update console_mobile.gates set id = ? where id = ?", [shared, mobile_gate])
        connection.execute("create schema console")
        connection.execute(
            "create table console.code_references (entity_type varchar, entity_id varchar, repository varchar,"
            ' branch varchar, "commit" varchar, path varchar, line bigint, "column" bigint, text varchar,'
            " matched varchar, match_kind varchar, scanned_at timestamptz, scan_id varchar)"
        )
        connection.execute(
            "insert into console.code_references values"
            " ('gate', ?, 'app', 'main', 'c1', 'src/a.py', 3, 5, 'x', ?, 'literal', '2026-11-20 00:00:00+00', 's1'),"
            " ('gate', 'ghost_gate', 'app', 'main', 'c1', 'src/b.py', 7, 1, 'y', 'ghost_gate', 'check_call', '2026-11-20"
            " 00:00:00+00', 's1')",
            [shared, shared],
        )
        connection.execute("create table console.code_reference_scans as select 's1' as scan_id, 'app' as repository,"
                           " timestamptz '2026-11-20 00:00:00+00' as scanned_at")  # fmt: skip
    apply_views(database)
    assert query(
        database,
        "select project, gate_id, code_reference_count, code_locations, projects_with_id from analytics.cleanup_worklist"
        " where gate_id = ? order by project",
        [shared],
    ) == [("mobile", shared, 1, "app: src/a.py:3", 2), ("web", shared, 1, "app: src/a.py:3", 2)]
    assert query(database, "select project, entity_id, console_status, projects_with_id from analytics.code_orphans") == [
        (None, "ghost_gate", "never existed", 0)
    ]


def test_a_console_dataset_is_the_base_or_a_project_beside_it_that_recorded_an_extraction(tmp_path):
    from gatehouse.pipelines.models.build import raw_tables
    from gatehouse.pipelines.warehouse.duckdb_file import duckdb_file_client

    database = tmp_path / "datasets.duckdb"
    with duckdb.connect(str(database)) as connection:
        for schema, tables in {
            "console": ("extraction_runs", "code_references"),
            "console_web": ("extraction_runs", "gates"),
            "console_web_staging": ("extraction_runs",),  # dlt's staging dataset of console_web
            "console_tools": ("gates",),  # no extraction recorded yet
            "console_Odd": ("extraction_runs",),  # not a name gatehouse gives a project
            "elsewhere": ("extraction_runs",),
        }.items():
            connection.execute(f'create schema "{schema}"')
            for table in tables:
                connection.execute(f'create table "{schema}".{table} (id varchar)')
    with duckdb_file_client(database) as client:
        raw = raw_tables(client)
    assert [(d.project, d.dataset, sorted(d.columns)) for d in raw.projects] == [
        ("default", "console", ["extraction_runs"]),
        ("web", "console_web", ["extraction_runs", "gates"]),
    ]
    assert (raw.shared.dataset, sorted(raw.shared.columns)) == ("console", ["code_references"])
    with duckdb_file_client(database, dataset="nothing") as client:
        assert raw_tables(client).projects == ()
