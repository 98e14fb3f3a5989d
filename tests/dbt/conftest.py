"""The dbt package built once per warehouse and session, beside gatehouse's own views over the same load.

DuckDB: the demo's load (`gatehouse run --demo`: projects mobile and web, datasets `console_mobile` and `console_web`),
and the downstream project in `downstream/` (a team's own, which adds the package by local path and names those two
projects) built by dbt's own runner. PostgreSQL: the hand-built console (`console_db`, tests/conftest.py) as the single
console, dataset `console` (project `default`), and again as project `web`, dataset `console_web`, so the raw tables
are read as a union of the single console's dataset and a project's, and the package built by `gatehouse views --dbt`
through dlt's runner. Each warehouse is built once: a dbt invocation costs seconds.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dlt
import duckdb
import pytest
import yaml

from tests.report.conftest import demo_copy
from tests.views.console_dataset import hand_built_console, load_console

DOWNSTREAM = Path(__file__).parent / "downstream"
# the dataset of the second project, beside `console`
PROJECT_DATASET = "console_web"
DOWNSTREAM_SCHEMA = "team_analytics"
# `dbt source freshness` on the demo: the source's dataset is the project web's (the demo loads no `console`), and
# the hours before a warning a var (its default is the package's)
FRESHNESS_VARS = {"gatehouse_schema": "console_web", "gatehouse_freshness_warn_after_hours": 1000}


@dataclass(frozen=True)
class DbtBuild:
    """One warehouse after `dbt build`: dbt's result and a way to read both the views and the models."""

    finished: Any  # the dbt process (returncode, stdout, stderr); None where gatehouse ran it
    results: Any  # dbt's run_results.json
    read: Any  # (sql) -> (column names, rows)
    freshness: Any = None  # dbt's sources.json of `dbt source freshness` (DuckDB: FRESHNESS_VARS)
    connection: Any = None  # the reads' connection, writable for views computed as tables and rolled back


def load_second_project(destination: Any, work: Path) -> None:
    pipeline = dlt.pipeline(
        pipeline_name="hand_built_web", destination=destination, dataset_name=PROJECT_DATASET, pipelines_dir=str(work / "dlt_web")
    )
    for load in (1, 2):
        pipeline.run(hand_built_console(load))


def downstream_project(work: Path) -> Path:
    """The downstream project copied into `work` (dbt writes into a project's folder), its local package path made
    absolute as the committed folder resolves it."""
    project = work / "downstream"
    shutil.copytree(DOWNSTREAM, project)
    packages = yaml.safe_load((DOWNSTREAM / "packages.yml").read_text(encoding="utf-8"))
    for package in packages["packages"]:
        package["local"] = str((DOWNSTREAM / package["local"]).resolve())
    (project / "packages.yml").write_text(yaml.safe_dump(packages), encoding="utf-8")
    return project


@pytest.fixture(scope="session")
def duckdb_build(tmp_path_factory) -> Iterator[DbtBuild]:
    database = demo_copy(tmp_path_factory, "dbt_duckdb")  # dbt writes its models into it
    work = database.parent
    project = downstream_project(work)
    (work / "profiles.yml").write_text(
        yaml.safe_dump(
            {
                "flag_cleanup": {
                    "target": "duckdb",
                    # one thread: the models' queries are small, and a second dbt thread only added its handovers
                    "outputs": {"duckdb": {"type": "duckdb", "path": str(database), "schema": DOWNSTREAM_SCHEMA, "threads": 1}},
                }
            }
        ),
        encoding="utf-8",
    )
    # in a process of its own: dbt-duckdb keeps its connection to the file open for the rest of the process.
    # The profile is the only one dbt reads (never a user's ~/.dbt); `deps` installs the package by its path.
    script = (
        "import sys\n"
        "from dbt.cli.main import dbtRunner\n"
        f"options = ['--project-dir', {str(project)!r}, '--profiles-dir', {str(work)!r}]\n"
        # no parse kept for the next invocation: freshness's other vars make dbt parse the whole project again.
        # dbt's log file keeps its warnings and errors, not a line of every step of every node (formatting and
        # writing those was a share of the build); of dbt's artifacts only the results the tests read are written,
        # by dbt's own writer (manifest.json, written after each parse and each command, was the rest)
        "quiet = ['--quiet', '--no-send-anonymous-usage-stats', '--no-partial-parse', '--log-level-file', 'warn',"
        " '--no-write-json']\n"
        "runner = dbtRunner()\n"
        "deps = runner.invoke([*quiet, 'deps', *options])\n"
        "built = runner.invoke([*quiet, 'build', *options]) if deps.success else deps\n"
        "if built.result is not None:\n"
        f"    built.result.write({str(work / 'run_results.json')!r})\n"
        f"fresh = runner.invoke([*quiet, 'source', 'freshness', *options, '--vars', {json.dumps(FRESHNESS_VARS)!r}])\n"
        "if fresh.result is not None:\n"
        f"    fresh.result.write({str(work / 'sources.json')!r})\n"
        "sys.exit(0 if built.success else 1)\n"
    )
    finished = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=240, cwd=work)
    results_file = work / "run_results.json"
    results = json.loads(results_file.read_text(encoding="utf-8")) if results_file.exists() else None

    # one connection for every test's reads (the build's process has ended): opening the file read its catalog anew.
    # Writable, for the models' rows computed once in a transaction that is rolled back (test_dbt_package.py)
    connection = duckdb.connect(str(database))

    def read(sql: str) -> tuple[list[str], list[tuple]]:
        cursor = connection.execute(sql)
        return [column[0] for column in cursor.description], cursor.fetchall()

    freshness = json.loads((work / "sources.json").read_text(encoding="utf-8")) if (work / "sources.json").exists() else None
    yield DbtBuild(finished, results, read, freshness, connection)
    connection.close()


@pytest.fixture(scope="session")
def postgres_build(postgres_server, tmp_path_factory) -> Iterator[tuple[DbtBuild, str]]:
    """The same two consoles on PostgreSQL, gatehouse's views applied, then `gatehouse views --dbt`; its output."""
    from gatehouse.pipelines.cli.main import main

    work = tmp_path_factory.mktemp("dbt_postgres")
    credentials = postgres_server.database("dbt_package")
    destination = dlt.destinations.postgres(credentials=credentials)
    load_console(work / "hand_built.duckdb", work, destination=destination)
    load_second_project(destination, work)
    with pytest.MonkeyPatch.context() as env, pytest.MonkeyPatch.context() as capture:
        env.chdir(work)
        env.setenv("DESTINATION__POSTGRES__CREDENTIALS", credentials)
        env.setenv("DLT_DATA_DIR", str(work / "dlt"))
        assert main(["views", "--destination", "postgres"]) == 0
        output = work / "views-dbt.txt"
        with open(output, "w", encoding="utf-8") as stream:
            capture.setattr("sys.stdout", stream)
            status = main(["views", "--destination", "postgres", "--dbt"])
        assert status == 0, output.read_text(encoding="utf-8")

    import psycopg2

    # one connection for every test's reads, each its own transaction: a connection each was a server process each
    connection = psycopg2.connect(credentials)
    connection.autocommit = True

    def read(sql: str) -> tuple[list[str], list[tuple]]:
        with connection.cursor() as cursor:
            cursor.execute(sql)
            return [column[0] for column in cursor.description], cursor.fetchall()

    yield DbtBuild(None, None, read, connection=connection), output.read_text(encoding="utf-8")
    connection.close()
