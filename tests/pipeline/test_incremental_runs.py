"""`gatehouse run` against the twin over loopback: a first load, a no-change rerun, a rerun after time moves.

Expected rows are computed from the twin's organisation (what the console holds), never from the
loaded tables themselves.
"""

from __future__ import annotations

import copy
from datetime import timedelta

from gatehouse.console_twin import ConsoleTwin
from gatehouse.sources.console.exposures import has_concluded
from gatehouse.sources.console.settings import DEFAULT_QUIET_RUN_AFTER_DAYS
from gatehouse.sources.console.settle import has_gone_quiet, is_settled

QUIET_AFTER = timedelta(days=DEFAULT_QUIET_RUN_AFTER_DAYS)


def expected_holdout_ids(twin: ConsoleTwin) -> set[str]:
    org = twin.organisation
    referenced = {h for entity in [*org.listed_gates(), *org.listed_dynamic_configs()] for h in entity.get("holdoutIDs") or []}
    return {h for h in referenced if h in org.holdouts}


def expected_experiment_ids(twin: ConsoleTwin) -> set[str]:
    org = twin.organisation
    from_holdouts = {e for h in expected_holdout_ids(twin) for e in org.holdouts[h].get("experimentIDs") or []}
    return (set(twin.experiment_ids) | from_holdouts) & set(org.experiments)


def expected_exposures(twin: ConsoleTwin) -> dict[tuple[str, str, str], int]:
    org = twin.organisation
    return {
        (experiment_id, group["groupID"], point["date"]): point["exposures"]
        for experiment_id in expected_experiment_ids(twin)
        for group in org.cumulative_exposures(experiment_id)
        for point in group["results"]
    }


def loaded_exposures(loader) -> dict[tuple[str, str, str], int]:
    rows = loader.query("select experiment_id, group_id, date, exposures from console.cumulative_exposures")
    return {(e, g, d): n for e, g, d, n in rows}


def current_gates(loader) -> dict[str, tuple]:
    rows = loader.query(
        "select id, name, status, type, type_reason, last_modified_time, checks_per_hour, owner__owner_name"
        " from console.gates where _dlt_valid_to is null"
    )
    return {row[0]: row[1:] for row in rows}


def gate_row(gate: dict) -> tuple:
    owner = gate.get("owner") or {}
    return (
        gate["name"],
        gate["status"],
        gate["type"],
        gate["typeReason"],
        gate["lastModifiedTime"],
        gate.get("checksPerHour"),
        owner.get("ownerName"),
    )


def run_requests(twin: ConsoleTwin) -> set[str]:
    prefix = "/console/v1/ingestion/runs/"
    return {r.path[len(prefix) :] for r in twin.requests if r.path.startswith(prefix)}


def experiment_requests(twin: ConsoleTwin) -> set[str]:
    prefix = "/console/v1/experiments/"
    return {
        r.path[len(prefix) :].split("/")[0]
        for r in twin.requests
        if r.path.startswith(prefix) and r.path.endswith("/cumulative_exposures")
    }


def test_first_run_loads_every_table_with_the_rows_the_console_holds(loader, twin):
    summary = loader.run()
    org = twin.organisation

    listed = org.listed_gates()
    assert current_gates(loader) == {g["id"]: gate_row(g) for g in listed}
    assert loader.query("select count(*) from console.gates where _dlt_valid_to is not null") == [(0,)]
    assert summary.new_versions["gates"] == len(listed)
    # Nested rules and their conditions, row for row.
    assert loader.query("select count(*) from console.gates__rules")[0][0] == sum(len(g["rules"]) for g in listed)
    assert loader.query("select count(*) from console.gates__rules__conditions")[0][0] == sum(
        len(rule["conditions"]) for g in listed for rule in g["rules"]
    )

    configs = org.listed_dynamic_configs()
    loaded_configs = dict(loader.query("select id, version from console.dynamic_configs where _dlt_valid_to is null"))
    assert loaded_configs == {c["id"]: c["version"] for c in configs}
    assert loader.query("select count(*) from console.dynamic_configs__rules__variants")[0][0] == sum(
        len(rule.get("variants") or []) for c in configs for rule in c["rules"]
    )

    holdouts = dict(loader.query("select id, last_modified_time from console.holdouts"))
    assert holdouts == {h: org.holdouts[h]["lastModifiedTime"] for h in expected_holdout_ids(twin)}

    assert sorted(r[0] for r in loader.query("select name from console.qualifying_events")) == sorted(
        e["name"] for e in org.qualifying_events
    )
    assert loaded_exposures(loader) == expected_exposures(twin)
    assert loader.query("select distinct group_name from console.cumulative_exposures where group_name is null") == []

    runs = dict(loader.query("select run_id, latest_status from console.ingestion_runs"))
    assert runs == {r: org.ingestion_run(r)["latestStatus"] for r in twin.ingestion_run_ids}
    history = loader.query("select count(*) from console.ingestion_runs__run_history")[0][0]
    assert history == sum(len(org.ingestion_run(r)["runHistory"]) for r in twin.ingestion_run_ids)

    assert loader.query("select service_time from console.extraction_runs") == [(twin.now,)]
    assert summary.skipped == []


