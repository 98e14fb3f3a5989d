"""Several projects into one PostgreSQL warehouse (issue 26): each project into its own schema
`console_<name>`, a failing project named on the last line, the others loaded as a single console would be."""

from __future__ import annotations

import json

import psycopg2
import pytest

from gatehouse.console_twin import ConsoleTwin, Fault, TwinSettings
from gatehouse.pipelines.cli.main import main
from gatehouse.pipelines.run.steps import RunOptions, run_extraction
from gatehouse.pipelines.warehouse.destination import Destination
from tests.drills.snapshot import snapshot

pytestmark = pytest.mark.slow

TOOLS_KEY = "console-Pq4Wd9Lx2Hs7Kz3Bv8"
ROOT_TABLES = ("gates", "dynamic_configs", "holdouts", "qualifying_events", "cumulative_exposures", "ingestion_runs",
               "extraction_runs")


def test_two_projects_into_postgres_one_failing(postgres_server, tmp_path, monkeypatch, capsys):
    credentials = postgres_server.database("gatehouse_projects")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DESTINATION__POSTGRES__CREDENTIALS", credentials)
    monkeypatch.setenv("DLT_DATA_DIR", str(tmp_path / "dlt"))
    monkeypatch.setenv("SOURCES__CONSOLE__PROJECTS__TOOLS__MAX_ATTEMPTS", "1")
    web = ConsoleTwin(size="small", seed=3)
    tools = ConsoleTwin(size="small", seed=4, settings=TwinSettings(api_key=TOOLS_KEY, faults=[Fault("server_error", rate=1.0)]))
    reference = tmp_path / "single.duckdb"
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
        run_extraction(RunOptions(destination=Destination(duckdb_path=reference), progress=False, source_args={
            "base_url": web_url, "api_key": web.settings.api_key, "experiment_ids": web.experiment_ids,
            "ingestion_run_ids": web.ingestion_run_ids}))  # fmt: skip
    expected = snapshot(reference, "console")
    with psycopg2.connect(credentials) as connection, connection.cursor() as cursor:
        for table in ROOT_TABLES:
            cursor.execute(f"select count(*) from console_web.{table}")
            assert cursor.fetchone()[0] == len(expected[f"console.{table}"].rows), table
        cursor.execute("select count(*) from information_schema.tables where table_schema = 'console_tools'"
                       " and table_name = 'extraction_runs'")  # fmt: skip
        assert cursor.fetchone()[0] == 0
        cursor.execute("select count(*) from information_schema.schemata where schema_name = 'console'")
        assert cursor.fetchone()[0] == 0
