"""exposure_daily, exposure_growth, exposure_srm.

As of 2026-11-20. Expected p-values are the chi-square survival function computed outside this
project (scipy.stats.chi2.sf); the views' own approximation must agree to 1e-6 relative.
"""

from __future__ import annotations

from datetime import date

import duckdb
import pytest

from gatehouse.pipelines.warehouse.views import apply_views
from tests.views.conftest import assert_rows, query
from tests.views.console_dataset import FOLLOWED_EXPERIMENTS


def d(day: int) -> date:
    return date(2026, 11, day)


def test_exposure_daily_two_groups_with_a_zero_day_a_drop_and_a_gap(console_db):
    rows = query(
        console_db,
        """
        select group_id, exposure_date, cumulative_exposures, new_exposures, is_cumulative_drop, dropped_exposures,
               is_reported, experiment_cumulative_exposures, exposure_share
        from analytics.exposure_daily where experiment_id = 'exp_ab' order by group_id, exposure_date
        """,
    )
    # experiment totals per day: 210, 430, 650, 630, 890, 1110, 680 + 550, 1590, 1790
    totals = {11: 210, 12: 430, 13: 650, 14: 630, 15: 890, 16: 1110, 17: 1230, 18: 1590, 19: 1790}
    control = [
        (11, 100, 100),
        (12, 220, 120),
        (13, 330, 110),
        (14, 330, 0),
        (15, 450, 120),
        (16, 560, 110),
        (17, 680, 120),
        (18, 800, 120),
        (19, 900, 100),
    ]
    expected = [("control", d(day), cum, new, False, 0, True, totals[day], cum / totals[day]) for day, cum, new in control]
    expected += [
        ("test", d(11), 110, 110, False, 0, True, 210, 110 / 210),
        ("test", d(12), 210, 100, False, 0, True, 430, 210 / 430),
        ("test", d(13), 320, 110, False, 0, True, 650, 320 / 650),
        # 320 -> 300: no new exposures, flagged, 20 dropped
        ("test", d(14), 300, 0, True, 20, True, 630, 300 / 630),
        ("test", d(15), 440, 140, False, 0, True, 890, 440 / 890),
        ("test", d(16), 550, 110, False, 0, True, 1110, 550 / 1110),
        # not reported: the 16th's count carried over
        ("test", d(17), 550, 0, False, 0, False, 1230, 550 / 1230),
        ("test", d(18), 790, 240, False, 0, True, 1590, 790 / 1590),
        ("test", d(19), 890, 100, False, 0, True, 1790, 890 / 1790),
    ]
    assert_rows(rows, expected)


def test_exposure_daily_one_group(console_db):
    rows = query(
        console_db,
        "select group_name, exposure_date, cumulative_exposures, new_exposures, exposure_share "
        "from analytics.exposure_daily where experiment_id = 'exp_solo' order by exposure_date",
    )
    assert_rows(rows, [("Everyone", d(17), 50, 50, 1.0), ("Everyone", d(18), 81, 31, 1.0), ("Everyone", d(19), 81, 0, 1.0)])


def test_exposure_growth(console_db):
    rows = query(
        console_db,
        """
        select experiment_id, group_count, first_date, last_date, days_running, total_exposures,
               avg_daily_exposures_7d, previous_avg_daily_exposures_7d, trend_pct, trend, target_sample_size,
               days_to_target, last_growth_date, days_without_growth, is_stalled, cumulative_drop_count
        from analytics.exposure_growth order by experiment_id
        """,
    )
    assert_rows(
        rows,
        [
            # daily new: 210, 220, 220, 0, 260, 220, 120, 360, 200. Last 7 days (13th-19th) 1380 / 7;
            # the 7 before hold only the 11th and 12th: 430 / 2 = 215. -8.3% is within the 10% band.
            # (10000 - 1790) / (1380 / 7) = 41.6 -> 42 days
            ("exp_ab", 2, d(11), d(19), 9, 1790, 1380 / 7, 215.0, (1380 / 7 - 215) / 215, "flat", 10000, 42, d(19), 1, False, 1),
            # one day only: 440 a day, (10000 - 440) / 440 = 21.7 -> 22
            ("exp_four", 4, d(19), d(19), 1, 440, 440.0, None, None, None, 10000, 22, d(19), 1, False, 0),
            # 700 then 1100 new: 900 a day, 8200 / 900 = 9.1 -> 10
            ("exp_skewed", 2, d(18), d(19), 2, 1800, 900.0, None, None, None, 10000, 10, d(19), 1, False, 0),
            # 50, 31, 0: 27 a day; 9919 / 27 = 367.4 -> 368; last growth on the 18th, 2 days before the 20th
            ("exp_solo", 1, d(17), d(19), 3, 81, 27.0, None, None, None, 10000, 368, d(18), 2, False, 0),
            # 30 a day until the 15th, then nothing: last 7 days 90 / 7, the 3 before 90 / 3 = 30;
            # 9820 / (90 / 7) = 763.8 -> 764; 5 days without growth >= 3: stalled
            ("exp_stalled", 3, d(10), d(19), 10, 180, 90 / 7, 30.0, (90 / 7 - 30) / 30, "down", 10000, 764, d(15), 5, True, 0),
        ],
    )


