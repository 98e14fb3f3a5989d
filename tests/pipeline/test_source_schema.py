"""The source's declared tables: keys and write dispositions, checked without any request."""

import pytest

from gatehouse.sources.console import console
from gatehouse.sources.console.settings import resolve_settings


@pytest.fixture(scope="module")
def schema():
    # No request is made: dlt builds the schema from the resources' hints.
    source = console(resolve_settings(base_url="http://127.0.0.1:9", api_key="unused-key"))
    return source.discover_schema()


@pytest.mark.parametrize(
    ("table", "keys", "disposition", "strategy"),
    [
        ("gates", ["id"], "merge", "scd2"),
        ("dynamic_configs", ["id"], "merge", "scd2"),
        ("holdouts", ["id"], "merge", None),
        ("qualifying_events", ["name"], "merge", None),
        ("cumulative_exposures", ["experiment_id", "group_id", "date"], "merge", None),
        ("ingestion_runs", ["run_id"], "merge", None),
        ("extraction_runs", ["extraction_id"], "append", None),
    ],
)
def test_table_keys_and_dispositions(schema, table, keys, disposition, strategy):
    spec = schema.tables[table]
    assert [name for name, column in spec["columns"].items() if column.get("primary_key")] == keys
    assert spec["write_disposition"] == disposition
    assert spec.get("x-merge-strategy") == strategy


def test_id_resources_are_not_tables(schema):
    assert not {"holdout_ids", "experiment_ids", "ingestion_run_ids"} & set(schema.tables)


def test_default_value_is_a_json_column(schema):
    assert schema.tables["dynamic_configs"]["columns"]["default_value"]["data_type"] == "json"
