"""`analytics.gate_lifecycle` over the twin's time travel: real `gatehouse run` loads of a play, and real scans of
its repositories, reach every stage and each threshold, on DuckDB and on PostgreSQL.

The play (days from the twin's clock at the start, 2026-11-02 06:00 UTC; a change of day d is made at 10:00 the
day before): loads on day 0 and day 10 (the "as of", 2026-11-12 06:00), each followed by a scan of `web`, `api`
and `mobile` as they are that day, stamped an hour before the load (bench.lifecycle_backtest.TimeTravelLoads).
"""

from __future__ import annotations

import os
import shutil
from datetime import date, datetime
from pathlib import Path

import pytest

from bench.lifecycle_backtest import TimeTravelLoads
from gatehouse.console_twin import ConsoleTwin
from gatehouse.console_twin.time_travel import Change, ChangeKind, Life, Play
from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.pipelines.warehouse.views import apply_views
from tests.views.conftest import query


def change(day: int, kind: ChangeKind, number: int = 0, repository: str = "") -> Change:
    """A change as the lives below write it: its number the rule's pass percentage, or for `checks` the checks an hour."""
    if kind == "checks":
        return Change(day, kind, repository=repository, checks_per_hour=number)
    return Change(day, kind, number, repository)


def life(gate_id: str, *changes: tuple, permanent: bool = False) -> Life:
    return Life(gate_id, gate_id, tuple(change(*c) for c in changes), permanent)


LIVES = [
    # launched 50 days before the last load, checked in web and api: remove it from the code
    life("launched_in_code", (-60, "create", 10), (-60, "add code", 0, "web"), (-60, "add code", 0, "api"), (-40, "launch")),
    # the same, then removed from web on day 3 and from api on day 8; still checked: deploys pending
    life(
        "removed_one_then_other",
        (-60, "create", 10),
        (-60, "add code", 0, "web"),
        (-60, "add code", 0, "api"),
        (-40, "launch"),
        (3, "remove code", 0, "web"),
        (8, "remove code", 0, "api"),
    ),
    # turned off long ago, its code removed on day 5 and its checks stopped on day 7: archive it
    life(
        "no_longer_checked",
        (-90, "create", 10),
        (-90, "add code", 0, "mobile"),
        (-60, "turn off"),
        (5, "remove code", 0, "mobile"),
        (7, "stop checks"),
    ),
    # archived on day 4: the run retires it (its single read says archived), so it leaves the views
    life("archived_gate", (-90, "create", 10), (-80, "launch"), (4, "archive")),
    # partly rolled out until its launch on day 3 (2026-11-04 10:00): 7 days at one answer, ready on 11-18
    life("launched_lately", (-30, "create", 20), (-30, "add code", 0, "web"), (3, "launch")),
    # at 50% for 100 days, still checked: forgotten
    life("left_partial", (-120, "create", 25), (-120, "add code", 0, "web"), (-100, "partial", 50)),
    # a rollout under way, started 20 days before the last load
    life("in_progress", (-10, "create", 10), (-10, "add code", 0, "api")),
    # launched 50 days before the last load like launched_in_code, its checks (120 an hour) grown to 600 on day 5
    life("checks_rising", (-60, "create", 10), (-60, "add code", 0, "web"), (-40, "launch"), (5, "checks", 600)),
    # ... and another's fallen to 40 on day 5
    life("checks_falling", (-60, "create", 10), (-60, "add code", 0, "api"), (-40, "launch"), (5, "checks", 40)),
    # a kill switch: permanent
    life("kill_switch", (-90, "create", 10), (-90, "add code", 0, "api"), (-85, "launch"), permanent=True),
]
GATES = tuple(sorted(life.gate_id for life in LIVES))
COLUMNS = (
    "gate_id, stage, cleanup_value, days_at_value, ready_on, answer_changes_in_window, on_worklist,"
    " referencing_repositories, gone_from_code_since, missing_repositories"
)
LIFECYCLE_SQL = f"select {COLUMNS} from analytics.gate_lifecycle where gate_id in {GATES} order by gate_id"

EXPECTED = [
    ("checks_falling", "ready: remove from code", True, 50, None, 0, True, "api", None, None),
    ("checks_rising", "ready: remove from code", True, 50, None, 0, True, "web", None, None),
    ("in_progress", "in use", None, None, None, 0, False, "api", None, None),
    ("kill_switch", "in use", None, 95, None, 0, False, "api", None, None),
    ("launched_in_code", "ready: remove from code", True, 50, None, 0, True, "api, web", None, None),
    ("launched_lately", "approaching", None, 7, date(2026, 11, 18), 1, True, "web", None, None),
    ("left_partial", "needs a person", None, None, None, 0, True, "web", None, None),
    # both first missed by the scan of day 10, 05:00
    ("no_longer_checked", "ready: archive in the console", None, 70, None, 0, True, None, datetime(2026, 11, 12, 5, 0), None),
    ("removed_one_then_other", "removed from code", None, 50, None, 0, True, None, datetime(2026, 11, 12, 5, 0), None),
]


