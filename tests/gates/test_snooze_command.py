"""`gatehouse gates snooze|unsnooze|snoozes` on the three-gate console: the exact rows written, history kept, the
snoozes in force listed, and every refusal one line with nothing written."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import duckdb
import pytest

from gatehouse.pipelines.cli.gates import utc_today
from tests.gates.conftest import USER

SNOOZE_ID = re.compile(r"\d{8}T\d{12}Z-[0-9a-f]{8}")
COLUMNS = "snooze_id, project, gate_id, snoozed_until, reason, snoozed_at, snoozed_by"


def written(database) -> list[tuple]:
    """console.gate_snoozes as written, oldest first; [] when no snooze has made the table."""
    with duckdb.connect(str(database), read_only=True) as connection:
        if not connection.execute(
            "select 1 from information_schema.tables where table_schema = 'console' and table_name = 'gate_snoozes'"
        ).fetchall():
            return []
        return connection.execute(f"select {COLUMNS} from console.gate_snoozes order by snoozed_at").fetchall()


def in_utc(value: datetime) -> datetime:
    return value.astimezone(UTC)


def test_snooze_then_unsnooze_writes_one_row_each_and_keeps_the_history(database, gatehouse):
    until = utc_today() + timedelta(days=30)
    before = datetime.now(UTC)
    done = gatehouse(
        "gates",
        "snooze",
        "new_checkout",
        "--until",
        until.isoformat(),
        "--reason",
        "  holiday freeze ",
        "--duckdb",
        str(database),
    )
    assert done.code == 0, done.err
    assert done.out == f"new_checkout (every project): snoozed until {until}, out of the worklist and the alerts until then\n"
    [row] = written(database)
    snooze_id, *rest, snoozed_at, snoozed_by = row
    assert SNOOZE_ID.fullmatch(snooze_id)
    assert rest == [None, "new_checkout", until, "holiday freeze"]
    assert before <= in_utc(snoozed_at) <= datetime.now(UTC)
    assert snoozed_by == USER

    done = gatehouse("gates", "unsnooze", "new_checkout", "--duckdb", str(database))
    assert done.code == 0, done.err
    assert done.out == "new_checkout (every project): snooze ended, back in the worklist and the alerts (project default)\n"
    first, ended = written(database)
    assert first == row
    assert ended[1:5] == (None, "new_checkout", utc_today(), "ended by hand")
    assert ended[6] == USER and in_utc(ended[5]) >= in_utc(snoozed_at)
    assert ended[3] == in_utc(ended[5]).date(), "an end is dated the day it was written: no reader takes it for a snooze"


def test_a_project_snooze_and_the_list_of_snoozes_in_force(database, gatehouse):
    soon, later = utc_today() + timedelta(days=3), utc_today() + timedelta(days=90)
    assert (
        gatehouse(
            "gates",
            "snooze",
            "old_banner",
            "--until",
            str(later),
            "--reason",
            "waits for the\x1b[2J app",
            "--project",
            "default",
            "--duckdb",
            str(database),
        ).code
        == 0
    )
    assert (
        gatehouse(
            "gates", "snooze", "half_rollout", "--until", str(soon), "--reason", "rollout ends Friday", "--duckdb", str(database)
        ).code
        == 0
    )
    again = gatehouse(
        "gates", "snooze", "half_rollout", "--until", str(later), "--reason", "rollout slipped", "--duckdb", str(database)
    )
    assert again.out == (
        f"half_rollout (every project): snoozed until {later}, out of the worklist and the alerts"
        f" until then; it replaces the snooze until {soon}\n"
    )
    assert [row[1:5] for row in written(database)] == [
        ("default", "old_banner", later, "waits for the\x1b[2J app"),
        (None, "half_rollout", soon, "rollout ends Friday"),
        (None, "half_rollout", later, "rollout slipped"),
    ]

    listed = gatehouse("gates", "snoozes", "--duckdb", str(database))
    assert listed.code == 0, listed.err
    today = f"{datetime.now(UTC):%Y-%m-%d}"
    lines = [re.sub(r"\d\d:\d\d UTC", "HH:MM UTC", line) for line in listed.out.splitlines()]
    assert lines == [
        f"default  half_rollout  until {later}  (by {USER}, {today} HH:MM UTC): rollout slipped",
        # the reason's escape sequence shown, never sent to the terminal
        f"default  old_banner  until {later}  (by {USER}, {today} HH:MM UTC): waits for the\\x1b[2J app",
        "2 snoozed gates (every project)",
    ]


def snooze(*extra: str, gate: str = "new_checkout", until: str = "+30", reason: str = "r") -> list[str]:
    """`snooze` with arguments that are right but for those given."""
    return ["snooze", gate, "--until", until, "--reason", reason, *extra]


# a gate id with a right-to-left override in it
HIDDEN = "new\u202echeckout"
# each refusal's line, less the "; nothing was written" every one ends with
BAD_INPUT = {
    "unknown gate": (snooze(gate="new_chekout"), "no gate new_chekout has been loaded: did you mean new_checkout?"),
    "not a date": (snooze(until="2027-02-30"), "--until 2027-02-30: not a date; write it as YYYY-MM-DD, e.g. +30"),
    "today": (snooze(until="+0"), "--until +0 is today (today is +0 UTC): a snooze ends on a later day"),
    "in the past": (snooze(until="-1"), "--until -1 is in the past (today is +0 UTC): a snooze ends on a later day"),
    "empty reason": (snooze(reason=" \t"), "--reason is empty: say why the gate is snoozed"),
    "unknown project": (snooze("--project", "web"), "no project web has been loaded (projects loaded: default)"),
    # listing a project's snoozes: a typo would list none, as if nothing were snoozed
    "unknown project listed": (["snoozes", "--project", "defualt"], "no project defualt has been loaded (did you mean default?)"),
    "gate id shown safely": (snooze(gate=HIDDEN), "no gate new\\u202echeckout has been loaded: did you mean new_checkout?"),
    "nothing to end": (["unsnooze", "old_banner"], "old_banner has no snooze in force (every project)"),
}


def dated(text: str) -> str:
    """`+N`/`-N` in a test's words as the date N days from today (UTC)."""
    return re.sub(r"(?<![\w-])([+-]\d+)\b", lambda match: str(utc_today() + timedelta(days=int(match[1]))), text)


@pytest.mark.parametrize("arguments, line", BAD_INPUT.values(), ids=BAD_INPUT.keys())
def test_refused_in_one_line_with_nothing_written(database, gatehouse, arguments, line):
    done = gatehouse("gates", *[dated(argument) for argument in arguments], "--duckdb", str(database))
    assert (done.code, done.out) == (2, "")
    # the views' log lines aside, the one line it fails with
    assert [said for said in done.err.splitlines() if " INFO gatehouse." not in said] == [
        f"gatehouse: error: {dated(line)}; nothing was written"
    ]
    assert written(database) == []


def test_the_date_is_checked_before_the_warehouse_is_opened(tmp_path, gatehouse):
    missing = tmp_path / "none.duckdb"
    done = gatehouse("gates", "snooze", "new_checkout", "--until", "yesterday", "--reason", "r", "--duckdb", str(missing))
    assert done.code == 2
    assert done.err.startswith("gatehouse: error: --until yesterday: not a date") and done.err.count("\n") == 1
    assert not missing.exists()
