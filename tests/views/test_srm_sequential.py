"""The sequential sample-ratio test (`exposure_srm_daily`, `exposure_srm`) in SQL on DuckDB and a real PostgreSQL
server, equal to the Python reference (bench/srm.py, 50-digit decimals) to 1e-9 relative on every simulated
experiment and day; a mismatch once detected stays detected; a new group restarts the test from its first day."""

from __future__ import annotations

import math
import random
from datetime import date, timedelta

import duckdb
import pytest

from bench.srm import Experiment, experiments, load, reference_log_bayes_factor, reference_p_values, view_sql
from gatehouse.pipelines.models.build import translate

CONCENTRATION = 1000.0
DAYS = 14


def cohort() -> tuple[list[Experiment], random.Random]:
    rng = random.Random(7)
    chosen = experiments(6, 4, rng)
    # planned unequal splits too, given as weights
    chosen.append(Experiment("weighted", (0.2, 0.3, 0.5), (0.2, 0.3, 0.5), 3000, "healthy"))
    chosen.append(Experiment("weighted_off", (0.1, 0.9), (0.12, 0.88), 8000, "mismatch"))
    return chosen, rng


def loaded(connection: duckdb.DuckDBPyConnection) -> list[Experiment]:
    chosen, rng = cohort()
    load(connection, chosen, DAYS, rng, alpha=0.001, concentration=CONCENTRATION)
    for experiment in chosen:
        if experiment.expected != tuple([1.0 / len(experiment.expected)] * len(experiment.expected)):
            connection.executemany(
                "insert into analytics.srm_expected_weights values (?, ?, ?)",
                [(experiment.experiment_id, f"g{group}", weight * 10) for group, weight in enumerate(experiment.expected)],
            )
    return chosen


def expected_rows(connection: duckdb.DuckDBPyConnection, chosen: list[Experiment]) -> dict[tuple[str, date], tuple[float, float]]:
    """(experiment, day) -> (ln BF, sequential p-value) by the reference, from the counts the table holds."""
    out = {}
    for experiment in chosen:
        rows = connection.execute(
            "select exposure_date, list(cumulative_exposures order by group_id)"
            " from analytics.exposure_daily where experiment_id = ? group by 1 order by 1",
            [experiment.experiment_id],
        ).fetchall()
        days = [counts for _, counts in rows]
        p_values = reference_p_values(days, experiment.expected, CONCENTRATION)
        for (day, counts), p_value in zip(rows, p_values):
            out[(experiment.experiment_id, day)] = (
                reference_log_bayes_factor(counts, experiment.expected, CONCENTRATION),
                p_value,
            )
    return out


def assert_close(actual: float, expected: float, what: str) -> None:
    assert math.isclose(actual, expected, rel_tol=1e-9, abs_tol=1e-12), f"{what}: {actual!r} != {expected!r}"


def compare(rows: list[tuple], expected: dict) -> None:
    assert {(experiment, day) for experiment, day, _, _ in rows} == set(expected)
    for experiment, day, log_bayes_factor, p_value in rows:
        reference_log_bf, reference_p = expected[(experiment, day)]
        assert_close(log_bayes_factor, reference_log_bf, f"ln BF of {experiment} on {day}")
        assert_close(p_value, reference_p, f"p-value of {experiment} on {day}")


DAILY = "select experiment_id, test_date, log_bayes_factor, sequential_p_value from daily"


def test_duckdb_equals_the_reference_on_every_experiment_and_day():
    with duckdb.connect() as connection:
        chosen = loaded(connection)
        rows = connection.execute(f"with daily as ({view_sql('exposure_srm_daily')}) {DAILY}").fetchall()
        compare(rows, expected_rows(connection, chosen))


