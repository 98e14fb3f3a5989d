"""The views on a real PostgreSQL server beyond the rows: an empty dataset, a view the server refuses, re-application."""

from __future__ import annotations

import dlt
import pytest

from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.models import build as views
from gatehouse.pipelines.models.build import ViewDefinition, qualified_view_name, view_definitions
from gatehouse.pipelines.warehouse.views import apply_views

RAW_TABLES = ("gates", "dynamic_configs__rules", "cumulative_exposures", "ingestion_runs")


def counts(client, tables, dataset=None):
    return {
        table: client.execute_sql(
            f"select count(*) from {'.'.join(client.make_qualified_table_name_path(table, dataset_name=dataset))}"
        )[0][0]
        for table in tables
    }


def test_every_view_compiles_on_an_empty_postgres_database(postgres_server, tmp_path):
    pipeline = dlt.pipeline(
        pipeline_name="empty_postgres",
        destination=dlt.destinations.postgres(credentials=postgres_server.database("empty_console")),
        dataset_name="console",
        pipelines_dir=str(tmp_path),
    )
    with pipeline.sql_client() as client:
        names = apply_views(client)
        assert names == [definition.name for definition in view_definitions()]
        assert counts(client, names, dataset="analytics") == {name: 0 for name in names}  # as_of too: no extraction
        assert client.execute_sql("select count(*) from analytics.view_parameters")[0][0] == len(views.DEFAULT_PARAMETERS)


def test_a_view_the_server_refuses_is_one_line_and_changes_nothing(postgres_console, monkeypatch):
    broken = ViewDefinition(
        "zz_broken", "one row", ("as_of_at",), "-- grain: one row; key: as_of_at\nselect no_such_column from analytics.as_of\n"
    )
    monkeypatch.setattr(views, "view_definitions", lambda: [*view_definitions(), broken])
    with postgres_console.sql_client() as client:
        raw_before = counts(client, RAW_TABLES)
        stale_before = client.execute_sql(f"select gate_id from {qualified_view_name(client, 'stale_gates')} order by gate_id")

        with pytest.raises(GatehouseError) as raised:
            apply_views(client, parameters={"stall_days": 9})
        message = str(raised.value)
        assert message.startswith("view zz_broken failed on postgres: ") and "no_such_column" in message
        assert "\n" not in message

        # one transaction: the raw tables, the old views and the parameters are as they were
        assert counts(client, RAW_TABLES) == raw_before
        assert (
            client.execute_sql(f"select gate_id from {qualified_view_name(client, 'stale_gates')} order by gate_id")
            == stale_before
        )
        assert client.execute_sql("select value from analytics.view_parameters where name = 'stall_days'") == [(3.0,)]
        assert client.execute_sql(
            "select count(*) from information_schema.views where table_schema = 'analytics' and table_name = 'zz_broken'"
        ) == [(0,)]


def test_applying_again_on_postgres_replaces_views_and_drops_leftovers(postgres_console):
    with postgres_console.sql_client() as client:
        # a view an older gatehouse made, reading one of this version's views
        client.execute_sql("create view analytics.old_stale_gate_ids as select gate_id from analytics.stale_gates")
        before = client.execute_sql("select * from analytics.stale_gates order by gate_id")
        apply_views(client)
        assert client.execute_sql("select * from analytics.stale_gates order by gate_id") == before
        assert client.execute_sql(
            "select count(*) from information_schema.views where table_schema = 'analytics' and table_name = 'old_stale_gate_ids'"
        ) == [(0,)]
