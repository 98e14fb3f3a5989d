"""Ingestion runs that never settle: requested every run until their status stops moving, then weekly. Only a
completed run settles: one in an error status is retried by the service, so it is asked for like any other.

Offline: the console is an `httpx.MockTransport` whose clock (`Date`) the test moves, the destination a
DuckDB file. The local clock is set five days behind the service's, as a badly skewed scheduler's would
be: which runs are asked for must follow the service's clock all the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import dlt
import duckdb
import httpx
import pytest

from gatehouse.sources.console import clock, console
from gatehouse.sources.console.client import ClientOptions, ConsoleClient
from gatehouse.sources.console.settings import resolve_settings

BASE_URL = "https://console.test"
API_KEY = "console-Vb7Np2Qx9Lk4Tz6Wm3Rc8Hd5"
START = datetime(2026, 11, 2, 6, tzinfo=UTC)
LOCAL_SKEW = timedelta(days=-5)
RUN_PREFIX = "/console/v1/ingestion/runs/"


def stamp(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def ingestion_run(run_id: str, status: str, since: datetime) -> dict:
    return {
        "runID": run_id,
        "latestStatus": status,
        "createdAt": stamp(since - timedelta(hours=1)),
        "lastUpdatedAt": stamp(since),
        "trigger": "scheduled",
        "sources": ["Page Views"],
        "dateStamps": ["2026-10-01"],
        "runHistory": [
            {"statusTimestamp": stamp(since), "status": status},
            {"statusTimestamp": stamp(since - timedelta(hours=1)), "status": "enqueued"},
        ],
        "granularHistory": [],
    }


class Console:
    """Empty lists, the runs in `runs`, and a clock; records which runs were asked for."""

    def __init__(self) -> None:
        self.now = START
        self.runs: dict[str, dict] = {}
        self.asked: list[str] = []

    def handle(self, request: httpx.Request) -> httpx.Response:
        headers = {"Date": format_datetime(self.now, usegmt=True)}
        if request.url.path.startswith(RUN_PREFIX):
            run_id = request.url.path[len(RUN_PREFIX) :]
            self.asked.append(run_id)
            return httpx.Response(200, json={"message": "read", "data": self.runs[run_id]}, headers=headers)
        pagination = {"itemsPerPage": 1000, "pageNumber": 1, "nextPage": None, "previousPage": None}
        return httpx.Response(200, json={"message": "listed", "data": [], "pagination": pagination}, headers=headers)


@pytest.fixture
def service(monkeypatch: pytest.MonkeyPatch) -> Console:
    console_ = Console()
    monkeypatch.setattr(clock, "utc_now", lambda: console_.now + LOCAL_SKEW)
    return console_


def quiet_runs_pipeline(tmp_path: Path) -> dlt.Pipeline:
    return dlt.pipeline(
        pipeline_name="quiet_runs",
        destination=dlt.destinations.duckdb(str(tmp_path / "runs.duckdb")),
        pipelines_dir=str(tmp_path / "pipelines"),
        dataset_name="console",
    )


def run_once(tmp_path: Path, service: Console, run_ids: Sequence[str] = ("stuck", "moving", "failed")) -> list[str]:
    service.asked.clear()
    pipeline = quiet_runs_pipeline(tmp_path)
    settings = resolve_settings(base_url=BASE_URL, api_key=API_KEY, ingestion_run_ids=list(run_ids))
    source = console(
        settings, client=ConsoleClient(ClientOptions.from_settings(settings), transport=httpx.MockTransport(service.handle))
    )
    pipeline.run(source.with_resources("ingestion_runs", "ingestion_run_ids"))
    return sorted(service.asked)


def move_clock(service: Console, days: int) -> None:
    """The service's clock to START + `days`; the run "moving" reaches a new status an hour before."""
    service.now = START + timedelta(days=days)
    status = "download_started" if days % 2 else "started"
    service.runs["moving"] = ingestion_run("moving", status, service.now - timedelta(hours=1))