def test_exposure_growth_parameters(writable_db):
    apply_views(writable_db, parameters={"target_sample_size": 1000, "stall_days": 2})
    rows = query(
        writable_db,
        "select experiment_id, days_to_target, is_stalled from analytics.exposure_growth order by experiment_id",
    )
    # exp_solo: (1000 - 81) / 27 = 34.04 -> 35; 2 days without growth now stalls
    assert rows == [
        ("exp_ab", 0, False),
        ("exp_four", 2, False),
        ("exp_skewed", 0, False),
        ("exp_solo", 35, True),
        ("exp_stalled", 64, True),
    ]


def test_exposure_srm(console_db):
    rows = query(
        console_db,
        """
        select experiment_id, group_count, total_exposures, expected_split, chi_square, degrees_of_freedom,
               chi_square_p_value, srm_detected, most_deviating_group_id, most_deviating_observed_share,
               most_deviating_expected_share
        from analytics.exposure_srm order by experiment_id
        """,
    )
    assert_rows(
        rows,
        [
            # 900 vs 890 against 895 each: (25 + 25) / 895; a tie in deviation goes to the first group id
            ("exp_ab", 2, 1790, "even", 50 / 895, 1, 0.8131535420563131, False, "control", 900 / 1790, 0.5),
            # 100, 120, 90, 130 against 110: (100 + 100 + 400 + 400) / 110
            ("exp_four", 4, 440, "even", 1000 / 110, 3, 0.0281063028569554, False, "g4", 130 / 440, 0.25),
            # 1000 vs 800 against 900: 20000 / 900, one-look p = 2.4e-6 < 0.001; the sequential test, valid however
            # often it is read, has seen 400:300 then 1000:800 and is not yet sure (test_exposure_srm_is_sequential)
            ("exp_skewed", 2, 1800, "even", 20000 / 900, 1, 2.4284674729758432e-06, False, "a", 1000 / 1800, 0.5),
            # one group: nothing to test
            ("exp_solo", 1, 81, "even", 0.0, 0, None, False, "all", 1.0, 1.0),
            # 60, 62, 58 against 60: 8 / 60
            ("exp_stalled", 3, 180, "even", 8 / 60, 2, 0.9355069850316178, False, "y", 62 / 180, 1 / 3),
        ],
        rel=1e-6,
    )


def test_exposure_srm_is_sequential(console_db):
    # the verdict is the sequential test's, on the series day by day (bench/srm.py's reference, 50-digit decimals)
    from bench.srm import reference_p_values

    [(test, p_value, first_detected)] = query(
        console_db, "select srm_test, p_value, first_detected_on from analytics.exposure_srm where experiment_id = 'exp_skewed'"
    )
    assert test == "sequential" and first_detected is None
    assert p_value == pytest.approx(reference_p_values([[400, 300], [1000, 800]], (0.5, 0.5), 1000)[-1], rel=1e-9)


