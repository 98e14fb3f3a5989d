"""The experiment health checks, calibrated as they are used: read every day.

Simulated experiments (2 and 3 groups, 500 to 20,000 units a day with a weekly cycle) are checked daily by
gatehouse's own SQL on DuckDB: `analytics.exposure_srm_daily` (the sequential test, at several prior
concentrations), the one-look chi-square of `analytics.exposure_srm` recomputed each day as the views did before
the sequential test, and `analytics.experiment_health` (not enough data, stall, dip, running long, late) each
morning. Healthy experiments give the share ever flagged within 30, 60 and 90 days at α = 0.05, 0.01 and 0.001,
with its binomial (Wilson) interval; mismatched ones (51/49 and 52/48) the share caught and the median day of the
first alert, beside the daily chi-square's; an outage cohort what the dip check catches. The tables go to
bench/RESULTS.md.

`reference_log_bayes_factor` is an independent reference of the test's statistic in Python: the log-gammas in
50-digit decimals by Stirling's series to z^-19, against which the tests hold the SQL to 1e-9 relative.

    python -m bench.srm [--healthy 1000] [--mismatched 200] [--outages 200] [--days 90] [--no-write]
"""

from __future__ import annotations

import argparse
import logging
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal, localcontext

import duckdb
import numpy as np
import pandas as pd

from bench.results_md import SRM_SECTION, publish
from gatehouse.pipelines.models import graph
from gatehouse.pipelines.models.build import DEFAULT_PARAMETERS

log = logging.getLogger("bench.srm")

# Bernoulli numbers B2..B20, for Stirling's series of ln Γ
_BERNOULLI = [
    Decimal(1) / 6,
    Decimal(-1) / 30,
    Decimal(1) / 42,
    Decimal(-1) / 30,
    Decimal(5) / 66,
    Decimal(-691) / 2730,
    Decimal(7) / 6,
    Decimal(-3617) / 510,
    Decimal(43867) / 798,
    Decimal(-174611) / 330,
]
_PRECISION = 50


def _log_gamma(z: Decimal) -> Decimal:
    """ln Γ(z) for z > 0 in decimals: Γ's recurrence up to z ≥ 30, then Stirling's series to the z^-19 term."""
    shift = Decimal(0)
    while z < 30:
        shift += z.ln()
        z += 1
    series = sum((b / (Decimal(2 * k) * Decimal(2 * k - 1) * z ** (2 * k - 1)) for k, b in enumerate(_BERNOULLI, 1)), Decimal(0))
    half_log_two_pi = (Decimal(2) * Decimal("3.14159265358979323846264338327950288419716939937510")).ln() / 2
    return (z - Decimal("0.5")) * z.ln() - z + half_log_two_pi + series - shift


def reference_log_bayes_factor(counts: Sequence[int], shares: Sequence[float], concentration: float) -> float:
    """ln BF of counts `counts` (since the test started) against the split `shares`, with a Dirichlet prior of
    concentration `concentration` times the shares (Lindon & Malek): ln B(α + x) − ln B(α) − Σ xᵢ ln θᵢ."""
    with localcontext() as context:
        context.prec = _PRECISION
        total_share = sum(Decimal(repr(share)) for share in shares)
        thetas = [Decimal(repr(share)) / total_share for share in shares]
        c = Decimal(repr(float(concentration)))
        alphas = [c * theta for theta in thetas]
        n = sum(counts)
        value = _log_gamma(c) - _log_gamma(c + n)
        for alpha, theta, x in zip(alphas, thetas, counts):
            value += _log_gamma(alpha + x) - _log_gamma(alpha) - x * theta.ln()
        return float(value)


def reference_p_values(days: Sequence[Sequence[int]], shares: Sequence[float], concentration: float) -> list[float]:
    """The sequential p-value of each day: min(1, exp(−max ln BF so far))."""
    best, out = -math.inf, []
    for counts in days:
        best = max(best, reference_log_bayes_factor(counts, shares, concentration))
        out.append(1.0 if best <= 0 else math.exp(-best))
    return out


# -- simulated experiments ----------------------------------------------------------------------------------------

