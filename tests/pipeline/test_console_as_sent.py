"""`gatehouse run` against the twin over loopback, after the console changes what an incremental read would not see:
a JSON value's key order kept as sent, a re-stated day of an exposure series.

Expected rows are computed from the twin's organisation (what the console holds), never from the loaded tables.
"""

from __future__ import annotations

import orjson

from tests.pipeline.test_incremental_runs import expected_exposures, expected_holdout_ids, loaded_exposures


def test_a_config_value_keeps_the_consoles_key_order_and_a_description_edit_changes_only_the_description(
    loader, twin, seed_reference_path
):
    org = twin.organisation
    unsorted = [
        c
        for c in org.listed_dynamic_configs()
        if isinstance(c.get("defaultValue"), dict) and list(c["defaultValue"]) != sorted(c["defaultValue"])
    ]
    assert unsorted, "the twin should hold a config whose default value's keys are not in sorted order"
    config_id = unsorted[0]["id"]
    loader.start_loaded(seed_reference_path)
    with twin.lock:
        edited = org.dynamic_configs[config_id]
        edited["description"] = "edited"
        edited["version"] += 1
        edited["lastModifiedTime"] = org.now_ms

    loader.run()

    sent = orjson.dumps(org.dynamic_configs[config_id]["defaultValue"]).decode()
    assert loader.query(
        "select version, cast(default_value as varchar) from console.dynamic_configs where id = ? order by version",
        config_id,
    ) == [(edited["version"] - 1, sent), (edited["version"], sent)]
    assert loader.query(
        "select change_kind, changed_fields from analytics.dynamic_config_changes where config_id = ? order by observed_at",
        config_id,
    ) == [("first seen", None), ("modified", "description")]
    # Every config's value is loaded as the console sent it, keys in its order.
    assert dict(
        loader.query("select id, cast(default_value as varchar) from console.dynamic_configs where _dlt_valid_to is null")
    ) == {c["id"]: orjson.dumps(c["defaultValue"]).decode() for c in org.listed_dynamic_configs()}


def test_a_day_the_console_restates_before_the_cursor_is_loaded_again_and_a_rerun_loads_nothing(
    loader, twin, seed_reference_path
):
    loader.start_loaded(seed_reference_path)
    twin.advance(days=1)
    loader.run()
    org = twin.organisation
    experiment = next(
        e for e in org.experiments.values() if e.ended_on is None and e.stalled_on is None and (org.today - e.start_date).days > 5
    )
    restated = (org.today - experiment.start_date).days - 3  # three days back, before the series' cursor
    with twin.lock:
        for group in experiment.groups:
            group.daily_new[restated] += 500

    summary = loader.run()

    assert loaded_exposures(loader) == expected_exposures(twin)
    series_rows = sum(len(group["results"]) for group in org.cumulative_exposures(experiment.experiment_id))
    # Only the re-stated series moved: it is loaded whole, nothing else.
    assert summary.rows_loaded.get("cumulative_exposures") == series_rows

    rerun = loader.run()

    assert rerun.rows_loaded.get("cumulative_exposures", 0) == 0
    assert loaded_exposures(loader) == expected_exposures(twin)


def test_what_the_console_no_longer_has_or_names_leaves_the_merged_tables_and_the_views(loader, twin, seed_reference_path):
    loader.start_loaded(seed_reference_path)
    org = twin.organisation
    loaded = [row[0] for row in loader.query("select id from console.holdouts order by id")]
    assert len(loaded) >= 3, "the twin should name several holdouts"
    deleted, unnamed, gone_but_named = loaded[:3]
    with twin.lock:
        removed_event = org.qualifying_events.pop(0)["name"]
        del org.holdouts[deleted]  # deleted, and no gate or config names it any more
        del org.holdouts[gone_but_named]  # deleted, still named: its read answers 404
        for entity in [*org.gates.values(), *org.dynamic_configs.values()]:
            named = entity.get("holdoutIDs") or []
            if deleted in named or unnamed in named:  # `unnamed` still exists, no longer named by anything
                entity["holdoutIDs"] = [h for h in named if h not in (deleted, unnamed)]
                entity["version"] += 1
                entity["lastModifiedTime"] = org.now_ms

    summary = loader.run()

    assert ("holdouts", gone_but_named) in {(table, id_) for table, id_, _ in summary.skipped}
    events = {row[0] for row in loader.query("select name from console.qualifying_events")}
    assert removed_event not in events
    assert events == {event["name"] for event in org.qualifying_events}
    assert {row[0] for row in loader.query("select qualifying_event_name from analytics.stg_qualifying_events")} == events
    holdouts = dict(loader.query("select id, last_modified_time from console.holdouts"))
    assert holdouts == {h: org.holdouts[h]["lastModifiedTime"] for h in expected_holdout_ids(twin)}
    assert not {deleted, unnamed, gone_but_named} & holdouts.keys()
    assert {row[0] for row in loader.query("select holdout_id from analytics.stg_holdouts")} == holdouts.keys()
    named_in_coverage = {
        name
        for (names,) in loader.query("select holdout_names from analytics.experiment_coverage where holdout_names is not null")
        for name in names.split(", ")
    }
    assert named_in_coverage <= {org.holdouts[h]["name"] for h in holdouts}

    assert loader.run().rows_loaded.get("holdouts", 0) == 0  # nothing more to delete
    assert dict(loader.query("select id, last_modified_time from console.holdouts")) == holdouts


def test_a_gate_edited_then_missed_by_a_moving_list_is_loaded_with_the_consoles_version(loader, twin, seed_reference_path):
    small_pages = {"page_size": 10}
    loader.start_loaded(seed_reference_path)  # loaded a page of the default size at a time: the rows are the same
    org = twin.organisation
    listed = org.listed_gates()
    deleted, edited = listed[3]["id"], listed[25]["id"]  # the edited gate is the first of page 3
    deleted_version, description = listed[3]["version"], listed[25]["description"]
    with twin.lock:
        gate = org.gates[edited]
        gate["description"] = "edited"
        gate["version"] += 1
        gate["lastModifiedTime"] = org.now_ms

    def delete_after_first_page(served) -> None:
        # The gates after the deleted one move up a place: the edited gate slips onto page 2 once it was read,
        # and the pass never serves it.
        if served.endpoint == "gates" and served.page == 1 and deleted in org.gates:
            twin.delete_gate(deleted)

    twin.settings.after_page = delete_after_first_page
    summary = loader.run(source_args=small_pages)
    twin.settings.after_page = None

    # The deleted gate was served before it was deleted: the next run retires it.
    assert summary.retired["gates"] == 0
    assert loader.query("select version, description from console.gates where id = ? order by version", edited) == [
        (gate["version"] - 1, description),
        (gate["version"], "edited"),
    ]
    current = dict(loader.query("select id, version from console.gates where _dlt_valid_to is null"))
    assert current == {g["id"]: g["version"] for g in org.listed_gates()} | {deleted: deleted_version}

    rerun = loader.run(source_args=small_pages)

    assert (rerun.new_versions["gates"], rerun.retired["gates"]) == (0, 1)
    assert dict(loader.query("select id, version from console.gates where _dlt_valid_to is null")) == {
        g["id"]: g["version"] for g in org.listed_gates()
    }
    assert loader.query("select count(*) from console.gates where id = ?", edited) == [(2,)]
