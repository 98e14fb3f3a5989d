"""Schema drift: the console adds a field, changes a field's type, drops a field.

dlt evolves the tables instead of failing (a new column; a variant column for a value that does not fit
the old type; nulls for a field no longer sent), the run's summary names every change, and every gate
is still there once, with the values the console sent.
"""

from __future__ import annotations

from datetime import datetime

import duckdb
import pytest

from tests.drills.snapshot import assert_same_tables

DRIFTS = {
    # a new field on every gate
    "new field": (lambda gate: {**gate, "riskLevel": "low"}, "new column gates.risk_level"),
    # epoch milliseconds become ISO 8601 text: no longer fits the bigint column (dlt reads the text as a
    # timestamp and keeps it in a variant column beside the old one)
    "type change": (
        lambda gate: {**gate, "lastModifiedTime": f"2026-11-0{1 + gate['lastModifiedTime'] % 2}T00:00:00Z"},
        "type change (variant column) gates.last_modified_time__v_text",
    ),
    # a field no longer sent: dlt keeps the column (nulls from now on), the summary says so
    "field gone": (
        lambda gate: {k: v for k, v in gate.items() if k != "description"},
        "field no longer sent gates.description",
    ),
}


def current_gates(path) -> dict[str, dict]:
    with duckdb.connect(str(path), read_only=True) as con:
        cursor = con.execute("select * from console.gates where _dlt_valid_to is null")
        names = [d[0] for d in cursor.description]
        return {row["id"]: row for row in (dict(zip(names, r)) for r in cursor.fetchall())}


@pytest.mark.parametrize("drift", DRIFTS)
def test_schema_drift_is_absorbed_and_reported(drill, reference_path, drift):
    transform, reported = DRIFTS[drift]
    drill.start_loaded(reference_path)
    before = current_gates(drill.duckdb_path)

    drill.twin.settings.transform_item = lambda endpoint, item: transform(item) if endpoint == "gates" else item
    summary = drill.run()

    assert any(change.startswith(reported) for change in summary.schema_changes), summary.schema_changes
    after = current_gates(drill.duckdb_path)
    assert after.keys() == before.keys(), "no gate lost or added"
    served = {gate["id"]: transform(gate) for gate in drill.twin.organisation.listed_gates()}
    assert summary.new_versions["gates"] == len(served), "every gate changed, so every gate has a new version"
    assert summary.retired["gates"] == 0
    with duckdb.connect(str(drill.duckdb_path), read_only=True) as con:
        versions = dict(con.execute("select id, count(*) from console.gates group by 1").fetchall())
    assert set(versions.values()) == {2}, "one closed and one open version per gate, never two open"
    for gate_id, row in after.items():
        gate = served[gate_id]
        if drift == "new field":
            assert row["risk_level"] == "low"
        elif drift == "type change":
            sent = datetime.fromisoformat(gate["lastModifiedTime"].replace("Z", "+00:00"))
            assert row["last_modified_time"] is None and row["last_modified_time__v_text"] == sent
        else:
            assert row["description"] is None
        unchanged = {
            k: v
            for k, v in row.items()
            if k in before[gate_id] and k not in ("risk_level", "last_modified_time", "description") and not k.startswith("_dlt")
        }
        assert unchanged == {k: before[gate_id][k] for k in unchanged}


def scalar_targets(item: dict) -> dict:
    """The item with every one-item `targetValue` sent as its value alone, as the OpenAPI allows."""
    rules = []
    for rule in item.get("rules") or []:
        conditions = [
            {**c, "targetValue": c["targetValue"][0]}
            if isinstance(c.get("targetValue"), list) and len(c["targetValue"]) == 1
            else c
            for c in rule.get("conditions") or []
        ]
        rules.append({**rule, "conditions": conditions})
    return {**item, "rules": rules}


def test_scalar_target_values_load_as_one_item_lists(drill, reference):
    # The twin sends every targetValue as an array; the OpenAPI also allows a string or a number.
    drill.twin.settings.transform_item = lambda endpoint, item: (
        scalar_targets(item) if endpoint in ("gates", "dynamic_configs") else item
    )
    served = [scalar_targets(g) for g in drill.twin.organisation.listed_gates()]
    assert any(
        not isinstance(c.get("targetValue"), list) and c.get("targetValue") is not None
        for g in served
        for r in g["rules"]
        for c in r["conditions"]
    ), "the drill sends scalars"

    drill.run()

    assert_same_tables(drill.snapshot(), reference)
