"""An experiment gatehouse stops following (its id taken out of `experiment_ids`, or no longer named by its holdout)
keeps its loaded exposures, which end at the last run that followed it: the views, the report and the alerts call it
no longer followed ("unfollowed"), never concluded, stalled or a sample-ratio mismatch to alert on anew; a database
loaded before runs recorded what they follow shows every experiment as before."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import duckdb
import pytest

from gatehouse.pipelines.alerts.conditions import SRM, STALLED, current_conditions
from gatehouse.pipelines.cli.main import main
from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.pipelines.warehouse.views import apply_views
from tests.drills.conftest import copy_database, duckdb_destination, load, make_twin, point_at
from tests.duckdb_and_postgres import on_duckdb_and_postgres, run_into

# the second run, five days after the first: more than late_days (4), so a series the runs stopped reading would
# pass for concluded
DAYS_BETWEEN_RUNS = 5
GROWTH = (
    "select experiment_id, status, is_followed, last_followed_date, last_date, lag_days, is_concluded,"
    " is_stalled, is_late, total_exposures, days_to_target from analytics.exposure_growth order by experiment_id"
)
# The twin's organisation (small, seed 5): 12 experiments. X is running and named by no holdout: followed through
# experiment_ids only; Y is running and named by one holdout only, and followed through experiment_ids too at first.
X = "87WDmqN0NrycikMweqRVQ7"
Y = "7X7sUtQCMXGk74VBnz3r3l"
FIRST, SECOND = date(2026, 11, 2), date(2026, 11, 7)
# the one stalled experiment, as the report's summary lists it (followed through experiment_ids: it stays stalled)
STALLED_LINE = "LvWycp8DppyiLnUXzWC4uh             stalled: no new exposure for 28 d"


def growth_rows(status: str, followed: bool, last_followed: date | None, concluded: bool) -> list[tuple]:
    """`GROWTH` after the second run, X's and Y's status, is_followed, last_followed_date and is_concluded as given,
    every other experiment's row as it is either way (`last_followed` also stands for theirs when None)."""
    others = SECOND if last_followed is not None else None
    return [
        ("4ezM7yzgGnKbTdewQ9NIQo", "concluded", True, others, date(2026, 10, 22), 16, True, False, False, 23239, 0),
        ("5u5eMHB3Ibqn9iXx1JHBTK", "concluded", True, others, date(2026, 10, 13), 25, True, False, False, 14449, 0),
        # Y: no pace to the target once its series ends (concluded or no longer followed)
        (Y, status, followed, last_followed, FIRST, 5, concluded, False, False, 4409, None),
        (X, status, followed, last_followed, FIRST, 5, concluded, False, False, 12071, 0),  # reached its target
        ("DlGRWGLjr3AyLOfzg0LA0r", "running", True, others, SECOND, 0, False, False, False, 21365, 0),
        ("LvWycp8DppyiLnUXzWC4uh", "stalled", True, others, SECOND, 0, False, True, False, 28029, 0),
        ("NKaH7r7hRKhhhFjiROROQS", "concluded", True, others, date(2026, 10, 25), 13, True, False, False, 18968, 0),
        ("NuGQyabfiijwM82uCTZf4c", "running", True, others, SECOND, 0, False, False, False, 135867, 0),
        ("QTQU63QqstroBfWZHZKX6a", "concluded", True, others, date(2026, 10, 21), 17, True, False, False, 16690, 0),
        ("hPz2QKFQXUrlQkAAqvbAno", "running", True, others, SECOND, 0, False, False, False, 24802, 0),
        ("moR8BVlhipK5djEiofMwaz", "concluded", True, others, date(2026, 10, 1), 37, True, False, False, 6328, None),
        ("zmm2sDgibXxzN9Ktqzsiqk", "concluded", True, others, date(2026, 10, 24), 14, True, False, False, 91749, 0),
    ]


@dataclass(frozen=True)
class Loaded:
    database: Path
    folder: Path


