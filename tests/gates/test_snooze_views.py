"""`stg_gate_snoozes` and `int_gate_snoozes` over two projects: every row as written, the newest of each key marked, a
snooze of every project spread over the projects that hold its gate, and both views empty before any snooze."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import dlt
import duckdb
import pytest

from gatehouse.pipelines.warehouse.views import apply_views
from gatehouse.sources.gate_snoozes import gate_snoozes_source
from tests.cleanup.conftest import sample_console


def snooze(snooze_id: str, project: str | None, gate_id: str, until: str, day: int, reason: str = "r") -> dict:
    return {
        "snooze_id": snooze_id,
        "project": project,
        "gate_id": gate_id,
        "snoozed_until": date.fromisoformat(until),
        "reason": reason,
        "snoozed_at": datetime(2026, 11, day, 9, 30, tzinfo=UTC),
        "snoozed_by": "ann",
    }


SNOOZES = [
    snooze("s1", "default", "old_banner", "2027-01-01", 1),
    snooze("s2", None, "new_checkout", "2027-02-01", 2),
    snooze("s3", "web", "new_checkout", "2026-11-03", 3, "ended by hand"),  # ends web's only
    snooze("s4", None, "half_rollout", "2027-03-01", 4),
    snooze("s5", "default", "half_rollout", "2027-04-01", 5),  # replaces s4 in default
    snooze("s6", None, "half_rollout", "2026-11-06", 6, "ended by hand"),  # ends both everywhere
    snooze("s7", "web", "old_banner", "2027-01-01", 7),  # web has no old_banner
]


def load(database: Path, work: Path, dataset: str, gate_ids: tuple[str, ...]) -> None:
    source = sample_console()
    source.resources["gates"].add_filter(lambda gate: gate["id"] in gate_ids)
    dlt.pipeline(
        pipeline_name=f"snoozes_{dataset}",
        destination=dlt.destinations.duckdb(str(database)),
        dataset_name=dataset,
        pipelines_dir=str(work / "dlt"),
    ).run(source)


@pytest.fixture(scope="module")
def two_projects(tmp_path_factory) -> Path:
    """Project default holds the three gates, project web only new_checkout; no snooze yet."""
    work = tmp_path_factory.mktemp("snooze_views")
    database = work / "flags.duckdb"
    load(database, work, "console", ("new_checkout", "old_banner", "half_rollout"))
    load(database, work, "console_web", ("new_checkout",))
    return database


def rows(database: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(database), read_only=True) as connection:
        return connection.execute(sql).fetchall()


def test_no_snooze_yet_the_views_are_built_and_empty(two_projects, tmp_path):
    database = tmp_path / "flags.duckdb"
    database.write_bytes(two_projects.read_bytes())
    assert {"stg_gate_snoozes", "int_gate_snoozes"} <= set(apply_views(database))
    assert rows(database, "select count(*) from analytics.stg_gate_snoozes") == [(0,)]
    assert rows(database, "select count(*) from analytics.int_gate_snoozes") == [(0,)]
    assert rows(
        database,
        "select column_name, data_type from information_schema.columns where table_schema = 'analytics'"
        " and table_name = 'int_gate_snoozes' order by ordinal_position",
    ) == [
        ("project", "VARCHAR"),
        ("gate_id", "VARCHAR"),
        ("snooze_id", "VARCHAR"),
        ("snoozed_until", "DATE"),
        ("snooze_reason", "VARCHAR"),
        ("snoozed_at", "TIMESTAMP"),
        ("snoozed_by", "VARCHAR"),
        ("is_latest", "BOOLEAN"),
    ]


@pytest.fixture(scope="module")
def snoozed(two_projects, tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("snoozed")
    database = work / "flags.duckdb"
    database.write_bytes(two_projects.read_bytes())
    dlt.pipeline(
        pipeline_name="snoozes_written",
        destination=dlt.destinations.duckdb(str(database)),
        dataset_name="console",
        pipelines_dir=str(work / "dlt"),
    ).run(gate_snoozes_source(SNOOZES))
    apply_views(database)
    return database


def test_stg_gate_snoozes_keeps_every_row_and_marks_the_newest_of_each_project_and_gate(snoozed):
    assert rows(
        snoozed,
        "select snooze_id, project, gate_id, snoozed_until, snooze_reason, snoozed_at, snoozed_by,"
        " is_latest from analytics.stg_gate_snoozes order by snooze_id",
    ) == [
        ("s1", "default", "old_banner", date(2027, 1, 1), "r", datetime(2026, 11, 1, 9, 30), "ann", True),
        ("s2", None, "new_checkout", date(2027, 2, 1), "r", datetime(2026, 11, 2, 9, 30), "ann", True),
        ("s3", "web", "new_checkout", date(2026, 11, 3), "ended by hand", datetime(2026, 11, 3, 9, 30), "ann", True),
        # a null project is one key: the later every-project row is the newest
        ("s4", None, "half_rollout", date(2027, 3, 1), "r", datetime(2026, 11, 4, 9, 30), "ann", False),
        ("s5", "default", "half_rollout", date(2027, 4, 1), "r", datetime(2026, 11, 5, 9, 30), "ann", True),
        ("s6", None, "half_rollout", date(2026, 11, 6), "ended by hand", datetime(2026, 11, 6, 9, 30), "ann", True),
        ("s7", "web", "old_banner", date(2027, 1, 1), "r", datetime(2026, 11, 7, 9, 30), "ann", True),
    ]


def test_int_gate_snoozes_spreads_a_snooze_of_every_project_and_the_newest_row_is_in_force(snoozed):
    assert rows(
        snoozed,
        "select project, gate_id, snooze_id, snoozed_until, is_latest from analytics.int_gate_snoozes"
        " order by project, gate_id, snooze_id",
    ) == [
        ("default", "half_rollout", "s4", date(2027, 3, 1), False),
        ("default", "half_rollout", "s5", date(2027, 4, 1), False),
        ("default", "half_rollout", "s6", date(2026, 11, 6), True),  # the every-project end, written last
        ("default", "new_checkout", "s2", date(2027, 2, 1), True),
        ("default", "old_banner", "s1", date(2027, 1, 1), True),
        ("web", "new_checkout", "s2", date(2027, 2, 1), False),
        ("web", "new_checkout", "s3", date(2026, 11, 3), True),  # web's own end; default's snooze stays
        # s7: project web never held old_banner, so it applies to no gate
    ]


def test_a_project_left_out_of_the_views_has_no_snoozes(snoozed, tmp_path):
    database = tmp_path / "flags.duckdb"
    database.write_bytes(snoozed.read_bytes())
    apply_views(database, projects=["web"])
    assert rows(database, "select project, snooze_id, is_latest from analytics.int_gate_snoozes order by snooze_id") == [
        ("web", "s2", False),
        ("web", "s3", True),
    ]
