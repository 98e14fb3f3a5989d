"""What every view promises: a stated grain and key that hold, on any dataset, in the house style."""

from __future__ import annotations

import re
from pathlib import Path

import dlt
import duckdb
import pytest

from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.models.build import SOURCE_COLUMNS, view_definitions
from gatehouse.pipelines.warehouse.views import apply_views
from tests.views.console_dataset import SCD2, gate

DEFINITIONS = view_definitions()


def test_staging_comes_before_analysis_and_names_are_unique():
    names = [definition.name for definition in DEFINITIONS]
    assert len(names) == len(set(names))
    staging = [definition.is_staging for definition in DEFINITIONS]
    assert staging == sorted(staging, reverse=True), "every stg_ view is applied before the analysis views"


@pytest.mark.parametrize("definition", DEFINITIONS, ids=lambda d: d.name)
def test_view_is_written_in_house_style(definition):
    body = "\n".join(line.split("--")[0] for line in definition.sql.splitlines())
    assert not re.search(r"\b(SELECT|FROM|WHERE|JOIN|GROUP BY|ORDER BY|CASE|WHEN|AS)\b", body), "lowercase SQL"
    if definition.is_staging:
        assert "analytics." not in body or re.search(r"from analytics\.stg_", body), "staging reads raw tables (or staging)"
    else:
        assert "{{ source(" not in body, "analysis views read staging, never raw tables"
        assert re.search(r"\bfinal as \(", body) and body.rstrip().endswith("select * from final"), "named CTEs ending in final"


@pytest.mark.parametrize("definition", DEFINITIONS, ids=lambda d: d.name)
def test_key_is_unique_and_not_null(hand_built_reader, definition):
    key = ", ".join(definition.key)
    not_null = definition.not_null_key
    [(rows, keys, null_keys)] = hand_built_reader.execute(
        f"""
        select count(*), count(distinct ({key})), count(case when {" or ".join(f"{c} is null" for c in not_null)} then 1 end)
        from analytics.{definition.name}
        """
    ).fetchall()
    assert rows > 0, "the hand-built console exercises every view"
    assert null_keys == 0
    assert keys == rows


def test_every_view_compiles_on_an_empty_database(tmp_path):
    database = tmp_path / "empty.duckdb"
    names = apply_views(database)
    assert names == [definition.name for definition in DEFINITIONS]
    with duckdb.connect(str(database), read_only=True) as connection:
        for name in names:
            [(count,)] = connection.execute(f"select count(*) from analytics.{name}").fetchall()
            assert count == 0, name  # as_of too: no extraction, no clock


def test_views_tolerate_missing_nested_tables_and_columns(tmp_path):
    """No gate has rules, holdouts or tags yet and no run has granular history: dlt made no such tables."""
    bare = gate(
        "bare", created="2026-01-01T00:00:00Z", modified="2026-01-02T00:00:00Z", owner=None, team=None, rules=[], checks=None
    )
    run = {"runID": "r1", "latestStatus": "enqueued", "createdAt": "2026-11-19T00:00:00.000Z", "trigger": "scheduled"}
    # the console sent no Date header: the extraction's own clock is the one ages count from
    extraction = {"extraction_id": "e1", "started_at": "2026-11-19T23:59:00Z", "finished_at": "2026-11-20T00:00:00Z"}
    pipeline = dlt.pipeline(
        pipeline_name="bare_console",
        destination=dlt.destinations.duckdb(str(tmp_path / "bare.duckdb")),
        dataset_name="console",
        pipelines_dir=str(tmp_path / "dlt"),
    )
    pipeline.run(
        [
            dlt.resource([bare], name="gates", primary_key="id", write_disposition=SCD2),
            dlt.resource([run], name="ingestion_runs", primary_key="run_id", write_disposition="merge"),
            dlt.resource([extraction], name="extraction_runs", primary_key="extraction_id", write_disposition="append"),
        ]
    )
    with duckdb.connect(str(tmp_path / "bare.duckdb")) as connection:
        tables = {
            t
            for (t,) in connection.execute(
                "select table_name from information_schema.tables where table_schema = 'console'"
            ).fetchall()
        }
        assert "gates__rules" not in tables and "ingestion_runs__run_history" not in tables
        apply_views(connection)
        [(is_service_clock,)] = connection.execute("select is_service_clock from analytics.as_of").fetchall()
        assert is_service_clock is False
        assert connection.execute(
            "select gate_id, rule_count, rollout_state, checks_per_hour, owner_name, team from analytics.current_gates"
        ).fetchall() == [("bare", 0, "no rules", None, None, None)]
        assert connection.execute("select staleness, type_reason from analytics.stale_gates").fetchall() == [
            ("meets stale rules", "STALE_PROBABLY_DEAD_CHECK")
        ]
        assert connection.execute(
            "select run_id, outcome, enqueued_at, retry_count, source_count from analytics.ingestion_run_health"
        ).fetchall()[0][:2] == ("r1", "running")


