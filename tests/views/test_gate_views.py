"""current_gates, gate_references, stale_gates, stale_gates_by_owner, gate_changes.

As of 2026-11-20 12:00 UTC (the service's clock at the second load). Days are whole days elapsed,
counted by hand from the records in console_dataset.py, e.g. old_checkout modified 2026-05-15 06:00:
May 15 -> Nov 15 is 31+30+31+31+30+31 = 184 days, plus 5 days 6 hours = 189.25 -> 189.
"""

from __future__ import annotations

from datetime import datetime

from tests.views.conftest import assert_rows, query


def test_current_gates_are_the_live_versions_with_rollout_and_references(console_db):
    rows = query(
        console_db,
        """
        select gate_id, version, rule_count, rollout_state, days_since_created, days_since_modified,
               holdout_ids, referencing_gate_ids, referencing_config_ids, referencing_holdout_ids, referenced_by_count
        from analytics.current_gates order by gate_id
        """,
    )
    assert_rows(
        rows,
        [
            # Jun 1 2025 -> Nov 20 2026 12:00: 365 + 172.5 days; modified Jul 1 2025: 365 + 142.5
            ("archived_gate", 1, 0, "no rules", 537, 507, None, None, None, None, 0),
            ("beta_users", 1, 1, "partial", 264, 233, None, "promo_rollout", None, None, 1),
            ("dark_launch", 1, 1, "0%", 233, 60, None, None, None, None, 0),
            ("kill_switch", 1, 1, "100%", 688, 657, None, None, None, "h_global", 1),
            # the service's marking is a new scd2 version: version 4 both times, type changed
            ("launch_banner", 4, 1, "100%", 203, 90, None, None, None, None, 0),
            ("new_nav", 1, 1, "100%", 100, 25, None, None, None, None, 0),
            # referenced by the holdout's gateIDs and its own holdoutIDs: one reference
            ("old_checkout", 1, 1, "0%", 292, 189, "h_q3", None, "c_checkout", "h_q3", 2),
            ("orphan_flag", 1, 0, "no rules", 245, 80, None, None, None, None, 0),
            ("promo_rollout", 1, 2, "partial", 142, 50, None, None, None, None, 0),
            ("recent_exp", 2, 1, "partial", 50, 5, None, None, None, None, 0),
            ("search_v2", 1, 1, "partial", 314, 150, None, None, None, None, 0),
        ],
    )


def test_gate_references_come_from_conditions_configs_and_holdouts(console_db):
    rows = query(console_db, "select * from analytics.gate_references order by 1, 2, 3, 4")
    # c_pricing's passes_gate on `deleted_gate` names no live gate and is left out
    assert rows == [
        ("default", "beta_users", "gate", "promo_rollout"),
        ("default", "kill_switch", "holdout", "h_global"),
        ("default", "old_checkout", "dynamic_config", "c_checkout"),
        ("default", "old_checkout", "holdout", "h_q3"),
    ]