def test_a_run_whose_status_stops_moving_is_asked_for_weekly_until_it_moves(tmp_path, service):
    service.runs = {
        "stuck": ingestion_run("stuck", "metrics_started", START - timedelta(days=10)),
        "failed": ingestion_run("failed", "download_error", START - timedelta(days=10)),
    }
    move_clock(service, 0)
    # The first run asks for every configured run; the stuck one and the one failed for as long go quiet.
    assert run_once(tmp_path, service) == ["failed", "moving", "stuck"]
    move_clock(service, 1)
    assert run_once(tmp_path, service) == ["moving"]

    # Six days after they were found quiet they are still not asked for; on the seventh they are.
    move_clock(service, 6)
    assert run_once(tmp_path, service) == ["moving"]
    move_clock(service, 7)
    assert run_once(tmp_path, service) == ["failed", "moving", "stuck"]

    # Still stuck: quiet for another week. Once a re-check finds it moved, it is asked for every run.
    move_clock(service, 8)
    assert run_once(tmp_path, service) == ["moving"]
    move_clock(service, 14)
    service.runs["stuck"] = ingestion_run("stuck", "metrics_complete", service.now - timedelta(hours=3))
    assert run_once(tmp_path, service) == ["failed", "moving", "stuck"]
    move_clock(service, 15)
    assert run_once(tmp_path, service) == ["moving", "stuck"]


def retried_run(now: datetime) -> dict:
    """A run as the service shows it at `now`: failed at START, retried 26 hours later, complete 4 hours after."""
    steps = [
        (START - timedelta(hours=2), "enqueued"),
        (START - timedelta(hours=1), "download_started"),
        (START, "download_error"),
        (START + timedelta(hours=26), "download_started"),
        (START + timedelta(hours=30), "pulse_complete"),
    ]
    shown = [(moment, status) for moment, status in steps if moment <= now]
    return {
        **ingestion_run("retried", shown[-1][1], shown[-1][0]),
        "createdAt": stamp(steps[0][0]),
        "runHistory": [{"statusTimestamp": stamp(moment), "status": status} for moment, status in reversed(shown)],
    }


def loaded_status(tmp_path: Path) -> list[tuple]:
    with duckdb.connect(str(tmp_path / "runs.duckdb"), read_only=True) as connection:
        return connection.execute("select run_id, latest_status from console.ingestion_runs").fetchall()


def test_a_run_in_an_error_status_is_asked_for_until_it_completes(tmp_path, service):
    # An error is not final: the service retried this one more than a day after it failed.
    for hours, asked, status in [
        (1, ["retried"], "download_error"),
        (25, ["retried"], "download_error"),
        (31, ["retried"], "pulse_complete"),
        (24 * 8, [], "pulse_complete"),  # completed: never asked again
    ]:
        service.now = START + timedelta(hours=hours)
        service.runs = {"retried": retried_run(service.now)}
        assert run_once(tmp_path, service, ["retried"]) == asked, f"{hours} h after the error"
        assert loaded_status(tmp_path) == [("retried", status)]


def test_runs_an_older_version_settled_are_asked_for_once_more(tmp_path, service):
    # Older versions settled a run whose error status had not moved for a day, and never asked for it again.
    service.runs = {
        "gave_up": ingestion_run("gave_up", "download_error", START - timedelta(days=2)),
        "done": ingestion_run("done", "pulse_complete", START - timedelta(days=2)),
    }
    move_clock(service, 0)
    run_once(tmp_path, service, ["gave_up", "done"])
    with quiet_runs_pipeline(tmp_path).managed_state() as state:
        runs_state = state["sources"]["console"]["resources"]["ingestion_runs"]
        runs_state.pop("complete", None)
        runs_state.pop("pending", None)
        runs_state["settled"] = ["gave_up", "done"]
    service.runs["gave_up"] = ingestion_run("gave_up", "download_started", START - timedelta(hours=1))

    # Neither is configured any more: only the state names them.
    assert run_once(tmp_path, service, []) == ["done", "gave_up"]
    assert sorted(loaded_status(tmp_path)) == [("done", "pulse_complete"), ("gave_up", "download_started")]
    runs_state = quiet_runs_pipeline(tmp_path).state["sources"]["console"]["resources"]["ingestion_runs"]
    assert (runs_state["complete"], runs_state["pending"], "settled" in runs_state) == (
        ["done"],
        {"gave_up": "download_started"},
        False,
    )
    assert run_once(tmp_path, service, []) == ["gave_up"]
