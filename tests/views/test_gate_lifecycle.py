"""`analytics.gate_lifecycle`: each gate's stage from its history and its code's, over four loads and two scans
(tests/views/lifecycle_dataset.py), on DuckDB and PostgreSQL, with its thresholds as view parameters."""

from __future__ import annotations

import os
import shutil
from datetime import date, datetime
from pathlib import Path

import dlt
import duckdb
import pytest

from gatehouse.pipelines.warehouse.views import apply_views
from tests.views.conftest import query
from tests.views.lifecycle_dataset import load_lifecycle, made_lifecycle

COLUMNS = (
    "gate_id, stage, cleanup_value, days_at_value, ready_on, answer_changes_in_window, checks_trend, on_worklist,"
    " referencing_repositories, gone_from_code_since, missing_repositories"
)
LIFECYCLE_SQL = f"select {COLUMNS} from analytics.gate_lifecycle order by gate_id"

# The "as of" is the last load, 2026-11-01 12:00 UTC; ready_after_days 14, code_scan_max_age_days 7 (the defaults).
EXPECTED = [
    # launched, checked 20 an hour, referenced by no scan ever: its value is known, its code is not found
    ("checked_nowhere", "ready: remove from code", True, 92, None, 0, "steady", True, None, None, None),
    # no rules, never checked, in no repository whose last scan is complete and 2 days old
    ("dead_flag", "ready: archive in the console", None, 92, None, 0, "never checked", True, None, None, None),
    # off since 10-15 (17 days), after two changes within 30 days
    ("flip_flop", "ready: remove from code", False, 17, None, 2, "steady", True, "web", None, None),
    # the earlier scan found it in web, the later one (10-30) nowhere; still checked 6 an hour
    ("gone_from_code", "removed from code", None, 92, None, 0, "steady", True, None, datetime(2026, 10, 30, 9, 0), None),
    # partly rolled out since 08-01, stale by the console's rules: forgotten
    ("half_done", "needs a person", None, None, None, 0, "steady", True, "web", None, None),
    # disabled, but a holdout still names it
    ("held_out", "needs a person", None, 92, None, 0, "steady", True, "web", None, None),
    ("in_progress", "in use", None, None, None, 0, "steady", False, "api", None, None),
    ("kill_switch", "in use", None, 92, None, 0, "steady", False, "api", None, None),
    # the console dates the change 09-01, but the run of 10-10 still saw 0%: one answer since 10-10 12:00
    ("late_stamp", "ready: remove from code", True, 22, None, 1, "steady", True, "web", None, None),
    # checked 100 an hour two weeks ago, 30 now
    ("launched_long", "ready: remove from code", True, 92, None, 0, "falling", True, "api, web", None, None),
    # turned off on 10-23: ready on 11-06, within a week: on the worklist
    ("off_lately", "approaching", None, 9, date(2026, 11, 6), 1, "steady", True, "web", None, None),
    # 100% since yesterday after 60 days at 50%: not "launched" yet; ready on 11-14, not within a week
    ("rolled_yesterday", "approaching", None, 1, date(2026, 11, 14), 1, "steady", False, "web", None, None),
    # the console's reason says launched, the gate is turned off: a person decides
    ("says_launched", "needs a person", None, 92, None, 0, "steady", True, "web", None, None),
    # off since 10-15 (17 days) like flip_flop, but on for everyone in between: a switch, never ready on its last stretch
    ("switch", "needs a person", None, 17, None, 2, "steady", True, None, None, None),
]


@pytest.fixture(scope="module")
def lifecycle_db(tmp_path_factory) -> Path:
    return made_lifecycle(tmp_path_factory, tmp_path_factory.mktemp("lifecycle"))


@pytest.fixture
def writable_lifecycle(lifecycle_db, tmp_path) -> Path:
    copy = tmp_path / "lifecycle_copy.duckdb"
    shutil.copy(lifecycle_db, copy)
    return copy


def test_each_gate_gets_its_stage_from_its_history_and_its_code(lifecycle_db):
    assert query(lifecycle_db, LIFECYCLE_SQL) == EXPECTED