TREND_SQL = (
    "select gate_id, checks_per_hour, checks_per_hour_before, checks_trend from analytics.gate_lifecycle"
    f" where gate_id in {GATES} order by gate_id"
)
# checks per hour now, and as the run of day 0 found them (every gate's version then was the one day 0 loaded)
TRENDS = [
    ("checks_falling", 40.0, 120.0, "falling"),  # below half
    ("checks_rising", 600.0, 120.0, "rising"),  # above double
    ("in_progress", 120.0, 120.0, "steady"),
    ("kill_switch", 120.0, 120.0, "steady"),
    ("launched_in_code", 120.0, 120.0, "steady"),
    ("launched_lately", 120.0, 120.0, "steady"),
    ("left_partial", 120.0, 120.0, "steady"),
    ("no_longer_checked", 0.0, 120.0, "stopped"),
    ("removed_one_then_other", 120.0, 120.0, "steady"),
]
# before the first load: gatehouse had not seen the gates then
NO_TRENDS = [(gate, now, None, None) for gate, now, _, _ in TRENDS]


def play_loads(destination: Destination, work: Path) -> TimeTravelLoads:
    """The play, loaded on day 0 and day 10 into `destination`."""
    loads = TimeTravelLoads(Play(ConsoleTwin(size="small", seed=5), LIVES), destination, work)
    loads.load(0)
    loads.load(10)
    return loads


@pytest.fixture(scope="module")
def travelled(tmp_path_factory) -> tuple[Path, TimeTravelLoads]:
    os.environ.setdefault("RUNTIME__LOG_LEVEL", "ERROR")
    work = tmp_path_factory.mktemp("time_travel")
    loads = play_loads(Destination(duckdb_path=work / "gatehouse.duckdb"), work)
    return work / "gatehouse.duckdb", loads


@pytest.fixture
def writable(travelled, tmp_path) -> Path:
    copy = tmp_path / "time_travel_copy.duckdb"
    shutil.copy(travelled[0], copy)
    return copy


def stages(database: Path) -> dict[str, tuple]:
    return {gate: tuple(rest) for gate, *rest in query(database, LIFECYCLE_SQL)}


def test_each_life_reaches_its_stage(travelled):
    database, loads = travelled
    assert query(database, LIFECYCLE_SQL) == EXPECTED
    # the play's truth agrees: the code references each gate where the view says, and the answers held
    assert loads.play.referenced_in("launched_in_code", 10) == ["api", "web"]
    assert loads.play.referenced_in("removed_one_then_other", 0) == ["api", "web"]
    assert loads.play.referenced_in("removed_one_then_other", 10) == []
    assert loads.play.one_answer_since("launched_lately", 10) == 3
    assert [loads.play.answer("archived_gate", day) for day in (3, 4)] == [True, "archived"]
    # archived: the run's single read retired its last version, and no view judges it any more
    assert query(database, "select status, _dlt_valid_to is not null from console.gates where id = 'archived_gate'") == [
        ("Launched", True)
    ]
    assert query(database, "select count(*) from analytics.stale_gates where gate_id = 'archived_gate'") == [(0,)]


@pytest.mark.parametrize(
    ("ready_after_days", "stage", "ready_on"),
    [(7, "ready: remove from code", None), (8, "approaching", date(2026, 11, 12))],
)
def test_ready_after_days_is_reached_on_the_day(writable, ready_after_days, stage, ready_on):
    apply_views(writable, parameters={"ready_after_days": ready_after_days})
    row = stages(writable)["launched_lately"]
    assert (row[0], row[1], row[3]) == (stage, True if stage == "ready: remove from code" else None, ready_on)


def test_a_scan_older_than_the_threshold_is_no_evidence_of_absence(writable):
    # the scans are an hour older than the "as of": with a threshold of 0 days every repository is missing
    apply_views(writable, parameters={"code_scan_max_age_days": 0})
    rows = stages(writable)
    assert rows["no_longer_checked"][0] == "ready: remove from code"
    assert rows["removed_one_then_other"][0] == "ready: remove from code"
    assert rows["removed_one_then_other"][-1] == "api, mobile, web"


def test_the_warning_window_and_the_change_window(writable):
    apply_views(writable, parameters={"stale_warning_days": 5, "answer_change_window_days": 7})
    _, _, _, _, changes, on_worklist, *_ = stages(writable)["launched_lately"]
    # ready on 11-18, six days after the "as of"; launched 7 days and 20 hours before it
    assert (changes, on_worklist) == (0, False)


