"""current_dynamic_configs and dynamic_config_changes (as of 2026-11-20 12:00 UTC)."""

from __future__ import annotations

from datetime import datetime

from tests.views.conftest import assert_rows, query


def test_current_dynamic_configs(console_db):
    rows = query(
        console_db,
        """
        select config_id, version, default_value, rule_count, variant_count, referenced_gate_ids, holdout_ids,
               days_since_created, days_since_modified
        from analytics.current_dynamic_configs order by config_id
        """,
    )
    # created Jun 1 00:00: 30+31+31+30+31 + 19.5 = 172.5 days; c_checkout modified Nov 12 12:00: 8 days
    assert_rows(
        rows,
        [
            ("c_checkout", 3, '{"layout":"v2"}', 1, 0, "old_checkout", None, 172, 8),
            # c_pricing's gate reference names a gate that no longer exists: listed as the config has it
            ("c_pricing", 1, '{"price":10}', 2, 2, "deleted_gate", "h_q3", 172, 80),
        ],
    )


def test_dynamic_config_changes(console_db):
    first, second = datetime(2026, 11, 10, 12), datetime(2026, 11, 20, 12)
    rows = query(
        console_db,
        """
        select config_id, change_kind, observed_at, changed_at, changed_fields, previous_version, version,
               previous_default_value, default_value, previous_rule_count, rule_count
        from analytics.dynamic_config_changes order by config_id, observed_at
        """,
    )
    assert_rows(
        rows,
        [
            ("c_checkout", "first seen", first, datetime(2026, 10, 1, 12), None, None, 2, None, '{"layout":"v1"}', None, 1),
            (
                "c_checkout",
                "modified",
                second,
                datetime(2026, 11, 12, 12),
                "default_value",
                2,
                3,
                '{"layout":"v1"}',
                '{"layout":"v2"}',
                1,
                1,
            ),
            ("c_old", "first seen", first, datetime(2026, 3, 1), None, None, 1, None, "{}", None, 0),
            ("c_old", "retired", second, None, None, 1, None, "{}", None, 0, None),
            ("c_pricing", "first seen", first, datetime(2026, 9, 1), None, None, 1, None, '{"price":10}', None, 2),
        ],
    )
