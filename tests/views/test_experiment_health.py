"""experiment_health_daily and experiment_health: each check's verdict on the hand-built console and on series
built for the dip, on DuckDB and (the daily checks, translated) on a real PostgreSQL server.

As of 2026-11-20: the 19th is the last whole day. Every expected value was worked out by hand from the series."""

from __future__ import annotations

from datetime import date

import duckdb

from bench.srm import view_sql
from gatehouse.pipelines.alerts.conditions import DIP, RUNNING_LONG, current_conditions
from gatehouse.pipelines.models.build import translate
from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.pipelines.warehouse.views import apply_views
from tests.views.conftest import assert_rows, query
from tests.views.test_exposure_views import add_series


def d(day: int) -> date:
    return date(2026, 11, day)


HEALTH = (
    "select experiment_id, status, days_running, checked_through_date, data_check, srm_check, stall_check,"
    " dip_check, dip_exposures, dip_baseline_exposures, duration_check, late_check"
    " from analytics.experiment_health order by experiment_id"
)


EXPECTED_HEALTH = [
    # 9 days and 1,790 exposures: enough; the 14th's drop added 0 new, so the 19th's baseline is 0: no dip
    ("exp_ab", "running", 9, d(19), "ok", "ok", "ok", "ok", 200, 0, "ok", "ok"),
    # a day, a day and a half: not enough for any verdict, nor a week of baseline for a dip
    ("exp_four", "running", 1, d(19), "not enough data", "not enough data", "ok", "not enough data", 440, None, "ok", "ok"),
    ("exp_skewed", "running", 2, d(19), "not enough data", "not enough data", "ok", "not enough data", 1100, None, "ok", "ok"),
    # one group: no sample ratio to test
    ("exp_solo", "running", 3, d(19), "not enough data", "not applicable", "ok", "not enough data", 0, None, "ok", "ok"),
    # 180 exposures in 10 days; stalled since the 15th, so the 19th's 0 is no dip against a baseline of 0
    ("exp_stalled", "stalled", 10, d(19), "not enough data", "not enough data", "stalled", "ok", 0, 0, "ok", "ok"),
]


def test_each_check_on_the_hand_built_console(console_db):
    assert_rows(query(console_db, HEALTH), EXPECTED_HEALTH)
    assert query(console_db, "select distinct max_running_days from analytics.experiment_health") == [(42,)]


# New exposures from the 2nd to the 18th of November, a weekly cycle with two quiet days; the 1st holds 5,000
# exposed before the series began
WEEKS = [400, 420, 410, 300, 280, 400, 410, 405, 415, 290, 270, 395, 400, 410, 420, 300, 285]


def cumulative(first: int, new: list[int]) -> list[tuple[str, int]]:
    points, total = [("01", first)], first
    for day, count in enumerate(new, start=2):
        total += count
        points.append((f"{day:02d}", total))
    return points


def with_dips(database) -> None:
    add_series(
        database,
        {
            # the 19th: 120 against the lowest of the 12th to 18th, 270: below half (135) and 150 short, beyond 3√270 ≈ 49
            "exp_dip": cumulative(5000, [*WEEKS, 120]),
            # 150 is no less than half of 270: a quiet day, not a dip
            "exp_quiet": cumulative(5000, [*WEEKS, 150]),
            # 8 against 20 is below half, but 12 short is within 3√20 ≈ 13.4 of a count that small
            "exp_small": cumulative(50, [20] * 17 + [8]),
        },
    )


DAILY = (
    "select experiment_id, exposure_date, day_number, is_partial_day, new_exposures, cumulative_exposures,"
    " baseline_exposures, is_dip, has_enough_data, is_running_long from analytics.experiment_health_daily"
    " where experiment_id in ('exp_dip', 'exp_small') and extract(day from exposure_date) in (1, 7, 8, 9, 19)"
    " order by experiment_id, exposure_date"
)

EXPECTED_DAILY = [
    # the first day is never a baseline; the 9th is the first with 7 days before it (the 2nd to the 8th, lowest 280)
    ("exp_dip", d(1), 1, False, 5000, 5000, None, None, False, False),
    ("exp_dip", d(7), 7, False, 400, 7210, None, None, True, False),
    ("exp_dip", d(8), 8, False, 410, 7620, None, None, True, False),
    ("exp_dip", d(9), 9, False, 405, 8025, 280, False, True, False),
    ("exp_dip", d(19), 19, False, 120, 11330, 270, True, True, True),
    ("exp_small", d(1), 1, False, 50, 50, None, None, False, False),
    ("exp_small", d(7), 7, False, 20, 170, None, None, False, False),
    ("exp_small", d(8), 8, False, 20, 190, None, None, False, False),
    ("exp_small", d(9), 9, False, 20, 210, 20, False, False, False),
    ("exp_small", d(19), 19, False, 8, 398, 20, False, False, True),
]


