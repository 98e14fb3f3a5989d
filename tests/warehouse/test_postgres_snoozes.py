"""`gatehouse gates snooze|unsnooze|snoozes` on a real PostgreSQL server (its session in another time zone than UTC):
the views built before any snooze, the rows written as on DuckDB, the newest marked, the snoozes in force listed."""

from __future__ import annotations

from datetime import UTC, timedelta

import dlt
import psycopg2
import pytest

from gatehouse.pipelines.cli.gates import utc_today
from gatehouse.pipelines.cli.main import main
from tests.cleanup.conftest import sample_console
from tests.drills.conftest import error_lines
from tests.views.console_dataset import console_pipeline

pytestmark = pytest.mark.slow


def test_snoozes_on_postgresql(postgres_server, tmp_path, monkeypatch, capsys):
    credentials = postgres_server.database("gatehouse_snoozes")
    console_pipeline(tmp_path / "snoozes.duckdb", tmp_path, dlt.destinations.postgres(credentials)).run(sample_console())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DESTINATION__POSTGRES__CREDENTIALS", credentials)
    monkeypatch.setenv("DLT_DATA_DIR", str(tmp_path / "dlt"))
    monkeypatch.setenv("LOGNAME", "pg-person")
    postgres = ["--destination", "postgres"]
    today = utc_today()
    soon, later = today + timedelta(days=10), today + timedelta(days=60)

    # no snooze yet: no table, and the views read none
    assert main(["gates", "snoozes", *postgres]) == 0
    assert capsys.readouterr().out == "0 snoozed gates (every project)\n"
    assert main(["gates", "snooze", "new_checkout", "--until", str(today), "--reason", "r", *postgres]) == 2
    assert error_lines(capsys.readouterr().err) == [
        f"gatehouse: error: --until {today} is today (today is {today} UTC): a snooze ends on a later day; nothing was written"
    ]

    assert main(["gates", "snooze", "new_checkout", "--until", str(soon), "--reason", "freeze", *postgres]) == 0
    assert (
        main(
            ["gates", "snooze", "old_banner", "--until", str(later), "--reason", "app release", "--project", "default", *postgres]
        )
        == 0
    )
    assert main(["gates", "unsnooze", "new_checkout", *postgres]) == 0
    capsys.readouterr()
    assert main(["gates", "snoozes", *postgres]) == 0
    [line, total] = capsys.readouterr().out.splitlines()
    assert line.startswith(f"default  old_banner  until {later}  (by pg-person, ") and line.endswith("): app release")
    assert total == "1 snoozed gate (every project)"

    with psycopg2.connect(credentials) as connection, connection.cursor() as cursor:
        cursor.execute(
            "select snooze_id, project, gate_id, snoozed_until, reason, snoozed_at, snoozed_by"
            " from console.gate_snoozes order by snoozed_at"
        )
        written = cursor.fetchall()
        assert [row[1:5] + row[6:] for row in written] == [
            (None, "new_checkout", soon, "freeze", "pg-person"),
            ("default", "old_banner", later, "app release", "pg-person"),
            (None, "new_checkout", today, "ended by hand", "pg-person"),
        ]
        cursor.execute("select snooze_id, snoozed_at, is_latest from analytics.stg_gate_snoozes order by snoozed_at")
        # the instants in UTC whatever the session's time zone
        assert cursor.fetchall() == [
            (row[0], row[5].astimezone(UTC).replace(tzinfo=None), latest) for row, latest in zip(written, (False, True, True))
        ]
        cursor.execute(
            "select project, gate_id, snoozed_until, snooze_reason, is_latest from analytics.int_gate_snoozes order by snoozed_at"
        )
        assert cursor.fetchall() == [
            ("default", "new_checkout", soon, "freeze", False),
            ("default", "old_banner", later, "app release", True),
            ("default", "new_checkout", today, "ended by hand", True),
        ]
