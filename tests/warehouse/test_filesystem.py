"""The `filesystem` destination (parquet files in a folder or bucket): the views run over the files through
dlt's dataset access, but on data the views are not written for. docs/destinations.md says why; this test
keeps that statement true."""

from __future__ import annotations

import os

import dlt
import pytest

from gatehouse.pipelines.models.build import view_definitions
from gatehouse.pipelines.warehouse.views import apply_views
from tests.views.console_dataset import console_pipeline, load_console


@pytest.fixture(scope="module")
def lake_pipeline(tmp_path_factory) -> dlt.Pipeline:
    os.environ.setdefault("RUNTIME__LOG_LEVEL", "ERROR")
    work = tmp_path_factory.mktemp("lake")
    destination = dlt.destinations.filesystem(bucket_url=str(work / "lake"))
    load_console(work / "lake.duckdb", work, destination=destination)
    return console_pipeline(work / "lake.duckdb", work, destination)


def test_every_view_runs_over_the_parquet_files_in_the_sessions_duckdb(lake_pipeline):
    with lake_pipeline.sql_client() as client:
        assert apply_views(client) == [definition.name for definition in view_definitions()]
        for definition in view_definitions():
            client.execute_sql(f"select count(*) from analytics.{definition.name}")
        # the raw tables were found: the views read loaded rows, not typed nulls
        assert client.execute_sql("select count(distinct gate_id) from analytics.stg_gate_versions") == [(12,)]
    # the views lived in that session's in-memory DuckDB: nothing was written next to the files
    with lake_pipeline.sql_client() as client:
        assert client.execute_sql("select count(*) from information_schema.tables where table_schema = 'analytics'") == [(0,)]


def test_without_scd2_or_merge_on_files_the_history_the_views_read_is_not_there(lake_pipeline):
    """dlt's filesystem destination has no scd2 (and, for parquet, no merge): each run appends."""
    with lake_pipeline.sql_client() as client:
        apply_views(client)
        # DuckDB and PostgreSQL: launch_banner has one closed and one current version, retired_gate none current.
        # On files both loads' versions stay open and the retired gate never retires.
        assert client.execute_sql(
            "select gate_id, count(*), count(case when is_current then 1 end) from analytics.stg_gate_versions"
            " where gate_id in ('launch_banner', 'retired_gate') group by gate_id order by gate_id"
        ) == [("launch_banner", 2, 2), ("retired_gate", 1, 1)]
        # merge tables repeat per run as well
        assert client.execute_sql("select count(*), count(distinct holdout_id) from analytics.stg_holdouts") == [(4, 2)]