def test_postgres_equals_the_reference_on_every_experiment_and_day(postgres_server):
    import psycopg2

    credentials = postgres_server.database("srm_sequential")
    with duckdb.connect() as connection:
        chosen = loaded(connection)
        expected = expected_rows(connection, chosen)
        tables = {
            name: connection.execute(f"select * from analytics.{name}").fetchall()
            for name in ("exposure_daily", "srm_expected_weights", "view_parameters")
        }
    query, shares = (
        translate(sql, "postgres", what="srm", transform=lambda node: node)
        for sql in (f"with daily as ({view_sql('exposure_srm_daily')}) {DAILY}", view_sql("exposure_srm_expected_shares"))
    )
    with psycopg2.connect(credentials) as pg, pg.cursor() as cursor:
        cursor.execute("create schema analytics")
        cursor.execute(
            "create table analytics.exposure_daily (project text, experiment_id text, group_id text,"
            " group_name text, exposure_date date, cumulative_exposures bigint, new_exposures bigint,"
            " is_partial_day boolean, is_cumulative_drop boolean)"
        )
        cursor.execute("create table analytics.srm_expected_weights (experiment_id text, group_id text, weight double precision)")
        cursor.execute("create table analytics.view_parameters (name text, value double precision)")
        for name, rows in tables.items():
            if rows:
                marks = ", ".join(["%s"] * len(rows[0]))
                cursor.executemany(f"insert into analytics.{name} values ({marks})", rows)
        cursor.execute(f"create view analytics.exposure_srm_expected_shares as {shares}")
        cursor.execute(query)
        compare(cursor.fetchall(), expected)


def test_a_mismatch_once_detected_stays_detected_and_the_verdict_is_the_sequential_one():
    with duckdb.connect() as connection:
        loaded(connection)
        flips = connection.execute(
            f"with daily as ({view_sql('exposure_srm_daily')}) select experiment_id, test_date, srm_detected,"
            " lag(srm_detected) over (partition by experiment_id order by test_date) from daily"
        ).fetchall()
        assert not [row for row in flips if row[3] and not row[2]], "a detected mismatch was undetected later"
        assert any(row[2] for row in flips)
        connection.execute(f"create table analytics.exposure_srm_daily as {view_sql('exposure_srm_daily')}")
        verdicts = dict(
            connection.execute(f"with srm as ({view_sql('exposure_srm')}) select experiment_id, srm_detected from srm").fetchall()
        )
        detected = {experiment for experiment, _, detected, _ in flips if detected}
        assert {experiment for experiment, flagged in verdicts.items() if flagged} == detected
        assert connection.execute(f"with srm as ({view_sql('exposure_srm')}) select distinct srm_test from srm").fetchall() == [
            ("sequential",)
        ]


def test_a_new_group_restarts_the_test_from_the_day_it_appeared():
    with duckdb.connect() as connection:
        rng = random.Random(3)
        two = Experiment("grows", (0.5, 0.5), (0.5, 0.5), 4000, "healthy")
        load(connection, [two], DAYS, rng, alpha=0.001, concentration=CONCENTRATION)
        start = date(2026, 1, 5) + timedelta(days=5)
        third = [
            ("sim", "grows", "g2", "g2", start + timedelta(days=day), 1300 * (day + 1), 1300, False, False)
            for day in range(DAYS - 5)
        ]
        connection.executemany("insert into analytics.exposure_daily values (?, ?, ?, ?, ?, ?, ?, ?, ?)", third)
        rows = connection.execute(
            f"with daily as ({view_sql('exposure_srm_daily')}) select test_started_on, restarted, min(test_date),"
            " count(*), max(group_count) from daily group by all"
        ).fetchall()
        assert rows == [(start, True, start, DAYS - 5, 3)]
        # counted from the day it started: the two first groups' counts before it do not weigh in
        before = dict(
            connection.execute(
                "select group_id, cumulative_exposures from analytics.exposure_daily where exposure_date = ?",
                [start - timedelta(days=1)],
            ).fetchall()
        )
        first_day = dict(
            connection.execute(
                "select group_id, cumulative_exposures from analytics.exposure_daily where exposure_date = ?", [start]
            ).fetchall()
        )
        counts = [first_day[g] - before.get(g, 0) for g in ("g0", "g1", "g2")]
        [(log_bf,)] = connection.execute(
            f"with daily as ({view_sql('exposure_srm_daily')}) select log_bayes_factor from daily where test_date = ?", [start]
        ).fetchall()
        assert_close(log_bf, reference_log_bayes_factor(counts, (1 / 3, 1 / 3, 1 / 3), CONCENTRATION), "restarted ln BF")