def test_exposure_srm_with_configured_weights(writable_db):
    with duckdb.connect(str(writable_db)) as connection:
        # exp_skewed at 5:4 matches 1000:800 exactly; exp_ab has a weight for one group only: even split
        connection.execute(
            "insert into analytics.srm_expected_weights values ('exp_skewed', 'a', 5), ('exp_skewed', 'b', 4), ('exp_ab',"
            " 'control', 2)"
        )
    rows = query(
        writable_db,
        "select experiment_id, expected_split, chi_square, chi_square_p_value, srm_detected, most_deviating_expected_share "
        "from analytics.exposure_srm where experiment_id in ('exp_ab', 'exp_skewed') order by 1",
    )
    assert_rows(
        rows,
        [("exp_ab", "even", 50 / 895, 0.8131535420563131, False, 0.5), ("exp_skewed", "configured", 0.0, 1.0, False, 5 / 9)],
        rel=1e-6,
    )


@pytest.mark.parametrize(
    "counts, chi_square, expected_p_value",
    [
        # chi-square and scipy.stats.chi2.sf(chi_square, len(counts) - 1), even split
        ([100, 120, 90, 130, 60], 30.0, 4.894437128029217e-06),
        ([50, 60, 70, 40, 50, 30], 20.0, 0.0012497305630313773),
        ([10, 20, 10, 20, 10, 20, 15], 10.0, 0.12465201948308108),
        ([100] * 7 + [200], 8750 / 112.5, 3.906964615527029e-14),
        ([100000, 50000], 50000 / 3, 0.0),
    ],
)
def test_srm_p_value_for_more_groups(tmp_path, counts, chi_square, expected_p_value):
    database = tmp_path / "srm.duckdb"
    with duckdb.connect(str(database)) as connection:
        # raw rows in the loaded table's shape are enough for the statistics
        connection.execute("create schema console")
        # a dataset is a console's once it records an extraction
        connection.execute("create table console.extraction_runs (extraction_id varchar)")
        connection.execute(
            "create table console.cumulative_exposures (experiment_id varchar, group_id varchar, group_name varchar, date"
            " varchar, exposures bigint)"
        )
        connection.executemany(
            "insert into console.cumulative_exposures values ('e', ?, ?, '2026-11-19', ?)",
            [(f"g{i}", f"G{i}", count) for i, count in enumerate(counts)],
        )
    apply_views(database)
    [(chi, df, p_value)] = query(
        database, "select chi_square, degrees_of_freedom, chi_square_p_value from analytics.exposure_srm"
    )
    assert chi == pytest.approx(chi_square, rel=1e-9)
    assert df == len(counts) - 1
    assert p_value == pytest.approx(expected_p_value, rel=1e-6, abs=1e-300)


def test_a_concluded_experiment_is_not_stalled(writable_db):
    # A series that ended on the 12th, eight days before the as-of day (the 20th): concluded, not stalled.
    add_series(writable_db, {"exp_done": [("11", 40), ("12", 70)]})
    rows = query(
        writable_db,
        "select experiment_id, total_exposures, days_without_growth, is_stalled, is_concluded, days_to_target"
        " from analytics.exposure_growth where experiment_id in ('exp_done', 'exp_stalled') order by experiment_id",
    )
    assert rows == [("exp_done", 70, 8, False, True, None), ("exp_stalled", 180, 5, True, False, 764)]


def add_series(database, series: dict[str, list[tuple[str, int]]]) -> None:
    """One-group series: experiment -> [(day of November, cumulative count)], each followed by the last run."""
    with duckdb.connect(str(database)) as con:
        con.executemany(
            "insert into console.cumulative_exposures (experiment_id, group_id, group_name, date, exposures, _dlt_load_id,"
            " _dlt_id)"
            " values (?, 'g', 'All', ?, ?, 'x', ?)",
            [
                (experiment, f"2026-11-{day}", count, f"{experiment}-{day}")
                for experiment, points in series.items()
                for day, count in points
            ],
        )
        set_followed(con, [*FOLLOWED_EXPERIMENTS, *series])


def set_followed(con, experiment_ids: list[str], extraction_id: str = "extraction_2") -> None:
    """The experiments an extraction followed, as the source records them (a list nested in its row, and its length)."""
    [(row_id,)] = con.execute("select _dlt_id from console.extraction_runs where extraction_id = ?", [extraction_id]).fetchall()
    con.execute("delete from console.extraction_runs__followed_experiment_ids where _dlt_parent_id = ?", [row_id])
    con.executemany(
        "insert into console.extraction_runs__followed_experiment_ids (value, _dlt_parent_id, _dlt_list_idx, _dlt_id)"
        " values (?, ?, ?, ?)",
        [(experiment, row_id, position, f"{row_id}-{position}") for position, experiment in enumerate(experiment_ids)],
    )
    con.execute(
        "update console.extraction_runs set followed_experiment_count = ? where _dlt_id = ?", [len(experiment_ids), row_id]
    )