def test_a_rerun_without_changes_writes_no_version_and_requests_no_settled_run(loader, twin, seed_reference_path):
    loader.start_loaded(seed_reference_path)
    versions_before = loader.query("select count(*) from console.gates")[0][0]
    settled = {run_id for run_id in twin.ingestion_run_ids if is_settled(twin.organisation.ingestion_run(run_id))}
    assert settled, "the twin's organisation should hold settled runs"
    # found quiet by the first run (status unchanged for a week), so not asked for again before the weekly re-check
    quiet = {
        run_id
        for run_id in set(twin.ingestion_run_ids) - settled
        if has_gone_quiet(twin.organisation.ingestion_run(run_id), twin.now, QUIET_AFTER)
    }
    twin.reset_requests()

    summary = loader.run()

    assert summary.new_versions == {"gates": 0, "dynamic_configs": 0}
    assert summary.retired == {"gates": 0, "dynamic_configs": 0}
    assert loader.query("select count(*) from console.gates")[0][0] == versions_before
    requested_runs = run_requests(twin)
    assert requested_runs == set(twin.ingestion_run_ids) - settled - quiet
    # Concluded experiments (series silent for more than late_exposure_days) are not asked for again;
    # one that ended more recently might be a late computation and is.
    today = twin.now.date()
    newest = {
        e: max(p["date"] for g in twin.organisation.cumulative_exposures(e) for p in g["results"])
        for e in expected_experiment_ids(twin)
    }
    current = {e for e, day in newest.items() if not has_concluded(day, today)}
    assert current != expected_experiment_ids(twin), "the twin's organisation should hold concluded experiments"
    assert current > {e for e in newest if twin.organisation.experiments[e].ended_on is None}, "and recently ended ones"
    assert experiment_requests(twin) == current
    assert loaded_exposures(loader) == expected_exposures(twin)
    # Nothing loaded twice: one row per key in every merged table.
    assert loader.query(
        "select count(*) from (select experiment_id, group_id, date from console.cumulative_exposures"
        " group by all having count(*) > 1)"
    ) == [(0,)]


def test_after_the_console_moves_on_the_rerun_adds_exactly_what_changed(loader, twin, seed_reference_path):
    loader.start_loaded(seed_reference_path)
    before = {g["id"]: copy.deepcopy(g) for g in twin.organisation.listed_gates()}
    runs_before = {r: twin.organisation.ingestion_run(r) for r in twin.ingestion_run_ids}
    last_days_before = dict(loader.query("select experiment_id, max(date) from console.cumulative_exposures group by 1"))

    # Four days: the small organisation changes, creates and removes gates in that time.
    twin.advance(days=4)
    twin.reset_requests()
    after = {g["id"]: g for g in twin.organisation.listed_gates()}
    changed = {i for i in before.keys() & after.keys() if before[i] != after[i]}
    created = after.keys() - before.keys()
    removed = before.keys() - after.keys()
    assert changed and created and removed, "a day in the twin should change, create and remove gates"

    summary = loader.run(source_args={"ingestion_run_ids": twin.ingestion_run_ids})

    assert summary.new_versions["gates"] == len(changed) + len(created)
    assert summary.retired["gates"] == len(removed)
    assert current_gates(loader) == {i: gate_row(g) for i, g in after.items()}
    retired_ids = {
        r[0]
        for r in loader.query(
            "select id from console.gates g where not exists"
            " (select 1 from console.gates c where c.id = g.id and c._dlt_valid_to is null)"
        )
    }
    assert retired_ids == removed
    assert loader.query("select count(*) from console.gates")[0][0] == len(before) + len(changed) + len(created)

    # New days appended, the previous last day updated to its final count, nothing else touched.
    exposures = loaded_exposures(loader)
    assert exposures == expected_exposures(twin)
    moved = [e for e, day in last_days_before.items() if max(d for (x, _, d) in exposures if x == e) > day]
    assert moved, "running experiments gain a day"

    # Unsettled runs were requested again and moved forward; settled ones were not requested.
    settled_before = {r for r, run in runs_before.items() if is_settled(run)}
    assert not (run_requests(twin) & settled_before)
    loaded_runs = dict(loader.query("select run_id, latest_status from console.ingestion_runs"))
    for run_id in set(twin.ingestion_run_ids) - settled_before:
        assert loaded_runs[run_id] == twin.organisation.ingestion_run(run_id)["latestStatus"]
    assert any(loaded_runs[r] != runs_before[r]["latestStatus"] for r in runs_before.keys() - settled_before), (
        "some unsettled run should have progressed"
    )


def test_unknown_ids_are_reported_and_skipped_while_the_rest_loads(loader, twin):
    summary = loader.run(
        source_args={
            "experiment_ids": [*twin.experiment_ids, "no_such_experiment"],
            "ingestion_run_ids": [*twin.ingestion_run_ids, "00000000-0000-0000-0000-000000000000"],
            "holdout_ids": ["no_such_holdout"],
        }
    )
    skipped = {(table, id_) for table, id_, _ in summary.skipped}
    assert skipped == {
        ("cumulative_exposures", "no_such_experiment"),
        ("ingestion_runs", "00000000-0000-0000-0000-000000000000"),
        ("holdouts", "no_such_holdout"),
    }
    assert loaded_exposures(loader) == expected_exposures(twin)


def test_resources_option_loads_only_the_chosen_tables(loader, twin):
    loader.run(resources=["qualifying_events"])
    tables = {
        r[0]
        for r in loader.query(
            "select table_name from information_schema.tables where table_schema = 'console' and table_name not like '\\_dlt%'"
            " escape '\\'"
        )
    }
    assert {t for t in tables if not t.startswith("qualifying_events")} == {"extraction_runs"}
