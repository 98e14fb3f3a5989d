"""analytics.as_of: the console's clock at the last extraction, that extraction's own end without one, never the wall clock."""

from __future__ import annotations

import re
from datetime import datetime

import duckdb
import pytest

from gatehouse.pipelines.models.build import view_definitions
from gatehouse.pipelines.warehouse.views import apply_views

CREATE = (
    "create table console.extraction_runs"
    " (extraction_id varchar, service_time timestamptz, started_at timestamptz, finished_at timestamptz)"
)


def as_of(tmp_path, runs: list[tuple]) -> list[tuple]:
    with duckdb.connect(str(tmp_path / "clock.duckdb")) as connection:
        connection.execute("set time zone 'UTC'")
        connection.execute("create schema console")
        connection.execute(CREATE)
        for run in runs:
            connection.execute("insert into console.extraction_runs values (?, ?, ?, ?)", run)
        apply_views(connection)
        return connection.execute("select as_of_at, as_of_date, is_service_clock from analytics.as_of").fetchall()


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


@pytest.mark.parametrize(
    ("runs", "expected"),
    [
        # the last extraction's clock, even when an earlier one's was later (the console's clock was reset)
        (
            [
                ("e1", "2026-12-01 00:00:00+00", "2026-11-01 09:00:00+00", "2026-11-01 09:05:00+00"),
                ("e2", "2026-11-02 10:00:00+00", "2026-11-02 09:00:00+00", "2026-11-02 09:05:00+00"),
            ],
            [(at("2026-11-02 10:00:00"), at("2026-11-02").date(), True)],
        ),
        # no Date header at the last extraction: its own finished_at
        (
            [
                ("e1", "2026-11-01 10:00:00+00", "2026-11-01 09:00:00+00", "2026-11-01 09:05:00+00"),
                ("e2", None, "2026-11-02 23:58:00+00", "2026-11-03 00:01:00+00"),
            ],
            [(at("2026-11-03 00:01:00"), at("2026-11-03").date(), False)],
        ),
        # an extraction that recorded no time at all gives none: the one before it does
        (
            [("e1", "2026-11-01 10:00:00+00", "2026-11-01 09:00:00+00", None), ("e2", None, "2026-11-02 09:00:00+00", None)],
            [(at("2026-11-01 10:00:00"), at("2026-11-01").date(), True)],
        ),
        # extractions recorded, none with a time: no clock, no row
        ([("e1", None, "2026-11-01 09:00:00+00", None)], []),
        # no extraction at all (the table with no table at all: test_view_contract's empty database): no row
        ([], []),
    ],
    ids=["last-extraction", "finished-at", "skips-timeless", "no-time", "no-extraction"],
)
def test_as_of_is_the_last_extractions_clock(tmp_path, runs, expected):
    assert as_of(tmp_path, runs) == expected


def test_no_view_reads_the_wall_clock():
    wall_clock = re.compile(
        r"\b(current_timestamp|current_date|current_time|localtimestamp|localtime|now|today|get_current_time)\b"
    )
    for definition in view_definitions():
        code = "\n".join(line.split("--")[0] for line in definition.sql.splitlines())
        assert not wall_clock.search(code), definition.name