FOLLOWING = (
    "select experiment_id, status, is_followed, last_followed_date, is_stalled, is_concluded, days_to_target"
    " from analytics.exposure_growth order by experiment_id"
)


def test_an_experiment_the_last_run_did_not_follow_is_unfollowed_unless_a_holdout_names_it(writable_db):
    # the last run (the 20th) followed neither exp_stalled nor exp_ab (configured no more); exp_ab's holdout h_q3 still
    # names it (that run could not read the holdout): still followed. exp_stalled's series ends at the first run's day.
    with duckdb.connect(str(writable_db)) as con:
        set_followed(con, ["exp_solo", "exp_skewed", "exp_four"])
    assert query(writable_db, FOLLOWING) == [
        # followed through its holdout: the last run that listed it was the first
        ("exp_ab", "running", True, d(10), False, False, 42),
        ("exp_four", "running", True, d(20), False, False, 22),
        ("exp_skewed", "running", True, d(20), False, False, 10),
        ("exp_solo", "running", True, d(20), False, False, 368),
        # neither stalled nor concluded, and no pace to its target: it is no longer read
        ("exp_stalled", "unfollowed", False, d(10), False, False, None),
    ]
    assert query(writable_db, "select experiment_id from analytics.experiment_coverage where not is_followed") == [
        ("exp_stalled",)
    ]


@pytest.mark.parametrize("recorded", ["none", "count without its list"])
def test_runs_that_recorded_no_whole_list_of_what_they_followed_follow_every_experiment(writable_db, recorded):
    # a database loaded before runs recorded what they follow; or one whose nested list is gone: the views as before
    with duckdb.connect(str(writable_db)) as con:
        con.execute("drop table console.extraction_runs__followed_experiment_ids")
        if recorded == "none":
            con.execute("alter table console.extraction_runs drop column followed_experiment_count")
    apply_views(writable_db)
    assert query(writable_db, FOLLOWING) == [
        ("exp_ab", "running", True, None, False, False, 42),
        ("exp_four", "running", True, None, False, False, 22),
        ("exp_skewed", "running", True, None, False, False, 10),
        ("exp_solo", "running", True, None, False, False, 368),
        ("exp_stalled", "stalled", True, None, True, False, 764),
    ]


GROWTH_STATUS = (
    "select experiment_id, last_date, lag_days, days_without_growth, is_late, is_stalled, is_concluded, status,"
    " days_to_target is null from analytics.exposure_growth order by experiment_id"
)


def later_service_time(database, days: int) -> None:
    """The last extraction read the service's clock `days` later: the as-of day moves, the series do not."""
    with duckdb.connect(str(database)) as con:
        con.execute(f"update console.extraction_runs set service_time = service_time + interval {days} day")


GROWTH_STATUSES = [
    pytest.param(
        # As of the 20th the service has computed the 19th for the others: a series ending on the 17th
        # ended (it is not late), even within `late_days`.
        {"exp_ended": [("16", 10), ("17", 20)]},
        0,
        [
            ("exp_ab", d(19), 1, 1, False, False, False, "running", False),
            ("exp_ended", d(17), 3, 3, False, False, True, "concluded", True),
            ("exp_four", d(19), 1, 1, False, False, False, "running", False),
            ("exp_skewed", d(19), 1, 1, False, False, False, "running", False),
            ("exp_solo", d(19), 1, 2, False, False, False, "running", False),
            ("exp_stalled", d(19), 1, 5, False, True, False, "stalled", False),
        ],
        id="a series that ends while the service computes every day has concluded",
    ),
    pytest.param(
        # As of the 22nd the service has computed nothing after the 19th: every series that reaches the 19th
        # (3 days behind) is late. Its unknown days are not days without exposures: exp_solo (growth last
        # on the 18th) is not stalled, exp_stalled (nothing since the 15th) still is, by its computed days.
        {
            # the 18th is one day before the newest computed day: as current as the computation
            "exp_late_18": [("17", 5), ("18", 9)],
            # through the 17th: 5 days behind, more than late_days (4): concluded
            "exp_silent_5": [("16", 5), ("17", 9)],
        },
        2,
        [
            ("exp_ab", d(19), 3, 3, True, False, False, "late", False),
            ("exp_four", d(19), 3, 3, True, False, False, "late", False),
            ("exp_late_18", d(18), 4, 4, True, False, False, "late", False),
            ("exp_silent_5", d(17), 5, 5, False, False, True, "concluded", True),
            ("exp_skewed", d(19), 3, 3, True, False, False, "late", False),
            ("exp_solo", d(19), 3, 4, True, False, False, "late", False),
            ("exp_stalled", d(19), 3, 7, True, True, False, "stalled", False),
        ],
        id="a late computation is late, not stalled nor concluded",
    ),
]