def test_stale_gates_follow_the_service_rules(console_db):
    rows = query(
        console_db,
        """
        select gate_id, staleness, staleness_rank, type_reason, type_reason_source, owner_name, team,
               days_since_modified, days_since_created, days_until_stale, checks_per_hour, rollout_state,
               referencing_holdout_ids, referencing_config_ids, stage
        from analytics.stale_gates order by staleness_rank, gate_id
        """,
    )
    assert_rows(
        rows,
        [
            (
                "launch_banner",
                "marked stale",
                1,
                "STALE_PROBABLY_LAUNCHED",
                "service",
                "Alice",
                "Growth",
                90,
                203,
                None,
                120.0,
                "100%",
                None,
                None,
                "ready: remove from code",
            ),
            (
                "old_checkout",
                "marked stale",
                1,
                "STALE_PROBABLY_UNLAUNCHED",
                "service",
                "Bob",
                "Payments",
                189,
                292,
                None,
                12.0,
                "0%",
                "h_q3",
                "c_checkout",
                "needs a person",
            ),
            # an everyone rule at 0% would say unlaunched too; here the only rule targets staff at 0%
            (
                "dark_launch",
                "meets stale rules",
                2,
                "STALE_PROBABLY_UNLAUNCHED",
                "predicted",
                "Dan",
                "Search",
                60,
                233,
                None,
                7.0,
                "0%",
                None,
                None,
                "ready: remove from code",
            ),
            (
                "orphan_flag",
                "meets stale rules",
                2,
                "STALE_NO_RULES",
                "predicted",
                None,
                None,
                80,
                245,
                None,
                3.0,
                "no rules",
                None,
                None,
                "ready: remove from code",
            ),
            # checked 40 times an hour, an everyone rule at 25%: partly rolled out for 50 days
            (
                "promo_rollout",
                "meets stale rules",
                2,
                "STALE_PROBABLY_FORGOTTEN",
                "predicted",
                "Alice",
                "Growth",
                50,
                142,
                None,
                40.0,
                "partial",
                None,
                None,
                "needs a person",
            ),
            # checksPerHour null: no checks
            (
                "search_v2",
                "meets stale rules",
                2,
                "STALE_PROBABLY_DEAD_CHECK",
                "predicted",
                "Bob",
                "Search",
                150,
                314,
                None,
                None,
                "partial",
                None,
                None,
                "ready: archive in the console",
            ),
            # modified 25 days ago: stale in 30 - 25 = 5 days
            (
                "new_nav",
                "approaching",
                3,
                "STALE_PROBABLY_LAUNCHED",
                "predicted",
                "Alice",
                "Growth",
                25,
                100,
                5,
                10.0,
                "100%",
                None,
                None,
                "ready: remove from code",
            ),
        ],
    )
    # never listed: permanent (kill_switch), archived, referenced by another gate (beta_users), recent (recent_exp)
    listed = {row[0] for row in rows}
    assert listed.isdisjoint({"kill_switch", "archived_gate", "beta_users", "recent_exp", "retired_gate"})


def test_each_stale_gate_has_one_answer_and_code_that_checks_it_is_never_archived(console_db):
    # the worklist reads the gate's one answer, gate_lifecycle's; a gate the code references is never "archive it"
    # (archiving it would turn it off for everyone)
    rows = query(
        console_db,
        """
        select stale_gates.gate_id, stale_gates.code_reference_count, gate_lifecycle.stage,
               stale_gates.recommended_action, cleanup_worklist.action
        from analytics.stale_gates
        join analytics.cleanup_worklist using (project, gate_id)
        join analytics.gate_lifecycle using (project, gate_id)
        order by stale_gates.gate_id
        """,
    )
    assert rows and all(answer == action for _, _, _, answer, action in rows)
    referenced = [row for row in rows if row[1]]
    assert referenced and not any(
        stage.startswith("ready: archive") or "archive" in answer for _, _, stage, answer, _ in referenced
    )
    assert [(gate, stage, answer) for gate, _, stage, answer, _ in rows] == [
        ("dark_launch", "ready: remove from code", "remove the flag from the code and delete the path it guards (api)"),
        ("launch_banner", "ready: remove from code", "remove the flag from the code and keep the path it enables (api, web)"),
        (
            "new_nav",
            "ready: remove from code",
            "remove the flag from the code and keep the path it enables, wherever the code checks it (referenced in no scanned"
            " repository)",
        ),
        ("old_checkout", "needs a person", "ask the owner: still referenced by holdouts h_q3 and configs c_checkout"),
        (
            "orphan_flag",
            "ready: remove from code",
            "remove the flag from the code and delete the path it guards, wherever the code checks it (referenced in no scanned"
            " repository)",
        ),
        (
            "promo_rollout",
            "needs a person",
            "ask the owner: forgotten: partly rolled out for a long time; finish or roll back the rollout",
        ),
        ("search_v2", "ready: archive in the console", "archive it in the console: no code references it and nothing checks it"),
    ]


def test_stale_gates_by_owner_is_a_worklist(console_db):
    rows = query(console_db, "select * from analytics.stale_gates_by_owner order by owner_key")
    assert_rows(
        rows,
        [
            # a gate with no owner object is not a server key's: no one is named for it
            ("default", "(no owner)", None, None, False, None, None, 1, 0, 1, 0, 80, 3.0, "orphan_flag"),
            # 120 + 40 + 10 checks an hour; marked first, then by days since modified
            (
                "default",
                "u_alice",
                "Alice",
                "alice@example.com",
                False,
                None,
                "Growth",
                3,
                1,
                1,
                1,
                90,
                170.0,
                "launch_banner, promo_rollout, new_nav",
            ),
            (
                "default",
                "u_bob",
                "Bob",
                "bob@example.com",
                False,
                None,
                "Payments, Search",
                2,
                1,
                1,
                0,
                189,
                12.0,
                "old_checkout, search_v2",
            ),
            ("default", "u_dan", "Dan", "dan@example.com", False, None, "Search", 1, 0, 1, 0, 60, 7.0, "dark_launch"),
        ],
    )