def test_checks_trend_is_read_on_the_consoles_clock(travelled, writable):
    # dlt stamps the versions with this machine's clock, seconds apart; the runs saw the console on day 0 and day
    # 10, 06:00: at the default 14 days the trend reaches back to day -4, before gatehouse loaded anything
    assert query(travelled[0], TREND_SQL) == NO_TRENDS
    # 10 days back is day 0, 06:00, the first run's own time: its versions were current then
    apply_views(writable, parameters={"checks_trend_days": 10})
    assert query(writable, TREND_SQL) == TRENDS
    # a second more than 10 days is before it
    apply_views(writable, parameters={"checks_trend_days": 10 + 1 / 86400})
    assert query(writable, TREND_SQL) == NO_TRENDS


def test_on_postgres_every_row_is_the_same(postgres_server, tmp_path, monkeypatch):
    monkeypatch.setenv("DESTINATION__POSTGRES__CREDENTIALS", postgres_server.database("lifecycle_time_travel"))
    monkeypatch.setenv("DLT_DATA_DIR", str(tmp_path / "dlt"))
    destination = Destination(name="postgres")
    loads = play_loads(destination, tmp_path)
    assert loads.rows(LIFECYCLE_SQL) == EXPECTED
    assert loads.rows(TREND_SQL) == NO_TRENDS
    with destination.sql_client() as client:
        apply_views(client, parameters={"checks_trend_days": 10})
    assert loads.rows(TREND_SQL) == TRENDS


# A switch and a gate launched once, loaded on days 0, 5 and 10: the switch was on at day 0's run, off at day 5's (turned
# off on day 3, that is 2026-11-04 10:00) and on again at day 10's (launched on day 8, 11-09 10:00): it came back to
# the answer it left 7 days and 20 hours before the "as of" (11-12 06:00).
SWITCH_LIVES = [
    life("switch", (-90, "create", 10), (-90, "add code", 0, "web"), (-80, "launch"), (3, "turn off"), (8, "launch")),
    life("launched_once", (-90, "create", 10), (-90, "add code", 0, "web"), (-80, "launch")),
]
SWITCH_SQL = (
    "select gate_id, stage, answer_returns_in_window, days_at_value, ready_on from analytics.gate_lifecycle"
    " where gate_id in ('switch', 'launched_once') order by gate_id"
)


def switch_loads(destination: Destination, work: Path) -> TimeTravelLoads:
    loads = TimeTravelLoads(Play(ConsoleTwin(size="small", seed=5), SWITCH_LIVES), destination, work)
    for day in (0, 5, 10):
        loads.load(day)
    return loads


@pytest.fixture(scope="module")
def switched(tmp_path_factory) -> Path:
    os.environ.setdefault("RUNTIME__LOG_LEVEL", "ERROR")
    work = tmp_path_factory.mktemp("time_travel_switch")
    loads = switch_loads(Destination(duckdb_path=work / "gatehouse.duckdb"), work)
    # the play's truth: every user got the gate's value on each of those days, and it changed twice between
    assert [loads.play.answer("switch", day) for day in (0, 5, 10)] == [True, False, True]
    return work / "gatehouse.duckdb"


# the default window (90 days) and 8 days hold the day it left its answer: a person decides; at 7 days that day is out
# of the window, and the switch is a gate launched 2 days and 20 hours ago, ready 14 days after, on 11-23. The gate
# launched once 90 days and 20 hours ago is ready whatever the window.
SWITCHED = {
    90: [("launched_once", "ready: remove from code", 0, 90, None), ("switch", "needs a person", 1, 2, None)],
    8: [("launched_once", "ready: remove from code", 0, 90, None), ("switch", "needs a person", 1, 2, None)],
    7: [("launched_once", "ready: remove from code", 0, 90, None), ("switch", "approaching", 0, 2, date(2026, 11, 23))],
}


@pytest.mark.parametrize("window", sorted(SWITCHED))
def test_a_gate_that_came_back_to_its_answer_within_the_window_needs_a_person(switched, tmp_path, window):
    copy = tmp_path / "switched.duckdb"
    shutil.copy(switched, copy)
    apply_views(copy, parameters={"answer_return_window_days": window})
    assert query(copy, SWITCH_SQL) == SWITCHED[window]


def test_on_postgres_the_switch_needs_a_person_too(postgres_server, tmp_path, monkeypatch):
    monkeypatch.setenv("DESTINATION__POSTGRES__CREDENTIALS", postgres_server.database("lifecycle_switch"))
    monkeypatch.setenv("DLT_DATA_DIR", str(tmp_path / "dlt"))
    loads = switch_loads(Destination(name="postgres"), tmp_path)
    assert loads.rows(SWITCH_SQL) == SWITCHED[90]
