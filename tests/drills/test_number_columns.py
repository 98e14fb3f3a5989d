"""Numbers the contract types `number` (pass percentages) load as double, whatever arrives first.

The console sends whole pass percentages almost always (50, 100) and a fraction now and then (12.5).
Left to inference, dlt types such a column bigint from the first integers and puts a later fraction
in a `pass_percentage__v_double` variant column; with two normalize workers it depends on which
worker met which value first. Declared double, the column never splits. A database loaded before
the declaration keeps its bigint column (dlt never changes a column's type): there a fraction still
goes to the variant column, and the views still read it.
"""

from __future__ import annotations

import duckdb
import pytest

from gatehouse.sources.console.columns import NumberColumns

FRACTIONS = {"gate rule": 12.5, "config rule": 33.3, "config variant": 0.5, "holdout": 2.5}


def add_fractions(twin) -> dict[str, str]:
    """Fractional percentages on entities listed last, so integers come first in the run; returns their ids."""
    org = twin.organisation
    gate = [gate for gate in org.listed_gates() if gate["rules"]][-1]
    config = [config for config in org.listed_dynamic_configs() if config["rules"]][-1]
    with_variants = [c for c in org.listed_dynamic_configs() if any(rule.get("variants") for rule in c["rules"])][-1]
    holdout = org.holdouts[sorted(org.holdouts)[-1]]
    gate["rules"][0]["passPercentage"] = FRACTIONS["gate rule"]
    config["rules"][0]["passPercentage"] = FRACTIONS["config rule"]
    next(rule for rule in with_variants["rules"] if rule.get("variants"))["variants"][0]["passPercentage"] = FRACTIONS[
        "config variant"
    ]
    holdout["passPercentage"] = FRACTIONS["holdout"]
    for entity in (gate, config, with_variants, holdout):
        entity["version"] = entity.get("version", 0) + 1
    return {"gate": gate["id"], "config": config["id"], "variant": with_variants["id"], "holdout": holdout["id"]}


def columns(path) -> dict[tuple[str, str], str]:
    with duckdb.connect(str(path), read_only=True) as con:
        rows = con.execute(
            "select table_name, column_name, data_type from information_schema.columns"
            " where table_schema = 'console' and column_name like 'pass_percent%'"
        ).fetchall()
    return {(table, column): data_type for table, column, data_type in rows}


def loaded_percentages(path, ids: dict[str, str], column: str = "pass_percentage") -> dict[str, float]:
    """The fractional value as loaded, each from the current version of its entity."""
    queries = {
        "gate rule": f"select r.{column} from console.gates g join console.gates__rules r on r._dlt_parent_id = g._dlt_id"
        " where g.id = ? and g._dlt_valid_to is null and r._dlt_list_idx = 0",
        "config rule": f"select r.{column} from console.dynamic_configs c join console.dynamic_configs__rules r"
        " on r._dlt_parent_id = c._dlt_id where c.id = ? and c._dlt_valid_to is null and r._dlt_list_idx = 0",
        "config variant": f"select v.{column} from console.dynamic_configs c join console.dynamic_configs__rules r"
        " on r._dlt_parent_id = c._dlt_id join console.dynamic_configs__rules__variants v on v._dlt_parent_id = r._dlt_id"
        f" where c.id = ? and c._dlt_valid_to is null and v._dlt_list_idx = 0 and v.{column} is not null",
        "holdout": f"select {column} from console.holdouts where id = ?",
    }
    entity = {"gate rule": "gate", "config rule": "config", "config variant": "variant", "holdout": "holdout"}
    with duckdb.connect(str(path), read_only=True) as con:
        return {name: con.execute(sql, [ids[entity[name]]]).fetchall()[0][0] for name, sql in queries.items()}


@pytest.fixture
def small_files(monkeypatch):
    # Small extract files, so that two normalize workers each get a share of the gates and configs.
    monkeypatch.setenv("SOURCES__DATA_WRITER__FILE_MAX_BYTES", "10000")
    monkeypatch.setenv("SOURCES__DATA_WRITER__BUFFER_MAX_ITEMS", "20")


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_fraction_after_integers_makes_no_variant_column(drill, reference_path, monkeypatch, small_files, workers):
    monkeypatch.setenv("NORMALIZE__WORKERS", workers)
    drill.start_loaded(reference_path)  # a first run: every percentage of the organisation whole
    assert not [column for (_, column) in columns(drill.duckdb_path) if "__v_" in column]
    ids = add_fractions(drill.twin)
    drill.run()

    loaded = columns(drill.duckdb_path)
    assert not [column for (_, column) in loaded if "__v_" in column]
    assert set(loaded.values()) == {"DOUBLE"}
    assert {("gates__rules", "pass_percentage"), ("holdouts", "pass_percentage")} <= loaded.keys()
    assert loaded_percentages(drill.duckdb_path, ids) == FRACTIONS


def test_a_database_loaded_before_the_declaration_keeps_its_columns_and_every_value(drill, monkeypatch):
    # The first run as gatehouse loaded before numbers were declared: dlt typed the columns bigint. The
    # declaration sits on the module-level resources, so the run types them bigint through the per-run path.
    with monkeypatch.context() as before:
        before.setattr(NumberColumns, "check_destination", lambda self, schema: True)
        before.setattr(
            NumberColumns,
            "hints",
            lambda self, path=(): {n: {"name": n, "data_type": "bigint"} for n in self.columns.get(path, ())},
        )
        drill.run()
    assert columns(drill.duckdb_path)[("gates__rules", "pass_percentage")] == "BIGINT"
    ids = add_fractions(drill.twin)
    drill.run()

    loaded = columns(drill.duckdb_path)
    assert loaded[("gates__rules", "pass_percentage")] == "BIGINT", "dlt never changes a column's type"
    # Declaring double on a bigint column would have truncated 12.5 to 12: the variant keeps it whole.
    assert loaded_percentages(drill.duckdb_path, ids, "pass_percentage__v_double") == FRACTIONS
    with duckdb.connect(str(drill.duckdb_path), read_only=True) as con:
        [(from_view,)] = con.execute(
            "select pass_percentage from analytics.stg_gate_rules r join analytics.stg_gate_versions g"
            " on g.gate_version_id = r.gate_version_id where g.gate_id = ? and g.is_current and r.rule_position = 0",
            [ids["gate"]],
        ).fetchall()
    assert from_view == FRACTIONS["gate rule"]
