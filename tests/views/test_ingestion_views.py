"""ingestion_run_health, ingestion_source_health and the failure rates (times in UTC)."""

from __future__ import annotations

from datetime import date, datetime

from tests.views.conftest import assert_rows, query

STAGES = (
    "seconds_to_started, seconds_to_download_started, seconds_to_download_complete, seconds_to_metrics_started, "
    "seconds_to_metrics_complete, seconds_to_pulse_started, seconds_to_pulse_complete"
)
# the metrics and pulse stages, where a run or a source has not reached them
NO_METRICS = (None,) * 4


def november(day: int, hour: int) -> datetime:
    return datetime(2026, 11, day, hour)


# run_id, outcome, enqueued_at, seconds to each stage (STAGES), duration_seconds, error_count, retry_count,
# source_count, failed_source_count, failed_sources (enqueued_date, the day of enqueued_at, follows it)
RUN_HEALTH = [
    ("run_failed", "failed", november(19, 1), 90.0, 180.0, None, *NO_METRICS, 360.0, 1, 0, 1, 1, "Events 2"),
    # enqueued 02:00; download_started 02:03, error 02:08, again 02:15, error 02:20 (latest): one retry
    ("run_failed_retry", "failed", november(19, 2), 60.0, 180.0, None, *NO_METRICS, 1200.0, 2, 1, 2, 1, "Events 1"),
    ("run_ok", "succeeded", november(18, 1), 60.0, 120.0, 600.0, 660.0, 1200.0, 1260.0, 1800.0, 1800.0, 0, 0, 1, 0, None),
    ("run_old", "succeeded", november(9, 1), 120.0, 300.0, 720.0, 900.0, 1500.0, 1800.0, 2400.0, 2400.0, 0, 0, 1, 0, None),
    # download_started first at 02:05, error 02:10, retried 02:20, complete 02:30: times to the first arrival
    ("run_retry", "succeeded", november(18, 2), 60.0, 300.0, 1800.0, 2100.0, 2400.0, 2700.0, 3000.0, 3000.0, 1, 1, 2, 0, None),
    ("run_running", "running", november(20, 1), 120.0, 240.0, None, *NO_METRICS, 240.0, 0, 0, 2, 0, None),
]


def test_ingestion_run_health(console_db):
    rows = query(
        console_db,
        f"""
        select run_id, outcome, enqueued_at, enqueued_date, {STAGES}, duration_seconds, error_count, retry_count,
               source_count, failed_source_count, failed_sources
        from analytics.ingestion_run_health order by run_id
        """,
    )
    assert_rows(rows, [(run_id, outcome, at, at.date(), *rest) for run_id, outcome, at, *rest in RUN_HEALTH])


SOURCE_HEALTH = [
    ("run_failed", "Events 2", "download_error", "failed", 1, 90.0, 180.0, None, *NO_METRICS, 330.0, 1, 0),
    ("run_failed_retry", "Events 1", "download_error", "failed", 1, 60.0, 180.0, None, *NO_METRICS, 1140.0, 2, 1),
    # its own download completed, the run failed on Events 1
    ("run_failed_retry", "Events 3", "download_complete", "incomplete", 1, 60.0, 240.0, 600.0, *NO_METRICS, 600.0, 0, 0),
    ("run_ok", "Events 1", "pulse_complete", "succeeded", 1, 60.0, 120.0, 600.0, 660.0, 1200.0, 1260.0, 1800.0, 1800.0, 0, 0),
    # its history ends at download_complete; the run completed
    ("run_old", "Events 1", "download_complete", "succeeded", 1, 120.0, 300.0, 720.0, *NO_METRICS, 720.0, 0, 0),
    ("run_retry", "Events 1", "pulse_complete", "succeeded", 1, 60.0, 300.0, 1800.0, 2100.0, 2400.0, 2700.0, 3000.0,
     3000.0, 1, 1),
    # two date stamps: the earliest arrival at each stage over both
    ("run_retry", "Events 2", "pulse_complete", "succeeded", 2, 60.0, 360.0, 900.0, 2040.0, 2340.0, 2640.0, 2940.0, 2940.0, 0, 0),
    ("run_running", "Events 3", "download_started", "running", 1, 120.0, 240.0, None, *NO_METRICS, 240.0, 0, 0),
    # listed in `sources` without granular history yet: the run's state
    ("run_running", "Events 4", None, "running", 0, None, None, None, *NO_METRICS, None, 0, 0),
]  # fmt: skip


def test_ingestion_source_health(console_db):
    rows = query(
        console_db,
        f"""
        select run_id, source_name, latest_source_status, outcome, date_stamp_count, {STAGES}, duration_seconds,
               error_count, retry_count
        from analytics.ingestion_source_health order by run_id, source_name
        """,
    )
    assert_rows(rows, SOURCE_HEALTH)


def test_failure_rate_by_source(console_db):
    rows = query(console_db, "select * from analytics.ingestion_failure_rate_by_source order by source_name")
    assert_rows(
        rows,
        [
            # run_old, run_ok, run_retry succeeded (720, 1800, 3000 s), run_failed_retry failed
            ("default", "Events 1", 4, 3, 1, 0, 0, 0.25, 2, 5520 / 3, datetime(2026, 11, 19, 2)),
            ("default", "Events 2", 2, 1, 1, 0, 0, 0.5, 0, 2940.0, datetime(2026, 11, 19, 1)),
            ("default", "Events 3", 2, 0, 0, 1, 1, None, 0, None, None),
            ("default", "Events 4", 1, 0, 0, 1, 0, None, 0, None, None),
        ],
    )


def test_failure_rate_by_day(console_db):
    rows = query(console_db, "select * from analytics.ingestion_failure_rate_by_day order by enqueued_date")
    assert_rows(
        rows,
        [
            ("default", date(2026, 11, 9), 1, 1, 0, 0, 0.0, 0, 2400.0),
            ("default", date(2026, 11, 18), 2, 2, 0, 0, 0.0, 1, 2400.0),
            ("default", date(2026, 11, 19), 2, 0, 2, 0, 1.0, 1, None),
            ("default", date(2026, 11, 20), 1, 0, 0, 1, None, 0, None),
        ],
    )