# A week's traffic, Monday first: weekends lower, as consumer products see.
WEEKLY_CYCLE = (1.0, 1.05, 1.05, 1.0, 0.95, 0.7, 0.65)
START = date(2026, 1, 5)  # a Monday, the cycle's first day
PROJECT = "sim"
# The prior concentrations the bench compares; the views' default is build.DEFAULT_PARAMETERS'.
CONCENTRATIONS = (100.0, 300.0, 1000.0, 3000.0, 10000.0)
# An outage: the day's traffic falls to this share (the cohort that shows the dip check finds what it should).
OUTAGE_SHARE = 0.3


@dataclass(frozen=True)
class Experiment:
    experiment_id: str
    expected: tuple[float, ...]  # the planned split
    true: tuple[float, ...]  # the split units are really assigned by
    daily_units: int
    label: str  # healthy, 51/49, 52/48, outage
    outage_day: int | None = None  # 0-based day whose traffic falls to OUTAGE_SHARE

    def cumulative(self, days: int, rng: random.Random) -> list[list[int]]:
        """Each day's cumulative count per group: the day's units (the weekly cycle, ±10% noise) split at random."""
        totals, out = [0] * len(self.true), []
        for day in range(days):
            units = self.daily_units * WEEKLY_CYCLE[day % 7] * rng.uniform(0.9, 1.1)
            units = max(1, round(units * (OUTAGE_SHARE if day == self.outage_day else 1.0)))
            for group, count in enumerate(_multinomial(rng, units, self.true)):
                totals[group] += count
            out.append(list(totals))
        return out


def _multinomial(rng: random.Random, units: int, shares: Sequence[float]) -> list[int]:
    """Counts of `units` split by `shares`: binomials in turn, each by its normal approximation (units ≥ 500)."""
    counts, left, rest = [], units, 1.0
    for share in shares[:-1]:
        p = min(1.0, share / rest)
        mean, sd = left * p, math.sqrt(left * p * (1 - p))
        count = min(left, max(0, round(rng.gauss(mean, sd))))
        counts.append(count)
        left -= count
        rest -= share
    return [*counts, left]


def experiments(healthy: int, mismatched: int, rng: random.Random, outages: int = 0, days: int = 90) -> list[Experiment]:
    out = []
    for index in range(healthy):
        groups = 2 if index % 2 == 0 else 3
        split = tuple([1.0 / groups] * groups)
        out.append(Experiment(f"aa_{index:05d}", split, split, rng.randint(500, 20000), "healthy"))
    for index in range(mismatched):
        label = "51/49" if index % 2 == 0 else "52/48"
        true = (0.51, 0.49) if label == "51/49" else (0.52, 0.48)
        out.append(Experiment(f"mm_{index:05d}", (0.5, 0.5), true, rng.randint(500, 20000), label))
    for index in range(outages):
        # after the dip check's first week of baseline, anywhere in the horizon
        out.append(
            Experiment(
                f"out_{index:05d}",
                (0.5, 0.5),
                (0.5, 0.5),
                rng.randint(500, 20000),
                "outage",
                outage_day=rng.randint(8, max(8, days - 1)),
            )
        )
    return out


def load(
    connection: duckdb.DuckDBPyConnection,
    cohort: Sequence[Experiment],
    days: int,
    rng: random.Random,
    alpha: float,
    concentration: float,
) -> None:
    """`analytics.exposure_daily` of the cohort (the columns the experiment views read, every day whole), the
    parameter tables with the views' defaults, and the expected split (`exposure_srm_expected_shares`)."""
    connection.execute("create schema if not exists analytics")
    connection.execute(
        "create or replace table analytics.exposure_daily (project varchar, experiment_id varchar,"
        " group_id varchar, group_name varchar, exposure_date date, cumulative_exposures bigint,"
        " new_exposures bigint, is_partial_day boolean, is_cumulative_drop boolean)"
    )
    connection.execute(
        "create or replace table analytics.srm_expected_weights (experiment_id varchar, group_id varchar, weight double)"
    )
    connection.execute("create or replace table analytics.view_parameters (name varchar, value double)")
    parameters = {name: value for name, (value, _) in DEFAULT_PARAMETERS.items()}
    parameters.update(srm_p_value_threshold=alpha, srm_prior_concentration=concentration)
    connection.executemany("insert into analytics.view_parameters values (?, ?)", list(parameters.items()))
    experiment_ids, groups, day_numbers, counts = [], [], [], []
    for experiment in cohort:
        for day, cumulative in enumerate(experiment.cumulative(days, rng)):
            for group, count in enumerate(cumulative):
                experiment_ids.append(experiment.experiment_id)
                groups.append(f"g{group}")
                day_numbers.append(day)
                counts.append(count)
    loaded = pd.DataFrame(
        {"experiment_id": experiment_ids, "group_id": groups, "day": day_numbers, "cumulative_exposures": counts}
    )
    connection.register("loaded", loaded)
    connection.execute(
        "insert into analytics.exposure_daily select ?, experiment_id, group_id, group_id, ? + cast(day as integer),"
        " cumulative_exposures, cumulative_exposures - coalesce(lag(cumulative_exposures) over"
        " (partition by experiment_id, group_id order by day), 0), false, false from loaded",
        [PROJECT, START],
    )
    connection.unregister("loaded")
    connection.execute(
        f"create or replace view analytics.exposure_srm_expected_shares as {view_sql('exposure_srm_expected_shares')}"
    )


