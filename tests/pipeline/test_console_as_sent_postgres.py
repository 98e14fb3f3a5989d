"""On a real PostgreSQL: what the console no longer has leaves the merged tables (dlt's hard deletes), a re-stated
exposure day is loaded again, and a config's value keeps the console's key order, as on DuckDB
(`test_console_as_sent.py`)."""

from __future__ import annotations

import json

import psycopg2
import pytest

from gatehouse.console_twin import ConsoleTwin
from gatehouse.pipelines.cli.main import main
from tests.drills.conftest import point_at
from tests.pipeline.test_incremental_runs import expected_exposures, expected_holdout_ids

pytestmark = pytest.mark.slow


def rows(credentials: str, sql: str) -> list[tuple]:
    with psycopg2.connect(credentials) as connection, connection.cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchall()


def test_deletions_restated_days_and_key_order_on_postgres(postgres_server, tmp_path):
    credentials = postgres_server.database("gatehouse_as_sent")
    twin = ConsoleTwin(size="small", seed=3)
    org = twin.organisation
    with pytest.MonkeyPatch.context() as env, twin.serve() as base_url:
        env.chdir(tmp_path)
        env.setenv("DESTINATION__POSTGRES__CREDENTIALS", credentials)
        env.setenv("DLT_DATA_DIR", str(tmp_path / "dlt"))
        point_at(env, twin, base_url)
        assert main(["run", "--no-progress", "--destination", "postgres"]) == 0
        holdout = sorted(h for (h,) in rows(credentials, "select id from console.holdouts"))[0]
        experiment = next(
            e
            for e in org.experiments.values()
            if e.ended_on is None and e.stalled_on is None and (org.today - e.start_date).days > 5
        )
        with twin.lock:
            removed_event = org.qualifying_events.pop(0)["name"]
            del org.holdouts[holdout]
            for entity in [*org.gates.values(), *org.dynamic_configs.values()]:
                if holdout in (entity.get("holdoutIDs") or []):
                    entity["holdoutIDs"] = [h for h in entity["holdoutIDs"] if h != holdout]
                    entity["version"] += 1
                    entity["lastModifiedTime"] = org.now_ms
            for group in experiment.groups:
                group.daily_new[(org.today - experiment.start_date).days - 3] += 500

        assert main(["run", "--no-progress", "--destination", "postgres"]) == 0

        events = {name for (name,) in rows(credentials, "select name from console.qualifying_events")}
        assert removed_event not in events
        assert events == {event["name"] for event in org.qualifying_events}
        assert {h for (h,) in rows(credentials, "select id from console.holdouts")} == expected_holdout_ids(twin)
        loaded = rows(credentials, "select experiment_id, group_id, date, exposures from console.cumulative_exposures")
        assert {(e, g, d): n for e, g, d, n in loaded} == expected_exposures(twin)
        values = dict(
            rows(credentials, "select id, default_value::text from console.dynamic_configs where _dlt_valid_to is null")
        )
        assert {k: json.loads(v) for k, v in values.items()} == {c["id"]: c["defaultValue"] for c in org.listed_dynamic_configs()}
        assert {k: list(json.loads(v)) for k, v in values.items() if v.startswith("{")} == {
            c["id"]: list(c["defaultValue"]) for c in org.listed_dynamic_configs() if isinstance(c["defaultValue"], dict)
        }