@pytest.mark.parametrize("z", [0.37, 1.0, 2.5, 7.999, 8.0, 12.5, 1000.0, 1.5e6])
def test_the_log_gamma_macro_equals_pythons(z):
    # the macro the test is written with, on its own: math.lgamma is C's, an independent implementation
    with duckdb.connect() as connection:
        connection.execute("create table t as select ? as z", [z])
        import importlib.resources as resources

        from gatehouse.pipelines.models.graph import _Renderer  # noqa: PLC0415 - the models' own renderer

        renderer = _Renderer(resources.files("gatehouse.pipelines.models"))
        template = renderer.environment.from_string(
            "{% from 'macros/log_gamma.sql' import log_gamma %}select {{ log_gamma('z') }} from t"
        )
        [(value,)] = connection.execute(template.render()).fetchall()
    assert math.isclose(value, math.lgamma(z), rel_tol=1e-11, abs_tol=1e-11)  # the series is cut below 7e-12


def test_thirty_daily_runs_alert_each_experiment_once_while_the_one_look_test_flips(tmp_path):
    # 30 daily runs, each seeing the days up to it; mismatches that come and go (52/48 for a week, then even) and
    # healthy experiments near the threshold: the sequential verdict never goes back, so an experiment becomes
    # news at most once per test, where the one-look chi-square crossed back and forth
    rng = random.Random(11)
    drifting = [Experiment(f"drift_{i}", (0.5, 0.5), (0.52, 0.48), 3000, "drift") for i in range(8)]
    with duckdb.connect() as connection:
        load(connection, drifting + experiments(40, 0, rng), 30, rng, alpha=0.05, concentration=CONCENTRATION)
        # from day 8 on, the drifting ones split evenly: each group's count grows alike again
        connection.execute("""
            update analytics.exposure_daily as d set cumulative_exposures = base.cumulative_exposures
                + (d.exposure_date - base.exposure_date) * 1500
            from analytics.exposure_daily as base
            where d.experiment_id like 'drift_%' and base.experiment_id = d.experiment_id and base.group_id = d.group_id
                and base.exposure_date = date '2026-01-12' and d.exposure_date > date '2026-01-12'""")
        connection.execute("create temp table all_days as select * from analytics.exposure_daily")
        news: dict[str, dict[str, int]] = {"sequential": {}, "chi-square": {}}
        flagged_before: dict[str, set[str]] = {"sequential": set(), "chi-square": set()}
        for day in range(30):
            connection.execute("delete from analytics.exposure_daily")
            connection.execute(
                "insert into analytics.exposure_daily select * from all_days where exposure_date <= date '2026-01-05' + ?", [day]
            )
            connection.execute(f"create or replace table analytics.exposure_srm_daily as {view_sql('exposure_srm_daily')}")
            rows = connection.execute(
                f"with srm as ({view_sql('exposure_srm')}) select experiment_id, srm_detected,"
                " chi_square_p_value < p_value_threshold from srm"
            ).fetchall()
            for test, flagged in (("sequential", {e for e, s, _ in rows if s}), ("chi-square", {e for e, _, c in rows if c})):
                for experiment in flagged - flagged_before[test]:  # a condition the ledger has not seen: news
                    news[test][experiment] = news[test].get(experiment, 0) + 1
                flagged_before[test] = flagged
    assert news["sequential"] and max(news["sequential"].values()) == 1, news["sequential"]
    assert {e for e in news["sequential"] if e.startswith("drift_")} == {f"drift_{i}" for i in range(8)}
    assert max(news["chi-square"].values()) > 1, "the one-look test, read daily, alerted some experiment again"
