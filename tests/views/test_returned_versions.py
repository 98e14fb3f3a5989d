"""A gate and a dynamic config that return to an earlier content (a field changed, then changed back, no version
bump): dlt's scd2 inserts the new row under the retired row's `_dlt_id` (a hash of the whole content) and keeps one
set of nested rows for both. Each version keeps a key of its own, lists its own rules and holdouts once, and no view
repeats a row; on DuckDB and on a real PostgreSQL server."""

from __future__ import annotations

import duckdb

from gatehouse.pipelines.cli.main import main
from gatehouse.pipelines.models.build import view_definitions
from tests.drills.computed_views import views_as_tables
from tests.drills.conftest import copy_database, duckdb_destination, point_at
from tests.duckdb_and_postgres import on_duckdb_and_postgres, run_into
from tests.pipeline.conftest import make_twin, seed_reference


@on_duckdb_and_postgres("gatehouse_returned_versions")
def test_a_version_returning_to_an_earlier_content_keeps_its_own_key_and_rules(
    destination, tmp_path, tmp_path_factory, monkeypatch, capsys, request
):
    flags, query = run_into(destination, tmp_path, monkeypatch, request)
    twin = make_twin()
    org = twin.organisation
    gate = next(g["id"] for g in org.listed_gates() if len(g["rules"]) == 2 and g.get("checksPerHour"))
    config = next(c["id"] for c in org.listed_dynamic_configs() if len(c["rules"]) >= 1)
    config_rules = len(org.dynamic_configs[config]["rules"])
    # the first content is the console's own, the second another, the third the first again
    first = (org.gates[gate]["checksPerHour"], org.dynamic_configs[config]["description"])
    second = (first[0] + 3, f"{first[1]}, edited")
    with twin.serve() as base_url:
        point_at(monkeypatch, twin, base_url)
        if destination is duckdb_destination:  # the first run's file, made once for the suite
            copy_database(seed_reference(tmp_path_factory), tmp_path / "gatehouse.duckdb", base_url)
        else:
            assert main(["run", "--no-progress", *flags]) == 0, capsys.readouterr().err
        for checks, description in (second, first):
            with twin.lock:
                org.gates[gate]["checksPerHour"] = checks
                org.dynamic_configs[config]["description"] = description
            assert main(["run", "--no-progress", *flags]) == 0, capsys.readouterr().err

    # the raw table: the third row shares the first's hash
    [(first_hash,)] = query(f"select distinct _dlt_id from console.gates where id = '{gate}' and _dlt_valid_to is null")
    [(config_hash,)] = query(
        f"select distinct _dlt_id from console.dynamic_configs where id = '{config}' and _dlt_valid_to is null"
    )
    assert query(f"select count(*) from console.gates where _dlt_id = '{first_hash}'") == [(2,)]

    versions = query(
        f"select gate_version_id, checks_per_hour, is_current from analytics.stg_gate_versions where gate_id = '{gate}'"
        " order by valid_from"
    )
    middle = versions[1][0]
    assert versions == [(first_hash, first[0], False), (middle, second[0], False), (f"{first_hash}~1", first[0], True)]
    config_versions = query(
        f"select config_version_id, description, is_current from analytics.stg_dynamic_config_versions"
        f" where config_id = '{config}' order by valid_from"
    )
    assert [(v, d, c) for v, d, c in config_versions] == [
        (config_hash, first[1], False),
        (config_versions[1][0], second[1], False),
        (f"{config_hash}~1", first[1], True),
    ]

    # each version lists its two rules once, the returned one too
    assert query(
        f"select gate_version_id, rule_position from analytics.stg_gate_rules where gate_version_id like '{first_hash}%'"
        f" or gate_version_id = '{middle}' order by 1, 2"
    ) == sorted([(first_hash, 0), (first_hash, 1), (middle, 0), (middle, 1), (f"{first_hash}~1", 0), (f"{first_hash}~1", 1)])
    assert query(
        f"select version_id, rule_count from analytics.int_entity_versions where entity_id in ('{gate}', '{config}')"
        " order by entity_type, valid_from"
    ) == [(v, config_rules) for v, _, _ in config_versions] + [(v, 2) for v, _, _ in versions]
    assert query(f"select rule_count, gate_version_id from analytics.current_gates where gate_id = '{gate}'") == [
        (2, f"{first_hash}~1")
    ]
    assert query(
        f"select change_kind, changed_fields, previous_rule_count, rule_count, gate_version_id from analytics.gate_changes"
        f" where gate_id = '{gate}' order by observed_at"
    ) == [
        ("first seen", None, None, 2, first_hash),
        ("modified", "checks_per_hour", 2, 2, middle),
        ("modified", "checks_per_hour", 2, 2, f"{first_hash}~1"),
    ]

    # no view repeats its key
    checks = {}
    for definition in view_definitions():
        key = ", ".join(definition.key)
        checks[definition.name] = (
            f"select count(*) from (select {key} from analytics.{definition.name} group by {key} having count(*) > 1) as repeated"
        )
    if destination is duckdb_destination:
        # every view computed once, in build order (a view read on its own computes the views under it afresh)
        with duckdb.connect(str(tmp_path / "gatehouse.duckdb")) as connection, views_as_tables(connection):
            repeated = {name: connection.execute(sql).fetchall() for name, sql in checks.items()}
    else:
        repeated = {name: query(sql) for name, sql in checks.items()}
    assert {name: rows for name, rows in repeated.items() if rows != [(0,)]} == {}