def test_every_source_reference_is_declared():
    for definition in DEFINITIONS:
        for table in re.findall(r"source\('([a-z0-9_]+)'\)", definition.sql):
            assert table in SOURCE_COLUMNS, (definition.name, table)


def test_unknown_parameter_is_refused(tmp_path):
    with pytest.raises(GatehouseError, match="unknown view parameter"):
        apply_views(tmp_path / "x.duckdb", parameters={"stall_dayz": 2})


@pytest.mark.parametrize(
    "name, value, refused",
    [
        ("stall_days", -5, "view parameter stall_days=-5: it must be a number from 0 up; nothing was changed"),
        ("stall_days", float("inf"), "view parameter stall_days=inf: it must be a number from 0 up"),
        ("dip_ratio", float("nan"), "view parameter dip_ratio=nan: it must be a number from 0 to 1"),
        ("srm_p_value_threshold", 2, "view parameter srm_p_value_threshold=2: it must be a number more than 0 to 1"),
        ("srm_p_value_threshold", 0, "view parameter srm_p_value_threshold=0: it must be a number more than 0 to 1"),
    ],
)
def test_a_parameter_out_of_its_range_is_refused_and_nothing_written(tmp_path, name, value, refused):
    # kept in analytics.view_parameters for every later refresh: an infinite day count broke every report after it
    with pytest.raises(GatehouseError) as stopped:
        apply_views(tmp_path / "x.duckdb", parameters={name: value})
    assert refused in str(stopped.value)


def test_applying_again_replaces_the_views(console_db, tmp_path):
    with duckdb.connect(str(console_db)) as connection:
        before = connection.execute("select * from analytics.stale_gates order by gate_id").fetchall()
        apply_views(connection)
        assert connection.execute("select * from analytics.stale_gates order by gate_id").fetchall() == before


DATA_MODEL = (Path(__file__).resolve().parents[2] / "docs" / "data-model.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("definition", DEFINITIONS, ids=lambda d: d.name)
def test_view_is_documented_with_its_grain_key_and_columns(hand_built_reader, definition):
    sections = re.split(r"^### ", DATA_MODEL, flags=re.M)
    [section] = [s for s in sections if s.startswith(f"analytics.{definition.name}\n")]
    for column in definition.key:
        assert f"`{column}" in section
    columns = [name for (name, *_rest) in hand_built_reader.execute(f"describe analytics.{definition.name}").fetchall()]
    if definition.name in ("stg_gates", "stg_dynamic_configs"):
        return  # documented as the current rows of the versions view, same columns
    # `seconds_to_*` stands for the stage columns in ingestion_source_health
    missing = [
        c for c in columns if f"`{c}`" not in section and not (c.startswith("seconds_to_") and "`seconds_to_*`" in section)
    ]
    assert not missing, f"undocumented columns of {definition.name}: {missing}"


def test_every_raw_table_read_is_documented():
    for table in SOURCE_COLUMNS:
        assert f"`{table}`" in DATA_MODEL, table