@pytest.fixture(scope="module")
def unfollowed(tmp_path_factory, reference_path) -> Loaded:
    """Two runs five days apart: the first follows every experiment (the drills' reference, copied); before the
    second, X leaves experiment_ids and Y's holdout stops naming it (nor is it in experiment_ids any more)."""
    twin = make_twin()
    named = {e: [h for h in twin.organisation.holdouts.values() if e in h["experimentIDs"]] for e in twin.experiment_ids}
    assert named[X] == [] and len(named[Y]) == 1  # the organisation as this test knows it
    folder = tmp_path_factory.mktemp("unfollowed")
    database = folder / "gatehouse.duckdb"
    with twin.serve() as base_url:
        copy_database(reference_path, database, base_url)
        twin.advance(days=DAYS_BETWEEN_RUNS)
        with twin.lock:
            named[Y][0]["experimentIDs"].remove(Y)
        load(twin, base_url, database, experiment_ids=[e for e in twin.experiment_ids if e not in (X, Y)])
    return Loaded(database, folder)


def query(database: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(database), read_only=True) as connection:
        return connection.execute(sql).fetchall()


def copy_of(loaded: Loaded, name: str) -> Path:
    copy = loaded.folder / name
    shutil.copyfile(loaded.database, copy)
    return copy


def test_an_experiment_no_longer_followed_is_unfollowed_not_concluded(unfollowed):
    # X and Y end at the first run, the last that followed them; every other experiment is as the runs read it
    assert query(unfollowed.database, GROWTH) == growth_rows("unfollowed", False, FIRST, False)
    assert query(
        unfollowed.database,
        "select experiment_id, has_exposures, is_followed from analytics.experiment_coverage where not is_followed order by 1",
    ) == [(Y, True, False), (X, True, False)]
    # what each run followed: all 12, then 10
    assert query(unfollowed.database, "select followed_experiment_count from console.extraction_runs order by started_at") == [
        (12,),
        (10,),
    ]


@pytest.mark.parametrize("without_column", [False, True], ids=["no followed-ids table", "nor its count column"])
def test_a_database_loaded_before_runs_recorded_what_they_follow_shows_every_experiment_as_before(
    unfollowed, tmp_path, capsys, without_column
):
    database = tmp_path / "before.duckdb"
    shutil.copyfile(unfollowed.database, database)
    with duckdb.connect(str(database)) as connection:
        connection.execute("drop table console.extraction_runs__followed_experiment_ids")
        if without_column:
            connection.execute("alter table console.extraction_runs drop column followed_experiment_count")
    # the command in this process: a start of Python and dlt of its own tells nothing more about the views
    assert main(["views", "--duckdb", str(database)]) == 0, capsys.readouterr().err[-2000:]
    # every experiment followed, as the views showed before: X and Y concluded; no run's last followed day known
    assert query(database, GROWTH) == growth_rows("concluded", True, None, True)


