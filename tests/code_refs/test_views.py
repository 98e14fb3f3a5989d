"""stale_gates' code columns, cleanup_worklist and code_orphans on the hand-built console and scans
(tests/views/console_dataset.py, tests/code_refs/hand_built.py): rows worked out from those records."""

from __future__ import annotations

from datetime import datetime

from tests.views.conftest import assert_rows, query

NOVEMBER_20 = datetime(2026, 11, 20, 12)  # the second load, which no longer listed retired_gate and c_old
SCANNED = datetime(2026, 11, 21, 9)


def test_stale_gates_count_references_and_show_the_first_lines(console_db):
    rows = query(console_db, "select gate_id, code_reference_count, code_locations from analytics.stale_gates order by gate_id")
    assert rows == [
        # two references on one line (columns 10 and 40) are one location
        ("dark_launch", 2, "api:app/nav.go:20"),
        ("launch_banner", 3, "api:app/banner.go:2, web:src/banner.ts:3, web:src/banner.ts:9"),
        ("new_nav", 0, None),
        ("old_checkout", 1, "web:src/checkout.py:12"),
        ("orphan_flag", 0, None),
        ("promo_rollout", 1, "web:src/promo.py:40"),
        ("search_v2", 0, None),
    ]


def test_cleanup_worklist_says_where_and_what(console_db):
    rows = query(
        console_db,
        """
        select gate_id, owner_key, staleness, type_reason, is_code_scanned, code_reference_count, code_repository_count,
               code_repositories, code_locations, action
        from analytics.cleanup_worklist order by staleness_rank, gate_id
        """,
    )
    assert_rows(
        rows,
        [
            (
                "launch_banner",
                "u_alice",
                "marked stale",
                "STALE_PROBABLY_LAUNCHED",
                True,
                3,
                2,
                "api, web",
                "api: app/banner.go:2; web: src/banner.ts:3, src/banner.ts:9",
                "remove the flag from the code and keep the path it enables (api, web)",
            ),
            # a holdout and a config still reference it: a person decides
            (
                "old_checkout",
                "u_bob",
                "marked stale",
                "STALE_PROBABLY_UNLAUNCHED",
                True,
                1,
                1,
                "web",
                "web: src/checkout.py:12",
                "ask the owner: still referenced by holdouts h_q3 and configs c_checkout",
            ),
            (
                "dark_launch",
                "u_dan",
                "meets stale rules",
                "STALE_PROBABLY_UNLAUNCHED",
                True,
                2,
                1,
                "api",
                "api: app/nav.go:20",
                "remove the flag from the code and delete the path it guards (api)",
            ),
            # checked 3 times an hour, referenced in no scanned repository: something unscanned checks it
            (
                "orphan_flag",
                "(no owner)",
                "meets stale rules",
                "STALE_NO_RULES",
                True,
                0,
                0,
                None,
                None,
                "remove the flag from the code and delete the path it guards, wherever the code checks it (referenced in no"
                " scanned repository)",
            ),
            (
                "promo_rollout",
                "u_alice",
                "meets stale rules",
                "STALE_PROBABLY_FORGOTTEN",
                True,
                1,
                1,
                "web",
                "web: src/promo.py:40",
                "ask the owner: forgotten: partly rolled out for a long time; finish or roll back the rollout",
            ),
            # no checks and no reference: archive it
            (
                "search_v2",
                "u_bob",
                "meets stale rules",
                "STALE_PROBABLY_DEAD_CHECK",
                True,
                0,
                0,
                None,
                None,
                "archive it in the console: no code references it and nothing checks it",
            ),
            (
                "new_nav",
                "u_alice",
                "approaching",
                "STALE_PROBABLY_LAUNCHED",
                True,
                0,
                0,
                None,
                None,
                "remove the flag from the code and keep the path it enables, wherever the code checks it (referenced in no"
                " scanned repository)",
            ),
        ],
    )