def set_parameter(connection: duckdb.DuckDBPyConnection, name: str, value: float) -> None:
    connection.execute("update analytics.view_parameters set value = ? where name = ?", [value, name])


def view_sql(name: str) -> str:
    [definition] = [d for d in graph.view_definitions() if d.name == name]
    return definition.sql


def sequential_p_values(connection: duckdb.DuckDBPyConnection, concentration: float, days: int) -> dict[str, np.ndarray]:
    """By experiment: the sequential p-value of each test day (`exposure_srm_daily`) at prior concentration
    `concentration`; every simulated test starts on the experiment's first day."""
    set_parameter(connection, "srm_prior_concentration", concentration)
    rows = connection.execute(
        f"with daily as ({view_sql('exposure_srm_daily')}) select experiment_id,"
        " list(sequential_p_value order by test_date) from daily group by experiment_id"
    ).fetchall()
    assert all(len(p_values) == days for _, p_values in rows)
    return {experiment_id: np.array(p_values) for experiment_id, p_values in rows}


HEALTH_CHECKS = ("data_check", "stall_check", "dip_check", "duration_check", "late_check")


@dataclass
class DailyRuns:
    """What each day's run read, by experiment: the one-look chi-square p-value (`exposure_srm`) and the verdict of
    each of `experiment_health`'s checks, a list a day."""

    chi_square: dict[str, np.ndarray]
    verdicts: dict[str, dict[str, list[str]]]


def checked_daily(connection: duckdb.DuckDBPyConnection, days: int) -> DailyRuns:
    """Every day's run, as a schedule reads the views: the exposures up to that day, the console's day the next (so
    each day read is whole), `exposure_srm` and `experiment_health` as views over them."""
    connection.execute("alter table analytics.exposure_daily rename to simulated_days")
    connection.execute("create table analytics.bench_clock (through date)")
    connection.execute("insert into analytics.bench_clock values (?)", [START])
    connection.execute(
        "create view analytics.exposure_daily as select * from analytics.simulated_days"
        " where exposure_date <= (select through from analytics.bench_clock)"
    )
    connection.execute(
        f"create view analytics.as_of as select '{PROJECT}' as project, through + 1 as as_of_date from analytics.bench_clock"
    )
    connection.execute(
        "create table analytics.int_followed_experiments (project varchar, experiment_id varchar,"
        " is_followed boolean, last_followed_date date)"
    )
    # the sequential test is read whole by sequential_p_values; here exposure_srm gives the chi-square alone
    connection.execute(f"create table analytics.exposure_srm_daily as {view_sql('exposure_srm_daily')} limit 0")
    for name in ("exposure_srm", "exposure_growth", "experiment_health_daily", "experiment_health"):
        connection.execute(f"create view analytics.{name} as {view_sql(name)}")
    chi: dict[str, list[float]] = {}
    verdicts: dict[str, dict[str, list[str]]] = {}
    for day in range(days):
        connection.execute("update analytics.bench_clock set through = ?", [START + timedelta(days=day)])
        rows = connection.execute(
            f"select health.experiment_id, srm.chi_square_p_value, {', '.join(HEALTH_CHECKS)}"
            " from analytics.experiment_health as health inner join analytics.exposure_srm as srm"
            " on srm.project = health.project and srm.experiment_id = health.experiment_id"
        ).fetchall()
        for experiment_id, p_value, *checks in rows:
            chi.setdefault(experiment_id, []).append(p_value)
            mine = verdicts.setdefault(experiment_id, {check: [] for check in HEALTH_CHECKS})
            for check, verdict in zip(HEALTH_CHECKS, checks):
                mine[check].append(verdict)
    return DailyRuns({e: np.array(p) for e, p in chi.items()}, verdicts)