def test_a_dip_is_far_below_the_lowest_of_the_week_before_and_beyond_a_counts_noise(writable_db):
    with_dips(writable_db)
    apply_views(writable_db, parameters={"max_running_days": 14})
    assert_rows(query(writable_db, DAILY), EXPECTED_DAILY)
    rows = query(writable_db, HEALTH.replace("order by", "where experiment_id in ('exp_dip', 'exp_quiet', 'exp_small') order by"))
    assert_rows(
        rows,
        [
            ("exp_dip", "running", 19, d(19), "ok", "not applicable", "ok", "dip", 120, 270, "running long", "ok"),
            ("exp_quiet", "running", 19, d(19), "ok", "not applicable", "ok", "ok", 150, 270, "running long", "ok"),
            ("exp_small", "running", 19, d(19), "not enough data", "not applicable", "ok", "ok", 8, 20, "running long", "ok"),
        ],
    )
    # the parameter stays until set again: at 19 days long (42, the default) none is running long
    apply_views(writable_db, parameters={"max_running_days": 19})
    assert query(writable_db, "select distinct duration_check, max_running_days from analytics.experiment_health") == [("ok", 19)]


def test_alerts_read_the_verdicts_one_condition_a_dip_day_and_one_an_experiment_running_long(writable_db):
    with_dips(writable_db)
    apply_views(writable_db, parameters={"max_running_days": 14})
    with Destination(duckdb_path=writable_db).reader() as reader:
        found = [(c.kind, c.key, c.text) for c in current_conditions(reader) if c.kind in (DIP, RUNNING_LONG)]
    assert found == [
        (
            DIP,
            "dip:exp_dip:2026-11-19",
            "Experiment exp_dip dipped on 2026-11-19: 120 new exposures, against at least 270 on each of the 7 days before.",
        ),
        (
            RUNNING_LONG,
            "running_long:exp_dip",
            "Experiment exp_dip has run 19 days, longer than 14 (11,330 exposures): decide it or end it.",
        ),
        (
            RUNNING_LONG,
            "running_long:exp_quiet",
            "Experiment exp_quiet has run 19 days, longer than 14 (11,360 exposures): decide it or end it.",
        ),
        (
            RUNNING_LONG,
            "running_long:exp_small",
            "Experiment exp_small has run 19 days, longer than 14 (398 exposures): decide it or end it.",
        ),
    ]


def test_the_checks_say_what_a_concluded_or_unfollowed_experiment_is_instead(writable_db):
    # a series that ended on the 12th, eight days before the as-of day: concluded, so no running check applies
    add_series(writable_db, {"exp_done": cumulative(5000, [400] * 11)})
    rows = query(
        writable_db,
        "select experiment_id, status, srm_check, stall_check, dip_check, duration_check, late_check"
        " from analytics.experiment_health where experiment_id = 'exp_done'",
    )
    assert rows == [("exp_done", "concluded", "not applicable", "concluded", "concluded", "concluded", "concluded")]


def test_the_daily_checks_on_postgres_equal_duckdbs(writable_db, postgres_server):
    import psycopg2

    with_dips(writable_db)
    apply_views(writable_db, parameters={"max_running_days": 14})
    with duckdb.connect(str(writable_db), read_only=True) as connection:
        exposure_daily = connection.execute(
            "select project, experiment_id, group_id, exposure_date, cumulative_exposures, new_exposures, is_partial_day"
            " from analytics.exposure_daily"
        ).fetchall()
        parameters = connection.execute("select name, value from analytics.view_parameters").fetchall()
    daily = translate(
        f"with daily as ({view_sql('experiment_health_daily')}) " + DAILY.replace("analytics.experiment_health_daily", "daily"),
        "postgres",
        what="health",
        transform=lambda node: node,
    )
    with psycopg2.connect(postgres_server.database("experiment_health")) as pg, pg.cursor() as cursor:
        cursor.execute("create schema analytics")
        cursor.execute(
            "create table analytics.exposure_daily (project text, experiment_id text, group_id text,"
            " exposure_date date, cumulative_exposures bigint, new_exposures bigint, is_partial_day boolean)"
        )
        cursor.execute("create table analytics.view_parameters (name text, value double precision)")
        cursor.executemany("insert into analytics.exposure_daily values (%s, %s, %s, %s, %s, %s, %s)", exposure_daily)
        cursor.executemany("insert into analytics.view_parameters values (%s, %s)", parameters)
        cursor.execute(daily)
        assert_rows(cursor.fetchall(), EXPECTED_DAILY)