def test_code_orphans_are_deleted_or_never_existed(console_db):
    rows = query(console_db, "select * from analytics.code_orphans order by entity_type, entity_id, repository")
    assert_rows(
        rows,
        [
            (
                "default",
                "dynamic_config",
                "c_old",
                "api",
                "deleted",
                NOVEMBER_20,
                "C Old",
                1,
                1,
                "app/config.go:5",
                None,
                "b" * 40,
                SCANNED,
            ),
            # three references, two of them on one line: that line is listed once
            (
                None,
                "gate",
                "ghost_gate",
                "web",
                "never existed",
                None,
                None,
                0,
                3,
                "lib/flags.js:2, src/flags.py:7",
                "main",
                "a" * 40,
                SCANNED,
            ),
            (
                "default",
                "gate",
                "retired_gate",
                "web",
                "deleted",
                NOVEMBER_20,
                "Retired Gate",
                1,
                1,
                "src/legacy.py:4",
                "main",
                "a" * 40,
                SCANNED,
            ),
        ],
    )


def test_without_any_scan_the_code_is_unknown_not_absent(tmp_path):
    from gatehouse.pipelines.warehouse.views import apply_views
    from tests.views.console_dataset import load_console

    database = load_console(
        tmp_path / "no_scan.duckdb", tmp_path, tables=("gates", "dynamic_configs", "holdouts", "extraction_runs")
    )
    apply_views(database)
    rows = query(
        database,
        """
        select worklist.gate_id, stale.code_reference_count, worklist.is_code_scanned, worklist.code_reference_count,
               worklist.action = stale.recommended_action
        from analytics.cleanup_worklist as worklist
        inner join analytics.stale_gates as stale on stale.gate_id = worklist.gate_id
        where worklist.gate_id in ('search_v2', 'launch_banner') order by 1
        """,
    )
    assert rows == [("launch_banner", None, False, 0, True), ("search_v2", None, False, 0, True)]
    assert query(database, "select count(*) from analytics.code_orphans") == [(0,)]


def test_cleanup_decisions_give_a_value_only_where_every_user_gets_the_same_answer(console_db):
    rows = query(
        console_db,
        "select gate_id, cleanup_value, cleanup_state, decision, cleanup_branches"
        " from analytics.cleanup_decisions order by gate_id",
    )
    assert rows == [
        # every rule at 0% (a staff rule, not an everyone rule): every user fails; its branch in api
        (
            "dark_launch",
            False,
            "branch made",
            "every rule passes 0%: every user fails since 2026-09-21 (60 days)",
            "api: gatehouse/cleanup/dark_launch",
        ),
        # Launched; its branch made twice in web: named once
        (
            "launch_banner",
            True,
            "branch made",
            "launched in the console: every user passes since 2026-08-22 (90 days)",
            "web: gatehouse/cleanup/launch_banner",
        ),
        # launched 25 days ago and checked 10 times an hour: its value is known, where its code is is not
        ("new_nav", True, "ready", "launched in the console: every user passes since 2026-10-26 (25 days)", None),
        # Disabled, but holdout h_q3 still names it
        ("old_checkout", None, "needs a person", "still referenced by holdouts h_q3 and configs c_checkout", None),
        # no rules, every user fails, checked 3 times an hour by code no scanned repository holds
        ("orphan_flag", False, "ready", "no rules: every user fails since 2026-09-01 (80 days)", None),
        (
            "promo_rollout",
            None,
            "needs a person",
            "forgotten: partly rolled out for a long time; finish or roll back the rollout",
            None,
        ),
        # 50% of two users, never checked, referenced nowhere: its console part is left, nothing to rewrite
        ("search_v2", None, "nothing to rewrite", "nothing checks it and no scanned repository references it", None),
    ]


def test_stg_cleanup_branches_marks_the_newest_branch_of_a_gate_in_a_repository(console_db):
    rows = query(
        console_db,
        "select cleanup_id, gate_id, repository, commit_sha, cleanup_value, is_latest"
        " from analytics.stg_cleanup_branches order by gate_id, made_at",
    )
    assert rows == [
        ("cleanup_2", "dark_launch", "api", "e" * 40, False, True),
        ("cleanup_1", "launch_banner", "web", "c" * 40, True, False),
        ("cleanup_2", "launch_banner", "web", "d" * 40, True, True),
    ]