def first_days(p_values: dict[str, np.ndarray], members: Sequence[str], threshold: float, horizon: int) -> np.ndarray:
    """Each member's first day (1-based) with a p-value below `threshold` within `horizon` days; inf when none."""
    out = np.full(len(members), np.inf)
    for index, experiment_id in enumerate(members):
        below = np.flatnonzero(p_values[experiment_id][:horizon] < threshold)
        if below.size:
            out[index] = below[0] + 1
    return out


def wilson(successes: int, trials: int, z: float = 1.959963984540054) -> tuple[float, float]:
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


def median_day(first: np.ndarray) -> float:
    """The median first-alert day over every member, those never alerted counted as later than any (inf when half
    or more were never alerted): caught experiments alone would flatter a test that misses the slow ones."""
    return float(np.median(first)) if first.size else math.inf


# -- the measurement ------------------------------------------------------------------------------------------------

ALPHAS = (0.05, 0.01, 0.001)
HORIZONS = (30, 60, 90)
DEFAULT_CONCENTRATION = float(DEFAULT_PARAMETERS["srm_prior_concentration"][0])


@dataclass(frozen=True)
class Measured:
    days: int
    labels: dict[str, str]
    outage_days: dict[str, int]
    totals: dict[str, np.ndarray]  # all groups' cumulative exposures by day
    sequential: dict[float, dict[str, np.ndarray]]  # by prior concentration
    daily: DailyRuns

    def members(self, label: str) -> list[str]:
        return sorted(e for e, member in self.labels.items() if member == label)


def measure(healthy: int, mismatched: int, outages: int, days: int, seed: int = 52) -> Measured:
    rng = random.Random(seed)
    cohort = experiments(healthy, mismatched, rng, outages, days)
    with duckdb.connect() as connection:
        load(connection, cohort, days, rng, ALPHAS[0], DEFAULT_CONCENTRATION)
        totals = dict(
            connection.execute(
                "select experiment_id, list(total order by exposure_date) from (select experiment_id, exposure_date,"
                " sum(cumulative_exposures) as total from analytics.exposure_daily group by all) group by experiment_id"
            ).fetchall()
        )
        sequential = {}
        for concentration in CONCENTRATIONS:
            sequential[concentration] = sequential_p_values(connection, concentration, days)
            log.info("sequential test at prior concentration %g: read", concentration)
        set_parameter(connection, "srm_prior_concentration", DEFAULT_CONCENTRATION)
        daily = checked_daily(connection, days)
    return Measured(
        days,
        {e.experiment_id: e.label for e in cohort},
        {e.experiment_id: e.outage_day for e in cohort if e.outage_day is not None},
        {e: np.array(t) for e, t in totals.items()},
        sequential,
        daily,
    )


def _share(count: int, trials: int) -> str:
    low, high = wilson(count, trials)
    return f"{count / trials if trials else 0.0:.3f} ({low:.3f}–{high:.3f})"


def _day(value: float) -> str:
    return "–" if math.isinf(value) else f"{value:g}"


def srm_rows(measured: Measured) -> list[str]:
    """The calibration table: healthy experiments' share ever flagged, mismatched ones' share caught and median day."""
    sequential = measured.sequential[DEFAULT_CONCENTRATION]
    lines = []
    for alpha in ALPHAS:
        for label in ("healthy", "51/49", "52/48"):
            members = measured.members(label)
            for horizon in HORIZONS if label == "healthy" else (measured.days,):
                if horizon > measured.days or not members:
                    continue
                seq = first_days(sequential, members, alpha, horizon)
                chi = first_days(measured.daily.chi_square, members, alpha, horizon)
                held = first_days(measured.daily.chi_square, members, alpha / horizon, horizon)
                caught = [int(np.isfinite(first).sum()) for first in (seq, chi, held)]
                ratio = (
                    f"{median_day(seq) / median_day(chi):.1f}× / {median_day(seq) / median_day(held):.1f}×"
                    if label != "healthy" and np.isfinite(median_day(seq))
                    else ""
                )
                lines.append(
                    f"| {label} | {horizon} | {alpha:g} | {len(members)} | {caught[0]} | {_share(caught[0], len(members))}"
                    f" | {_day(median_day(seq))} | {caught[1]} | {caught[1] / len(members):.3f} | {_day(median_day(chi))}"
                    f" | {caught[2]} | {caught[2] / len(members):.3f} | {_day(median_day(held))} | {ratio} |"
                )
    return lines