def test_a_stage_has_its_value_action_and_reason(lifecycle_db):
    rows = dict(
        (gate, rest)
        for gate, *rest in query(lifecycle_db, "select gate_id, decision, action from analytics.gate_lifecycle order by gate_id")
    )
    assert rows["launched_long"] == [
        "launched in the console: every user passes since 2026-08-01 (92 days)",
        "remove the flag from the code and keep the path it enables (api, web)",
    ]
    assert rows["flip_flop"] == [
        "turned off in the console: every user fails since 2026-10-15 (17 days)",
        "remove the flag from the code and delete the path it guards (web)",
    ]
    assert rows["off_lately"] == [
        "turned off in the console: every user fails since 2026-10-23 (9 days); ready on 2026-11-06 if nothing changes",
        "nothing yet: ready on 2026-11-06 if nothing changes",
    ]
    assert rows["says_launched"] == [
        "the console's reason (STALE_PROBABLY_LAUNCHED) and its state (turned off in the console: every user fails) disagree",
        "ask the owner: the console's reason (STALE_PROBABLY_LAUNCHED) and its state (turned off in the console: every user"
        " fails) disagree",
    ]
    assert rows["switch"][1] == (
        "ask the owner: it came back to failing every user after passing them 1 time(s) in 90 days: a switch in use"
        " (declare it permanent) or a rollout not yet decided"
    )
    assert rows["held_out"][1] == "ask the owner: still referenced by holdouts h_lifecycle"
    assert rows["half_done"][1] == "ask the owner: forgotten: partly rolled out for a long time; finish or roll back the rollout"
    assert rows["dead_flag"][1] == "archive it in the console: no code references it and nothing checks it"
    assert rows["gone_from_code"][1] == "wait until nothing checks it, then archive it in the console"
    # the worklist (stale_gates) carries the same stage and action for every gate on it
    listed = query(lifecycle_db, "select gate_id, stage, recommended_action from analytics.stale_gates order by gate_id")
    assert {gate for gate, _, _ in listed} == {gate for gate, *_, on_worklist, _, _, _ in EXPECTED if on_worklist}
    for gate, stage, action in listed:
        assert (stage, action) == (dict((g, s) for g, s, *_ in EXPECTED)[gate], rows[gate][1])


def test_the_code_owners_of_the_files_that_check_a_gate_are_named_by_repository(lifecycle_db):
    rows = query(
        lifecycle_db, "select gate_id, code_owners from analytics.gate_lifecycle where code_owners is not null order by gate_id"
    )
    assert rows == [
        ("in_progress", "api: @org/api"),
        ("kill_switch", "api: @org/api"),
        ("launched_long", "api: @org/api; web: @ana @org/web"),
    ]
    # the worklist routes it to both: the console's owner, and the code's
    assert query(lifecycle_db, "select owner_name, code_owners from analytics.stale_gates where gate_id = 'launched_long'") == [
        ("Alice", "api: @org/api; web: @ana @org/web")
    ]


def test_days_at_one_answer_is_a_parameter(writable_lifecycle):
    apply_views(writable_lifecycle, parameters={"ready_after_days": 20})
    rows = {
        gate: (stage, ready_on, on_worklist)
        for gate, stage, _, _, ready_on, _, _, on_worklist, *_ in query(writable_lifecycle, LIFECYCLE_SQL)
    }
    # 17 days: approaching, ready on 10-15 + 20 days, within a week of 11-01: listed
    assert rows["flip_flop"] == ("approaching", date(2026, 11, 4), True)
    # 22 days: still ready
    assert rows["late_stamp"] == ("ready: remove from code", None, True)
    assert rows["off_lately"] == ("approaching", date(2026, 11, 12), False)


def test_an_old_scan_is_no_evidence_of_absence(writable_lifecycle):
    # both repositories' last scans (10-30 09:00) are older than a day before 11-01 12:00: their silence proves nothing
    apply_views(writable_lifecycle, parameters={"code_scan_max_age_days": 1})
    rows = {gate: (stage, missing) for gate, stage, *_, missing in query(writable_lifecycle, LIFECYCLE_SQL)}
    assert rows["dead_flag"] == ("ready: remove from code", "api, web")  # not archived while its code is unknown
    assert rows["gone_from_code"] == ("ready: remove from code", "api, web")
    assert rows["checked_nowhere"] == ("ready: remove from code", "api, web")
    assert rows["launched_long"] == ("ready: remove from code", "api, web")


def test_a_scan_from_before_completeness_was_recorded_is_no_evidence_of_absence(writable_lifecycle):
    # web's last scan as a gatehouse before `is_complete` loaded it: it may have skipped an unreadable file unseen
    with duckdb.connect(str(writable_lifecycle)) as connection:
        connection.execute("update console.code_reference_scans set is_complete = null where repository = 'web'")
    rows = {gate: (stage, missing) for gate, stage, *_, missing in query(writable_lifecycle, LIFECYCLE_SQL)}
    assert rows["dead_flag"] == ("ready: remove from code", "web")  # not archived on web's silence
    assert rows["gone_from_code"] == ("ready: remove from code", "web")
    assert rows["launched_long"] == ("ready: remove from code", "web")


def test_the_warning_window_sets_when_an_approaching_gate_is_listed(writable_lifecycle):
    apply_views(writable_lifecycle, parameters={"stale_warning_days": 14})
    rows = {gate: on_worklist for gate, _, _, _, _, _, _, on_worklist, *_ in query(writable_lifecycle, LIFECYCLE_SQL)}
    assert rows["rolled_yesterday"] is True and rows["in_progress"] is False


def test_on_postgres_every_row_is_the_same(postgres_server, tmp_path):
    os.environ.setdefault("RUNTIME__LOG_LEVEL", "ERROR")
    destination = dlt.destinations.postgres(credentials=postgres_server.database("gate_lifecycle"))
    pipeline = load_lifecycle(tmp_path / "lifecycle_postgres.duckdb", tmp_path, destination=destination)
    with pipeline.sql_client() as client:
        apply_views(client)
        with client.execute_query(LIFECYCLE_SQL) as cursor:
            rows = [tuple(row) for row in cursor.fetchall()]
    assert rows == EXPECTED