@pytest.mark.parametrize(("series", "days_later", "expected"), GROWTH_STATUSES)
def test_growth_status_of_series_that_end_or_are_computed_late(writable_db, series, days_later, expected):
    add_series(writable_db, series)
    later_service_time(writable_db, days_later)
    assert query(writable_db, GROWTH_STATUS) == expected


@pytest.mark.parametrize(
    ("late_days", "statuses"),
    [
        # every series four days behind: late (exp_stalled's computed days show its stall)
        (4, ["late", "late", "late", "late", "stalled"]),
        (3, ["concluded"] * 5),
    ],
)
def test_late_days_is_a_view_parameter(writable_db, late_days, statuses):
    later_service_time(writable_db, 3)
    apply_views(writable_db, parameters={"late_days": late_days})
    rows = query(writable_db, "select experiment_id, lag_days, status from analytics.exposure_growth order by 1")
    experiments = ["exp_ab", "exp_four", "exp_skewed", "exp_solo", "exp_stalled"]
    assert rows == [(experiment, 4, status) for experiment, status in zip(experiments, statuses)]


def test_the_consoles_current_day_is_partial_and_left_out_of_the_pace(writable_db):
    # The 20th is the as-of day: its count still grows. The pace is that of the whole days up to the 19th.
    add_series(writable_db, {"exp_today": [("18", 100), ("19", 300), ("20", 350)]})
    daily = query(
        writable_db,
        "select exposure_date, new_exposures, is_partial_day from analytics.exposure_daily"
        " where experiment_id = 'exp_today' order by exposure_date",
    )
    assert daily == [(d(18), 100, False), (d(19), 200, False), (d(20), 50, True)]
    growth = query(
        writable_db,
        "select total_exposures, pace_through_date, avg_daily_exposures_7d, status"
        " from analytics.exposure_growth where experiment_id = 'exp_today'",
    )
    assert growth == [(350, d(19), 150.0, "running")]
    # a series whose only day is the current one has no pace yet, rather than a partial day's
    add_series(writable_db, {"exp_new": [("20", 40)]})
    assert query(
        writable_db,
        "select total_exposures, pace_through_date, avg_daily_exposures_7d, days_to_target"
        " from analytics.exposure_growth where experiment_id = 'exp_new'",
    ) == [(40, None, None, None)]


def test_experiment_coverage_lists_what_a_holdout_names_with_or_without_exposures(writable_db):
    with duckdb.connect(str(writable_db)) as connection:
        # h_q3 names one more experiment, whose exposures never loaded
        connection.execute(
            "insert into console.holdouts__experiment_i_ds select 'exp_gone', _dlt_root_id, _dlt_parent_id, 1,"
            " 'gone-row' from console.holdouts__experiment_i_ds where value = 'exp_ab'"
        )
    rows = query(writable_db, "select * from analytics.experiment_coverage order by experiment_id")
    # every one followed (is_followed): exp_gone because its holdout names it
    assert rows == [
        ("default", "exp_ab", "h_q3", True, d(11), d(19), True),
        ("default", "exp_four", None, True, d(19), d(19), True),
        ("default", "exp_gone", "h_q3", False, None, None, True),
        ("default", "exp_skewed", None, True, d(18), d(19), True),
        ("default", "exp_solo", None, True, d(17), d(19), True),
        ("default", "exp_stalled", None, True, d(10), d(19), True),
    ]