def _exposures_at(measured: Measured, members: Sequence[str], first: np.ndarray) -> float:
    """The median of all groups' exposures on each member's first alert (inf for a member never alerted)."""
    reached = [measured.totals[e][int(day) - 1] if np.isfinite(day) else math.inf for e, day in zip(members, first)]
    return float(np.median(reached)) if reached else math.inf


def concentration_rows(measured: Measured) -> list[str]:
    """The prior's trade-off: false alarms (bounded whatever the prior) against the delay to catch each mismatch."""
    lines = []
    healthy = measured.members("healthy")
    for alpha in ALPHAS:
        chi = {
            label: first_days(measured.daily.chi_square, measured.members(label), alpha, measured.days)
            for label in ("51/49", "52/48")
        }
        for concentration in CONCENTRATIONS:
            p_values = measured.sequential[concentration]
            flagged = int(np.isfinite(first_days(p_values, healthy, alpha, measured.days)).sum())
            cells = []
            for label in ("51/49", "52/48"):
                members = measured.members(label)
                seq = first_days(p_values, members, alpha, measured.days)
                seq_n, chi_n = _exposures_at(measured, members, seq), _exposures_at(measured, members, chi[label])
                cells.append(
                    f"{_day(median_day(seq))} ({median_day(seq) / median_day(chi[label]):.1f}×) |"
                    f" {seq_n:,.0f} ({seq_n / chi_n:.1f}×)"
                )
            default = " (default)" if concentration == DEFAULT_CONCENTRATION else ""
            lines.append(f"| {concentration:,.0f}{default} | {alpha:g} | {_share(flagged, len(healthy))} | {' | '.join(cells)} |")
    return lines


def health_rows(measured: Measured) -> list[str]:
    """Each other check's false alarms on the healthy experiments (every day of each horizon read as a run would),
    and the dip check's catch on the outage cohort."""
    healthy = measured.members("healthy")
    verdicts = measured.daily.verdicts
    alarms = {"dip_check": "dip", "stall_check": "stalled", "late_check": "late", "duration_check": "running long"}
    lines = []
    for check, word in alarms.items():
        for horizon in HORIZONS:
            if horizon > measured.days:
                continue
            flagged = sum(word in verdicts[e][check][:horizon] for e in healthy)
            days = sum(verdicts[e][check][:horizon].count(word) for e in healthy)
            lines.append(
                f"| `{check}` = `{word}` | healthy | {horizon} | {len(healthy)} | {flagged} |"
                f" {_share(flagged, len(healthy))} | {days} of {len(healthy) * horizon} |"
            )
    waiting = [verdicts[e]["data_check"].count("not enough data") for e in healthy]
    if waiting:
        lines.append(
            f"| `data_check` = `not enough data` | healthy | {measured.days} | {len(healthy)} | {sum(w > 0 for w in waiting)} |"
            f" days without a verdict: {min(waiting)} to {max(waiting)} | {sum(waiting)} of {len(healthy) * measured.days} |"
        )
    outages = measured.members("outage")
    if outages:
        on_day = sum(verdicts[e]["dip_check"][measured.outage_days[e]] == "dip" for e in outages)
        elsewhere = sum(
            verdicts[e]["dip_check"][day] == "dip"
            for e in outages
            for day in range(measured.days)
            if day != measured.outage_days[e]
        )
        lines.append(
            f"| `dip_check` = `dip` on the outage day ({OUTAGE_SHARE:.0%} of the traffic) | outage | {measured.days} |"
            f" {len(outages)} | {on_day} | {_share(on_day, len(outages))} | other days flagged: {elsewhere} |"
        )
    return lines