def test_the_report_says_which_experiments_are_no_longer_followed_and_what_follows_them_again(forked_gatehouse, unfollowed):
    out = unfollowed.folder / "reports"
    report = forked_gatehouse("report", "--duckdb", str(unfollowed.database), "--out", str(out))
    assert report.returncode == 0, report.stderr[-2000:]
    lines = report.stdout.splitlines()
    assert lines[lines.index("  " + STALLED_LINE) - 3] == (
        "experiments: 12 (2 with sample-ratio mismatch, 1 stalled, 2 running, 5 concluded, 2 no longer followed); to look at,"
        " sample-ratio mismatch first (smallest p first), then stalled:"
    )
    assert (
        f"  no longer followed, so neither concluded nor stalled: {X} (its exposures end at 2026-11-02, the last run"
        f" that followed it), {Y} (its exposures end at 2026-11-02, the last run that followed it); to follow one"
        " again, add its id to sources.console.experiment_ids (SOURCES__CONSOLE__EXPERIMENT_IDS)"
    ) in lines
    page = (out / "exposure_growth.html").read_text()
    assert "2 running, 0 late, 5 concluded, <strong>2 no longer followed</strong>." in page
    assert (
        f"<strong>2 no longer followed</strong>, neither concluded nor stalled: {X} (its exposures end at 2026-11-02,"
        " the last run that followed it)"
    ) in page
    assert "<em>unfollowed</em> no longer followed" in page and "SOURCES__CONSOLE__EXPERIMENT_IDS" in page
    # in the table, last, each with its pace said to be its last week's, and no idle days counted while not read
    assert (
        f'<td class="text">{X}</td><td class="text"></td><td class="text">unfollowed</td><td class="num">12,071</td>'
        '<td class="text">204 (its last week, to 2026-11-02)</td><td class="text">down, then</td>'
        '<td class="text">reached</td><td class="num"></td>'
    ) in page
    review = page[: page.index("Health checks")]
    assert review.count('<td class="text">unfollowed</td>') == 2 and review.index(f'<td class="text">{X}</td>') > review.index(
        '<td class="text">stalled</td>'
    )
    # its health checks: none is run on a series no longer read
    checks = page[page.index("Health checks") :]
    assert (f'<td class="text">{X}</td><td class="text">ok</td>' + '<td class="text">unfollowed</td>' * 5) in checks


def test_no_alert_is_about_an_experiment_no_longer_followed(unfollowed):
    # thresholds that make every followed experiment with two groups a mismatch, and every running one stalled
    database = copy_of(unfollowed, "alerts.duckdb")
    apply_views(database, parameters={"srm_p_value_threshold": 1.0, "stall_days": 0})
    with Destination(duckdb_path=database).reader() as reader:
        conditions = current_conditions(reader)
    about = {(c.kind, c.key.split(":")[-1]) for c in conditions if c.kind in (SRM, STALLED)}
    assert {kind for kind, _ in about} == {SRM, STALLED}
    assert not {experiment for _, experiment in about} & {X, Y}


@on_duckdb_and_postgres("gatehouse_followed_lists")
def test_a_run_that_follows_the_same_lists_nothing_again_and_the_last_followed_day_moves_on(
    destination, tmp_path, monkeypatch, capsys, request
):
    # three runs: the same experiments twice (the second lists none: a no-change run stays one row), then X dropped;
    # X's exposures end at the second run, which followed it without listing it again
    flags, query_ = run_into(destination, tmp_path, monkeypatch, request)
    twin = make_twin()
    with twin.serve() as base_url:
        point_at(monkeypatch, twin, base_url)
        if destination is duckdb_destination:  # the first run's file, made once for the suite: the runs after are the subject
            copy_database(request.getfixturevalue("reference_path"), tmp_path / "gatehouse.duckdb", base_url)
        else:
            assert main(["run", "--no-progress", *flags]) == 0, capsys.readouterr().err
        twin.advance(days=2)
        assert main(["run", "--no-progress", *flags]) == 0, capsys.readouterr().err
        twin.advance(days=3)
        monkeypatch.setenv("SOURCES__CONSOLE__EXPERIMENT_IDS", json.dumps([e for e in twin.experiment_ids if e != X]))
        assert main(["run", "--no-progress", *flags]) == 0, capsys.readouterr().err
    counts = query_(
        "select runs.followed_experiment_count, count(ids.value) from console.extraction_runs as runs"
        " left join console.extraction_runs__followed_experiment_ids as ids on ids._dlt_parent_id = runs._dlt_id"
        " group by runs._dlt_id, runs.followed_experiment_count, runs.service_time order by runs.service_time"
    )
    assert counts == [(12, 12), (12, 0), (11, 11)]
    rows = {
        experiment: (status, followed, last)
        for experiment, status, followed, last in query_(
            "select experiment_id, status, is_followed, last_followed_date from analytics.exposure_growth"
        )
    }
    assert rows[X] == ("unfollowed", False, date(2026, 11, 4))
    assert rows["DlGRWGLjr3AyLOfzg0LA0r"] == ("running", True, SECOND)