def test_stale_window_is_a_parameter(writable_db):
    from gatehouse.pipelines.warehouse.views import apply_views

    apply_views(writable_db, parameters={"stale_after_days": 100, "stale_warning_days": 10})
    rows = query(writable_db, "select gate_id, staleness, days_until_stale from analytics.stale_gates order by gate_id")
    # 100-day window: only gates untouched for 100 days meet the rules; 90..99 days approach. The gates the
    # console's rules no longer name stay on the worklist when their history and code say so (gate_lifecycle)
    assert rows == [
        ("dark_launch", None, None),
        ("launch_banner", "marked stale", None),
        ("new_nav", None, None),
        ("old_checkout", "marked stale", None),
        ("orphan_flag", None, None),
        ("search_v2", "meets stale rules", None),
    ]
    # a parameter set once persists through the next application
    apply_views(writable_db)
    assert query(writable_db, "select value from analytics.view_parameters where name = 'stale_after_days'") == [(100.0,)]


def test_gate_changes_from_the_scd2_history(console_db):
    first, second = datetime(2026, 11, 10, 12), datetime(2026, 11, 20, 12)
    rows = query(
        console_db,
        """
        select gate_id, change_kind, observed_at, changed_at, changed_by, changed_fields, previous_version, version,
               previous_gate_type, gate_type, previous_rule_count, rule_count
        from analytics.gate_changes order by gate_id, observed_at
        """,
    )
    first_seen = {
        "archived_gate": (datetime(2025, 7, 1), "Carol", 1, "TEMPORARY", 0),
        "beta_users": (datetime(2026, 4, 1), "Erin", 1, "TEMPORARY", 1),
        "dark_launch": (datetime(2026, 9, 21), "Dan", 1, "TEMPORARY", 1),
        "kill_switch": (datetime(2025, 2, 1), "Carol", 1, "PERMANENT", 1),
        "launch_banner": (datetime(2026, 8, 22, 12), "Alice", 4, "TEMPORARY", 1),
        "new_nav": (datetime(2026, 10, 26, 12), "Alice", 1, "TEMPORARY", 1),
        "old_checkout": (datetime(2026, 5, 15, 6), "Bob", 1, "STALE", 1),
        "orphan_flag": (datetime(2026, 9, 1, 12), "CONSOLE API", 1, "TEMPORARY", 0),
        "promo_rollout": (datetime(2026, 10, 1, 12), "Alice", 1, "TEMPORARY", 2),
        "recent_exp": (datetime(2026, 11, 1, 12), "Erin", 1, "TEMPORARY", 1),
        "retired_gate": (datetime(2026, 2, 1), "Dan", 1, "TEMPORARY", 0),
        "search_v2": (datetime(2026, 6, 23, 12), "Bob", 1, "TEMPORARY", 1),
    }
    expected = [
        (gate_id, "first seen", first, changed_at, by, None, None, version, None, gate_type, None, rules)
        for gate_id, (changed_at, by, version, gate_type, rules) in first_seen.items()
    ]
    expected += [
        # the service marked it: type and reason changed, and the check rate; nobody edited it
        (
            "launch_banner",
            "modified",
            second,
            datetime(2026, 8, 22, 12),
            "Alice",
            "type, type_reason, checks_per_hour",
            4,
            4,
            "TEMPORARY",
            "STALE",
            1,
            1,
        ),
        # the ramp went from 10% to 50%
        ("recent_exp", "modified", second, datetime(2026, 11, 15, 12), "Erin", "rules", 1, 2, "TEMPORARY", "TEMPORARY", 1, 1),
        ("retired_gate", "retired", second, None, None, None, 1, None, "TEMPORARY", None, 0, None),
    ]
    assert_rows(rows, sorted(expected, key=lambda row: (row[0], row[2])))