def section(measured: Measured, healthy: int, mismatched: int, outages: int) -> str:
    days = measured.days
    return (
        "\n".join(
            [
                "## Sample-ratio mismatch checked every day",
                "",
                f"`python -m bench.srm --healthy {healthy} --mismatched {mismatched} --outages {outages} --days {days}`:"
                " simulated",
                "experiments (2 and 3 groups, 500 to 20,000 units a day, a weekly cycle with weekends at 65–70%, ±10% a day),",
                "loaded as `exposure_daily` and read by gatehouse's own SQL on DuckDB, as a daily schedule would: the sequential",
                f"test of `exposure_srm_daily` (prior concentration {DEFAULT_CONCENTRATION:,.0f}, the default), the one-look"
                " chi-square",
                "of `exposure_srm` recomputed every day as the views did before, and `experiment_health` each morning over the",
                "days up to the day before. Healthy: the share ever flagged within the horizon, with its 95% Wilson interval",
                "(target: at or below α). Mismatched (planned 50/50): caught within the horizon and the median day of the first",
                "alert over all of them (one never caught counts as later than any). Beside the daily chi-square at α, which"
                " does",
                "not hold α, the daily chi-square held to α by Bonferroni over the horizon's looks (α / days): the one-look test",
                "with the same guarantee as the sequential one. Ratio: the sequential median day over each chi-square's. No",
                "median day for healthy experiments: most are never flagged. With 1,000 experiments an interval's upper end",
                "cannot fall below 0.4% (0 flagged), so at α = 0.001 the share, not the interval, is the measure. What the",
                "figures mean, and why no prior meets twice the daily chi-square's delay in days for 51/49 at α = 0.05:",
                "docs/experiment-health.md.",
                "",
                "| cohort | days | α | experiments | sequential: flagged | share (95% interval) | median day"
                " | daily chi-square: flagged | share | median day | chi-square at α/days: flagged | share | median day"
                " | delay ratio (vs chi-square at α / at α/days) |",
                "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|",
                *srm_rows(measured),
                "",
                "### The prior's concentration",
                "",
                "The same data at each prior concentration c (`srm_prior_concentration`): healthy experiments ever flagged in",
                f"{days} days, and for each mismatch the median day of the first alert and the median exposures (all groups) on"
                " it,",
                "each beside the daily chi-square's at α (the ratio in brackets). Whatever c, the false-alarm rate is bounded by",
                "α; c sets which mismatch is caught soonest: the prior spreads a group's share by about √(θ(1−θ)/c), so a",
                "mismatch of d points is caught soonest with c near 0.25 / d² times a few.",
                "",
                "| c | α | healthy flagged (95% interval) | 51/49: median day | 51/49: median exposures"
                " | 52/48: median day | 52/48: median exposures |",
                "|---:|---:|---|---:|---:|---:|---:|",
                *concentration_rows(measured),
                "",
                "### The other health checks",
                "",
                "`experiment_health`'s other checks on the same healthy experiments, each day's verdict as that morning's run",
                f"read it (default parameters: `dip_ratio` {DEFAULT_PARAMETERS['dip_ratio'][0]:g},"
                f" `health_min_days` {DEFAULT_PARAMETERS['health_min_days'][0]:g},"
                f" `health_min_exposures` {DEFAULT_PARAMETERS['health_min_exposures'][0]:,.0f},"
                f" `max_running_days` {DEFAULT_PARAMETERS['max_running_days'][0]:g}): the experiments ever flagged"
                " within the horizon and the flagged experiment-days. The outage cohort has one day at a",
                f"{OUTAGE_SHARE:.0%} share of its traffic after the dip check's first week: caught that day, and the days"
                " wrongly flagged.",
                "`running long` is no statistic: it flags every experiment past `max_running_days` and none before.",
                "`late` reads the service's computation, which the simulation keeps current: it measures that traffic alone"
                " never",
                "makes a series late.",
                "",
                "| check | cohort | days | experiments | flagged | share (95% interval) | flagged days |",
                "|---|---|---:|---:|---:|---|---|",
                *health_rows(measured),
            ]
        )
        + "\n"
    )


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--healthy", type=int, default=1000)
    parser.add_argument("--mismatched", type=int, default=200)
    parser.add_argument("--outages", type=int, default=200)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--no-write", action="store_true", help="print the section instead of writing RESULTS.md")
    args = parser.parse_args()
    started = time.monotonic()
    measured = measure(args.healthy, args.mismatched, args.outages, args.days)
    text = section(measured, args.healthy, args.mismatched, args.outages)
    log.info("measured in %.0f s", time.monotonic() - started)
    publish(SRM_SECTION, text, args.no_write)


if __name__ == "__main__":
    main()
