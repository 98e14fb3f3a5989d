"""The sample-ratio check, calibrated as it is used: read every day.

Simulated experiments (2 and 3 groups, 500 to 20,000 units a day with a weekly cycle) are checked daily by
gatehouse's own SQL (`analytics.exposure_srm_daily`, the sequential test, and the one-look chi-square of
`analytics.exposure_srm` recomputed each day, as the views did before the sequential test), on DuckDB. Healthy
experiments give the share ever flagged within 30, 60 and 90 days at α = 0.05, 0.01 and 0.001, with its binomial
(Wilson) interval; mismatched ones (51/49 and 52/48) the share caught and the median day of the first alert, beside
the daily chi-square's. The table goes to bench/RESULTS.md.

`reference_log_bayes_factor` is an independent reference of the test's statistic in Python: the log-gammas in
50-digit decimals by Stirling's series to z^-19, against which the tests hold the SQL to 1e-9 relative.

    python -m bench.srm [--healthy 1000] [--mismatched 200] [--days 90] [--no-write]
"""

from __future__ import annotations

import argparse
import logging
import math
import random
import statistics
from dataclasses import dataclass
from decimal import Decimal, localcontext
from typing import Iterator, Sequence

import duckdb

from bench.results_md import RESULTS_MD, SRM_SECTION, write_section
from gatehouse.pipelines.models import graph

log = logging.getLogger("bench.srm")

# Bernoulli numbers B2..B20, for Stirling's series of ln Γ
_BERNOULLI = [Decimal(1) / 6, Decimal(-1) / 30, Decimal(1) / 42, Decimal(-1) / 30, Decimal(5) / 66, Decimal(-691) / 2730,
              Decimal(7) / 6, Decimal(-3617) / 510, Decimal(43867) / 798, Decimal(-174611) / 330]
_PRECISION = 50


def _log_gamma(z: Decimal) -> Decimal:
    """ln Γ(z) for z > 0 in decimals: Γ's recurrence up to z ≥ 30, then Stirling's series to the z^-19 term."""
    shift = Decimal(0)
    while z < 30:
        shift += z.ln()
        z += 1
    series = sum((b / (Decimal(2 * k) * Decimal(2 * k - 1) * z ** (2 * k - 1)) for k, b in enumerate(_BERNOULLI, 1)),
                 Decimal(0))
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


@dataclass(frozen=True)
class Experiment:
    experiment_id: str
    expected: tuple[float, ...]  # the planned split
    true: tuple[float, ...]  # the split units are really assigned by
    daily_units: int
    label: str  # healthy, 51/49, 52/48

    def cumulative(self, days: int, rng: random.Random) -> list[list[int]]:
        """Each day's cumulative count per group: the day's units (the weekly cycle, ±10% noise) split at random."""
        totals, out = [0] * len(self.true), []
        for day in range(days):
            units = max(1, round(self.daily_units * WEEKLY_CYCLE[day % 7] * rng.uniform(0.9, 1.1)))
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


def experiments(healthy: int, mismatched: int, rng: random.Random) -> list[Experiment]:
    out = []
    for index in range(healthy):
        groups = 2 if index % 2 == 0 else 3
        split = tuple([1.0 / groups] * groups)
        out.append(Experiment(f"aa_{index:05d}", split, split, rng.randint(500, 20000), "healthy"))
    for index in range(mismatched):
        label = "51/49" if index % 2 == 0 else "52/48"
        true = (0.51, 0.49) if label == "51/49" else (0.52, 0.48)
        out.append(Experiment(f"mm_{index:05d}", (0.5, 0.5), true, rng.randint(500, 20000), label))
    return out


def load(connection: duckdb.DuckDBPyConnection, cohort: Sequence[Experiment], days: int, rng: random.Random,
         alpha: float, concentration: float) -> None:
    """`analytics.exposure_daily` of the cohort (the columns the SRM views read), and the parameter tables."""
    connection.execute("create schema if not exists analytics")
    connection.execute("create or replace table analytics.exposure_daily (project varchar, experiment_id varchar,"
                       " group_id varchar, group_name varchar, exposure_date date, cumulative_exposures bigint)")
    connection.execute("create or replace table analytics.srm_expected_weights (experiment_id varchar, group_id varchar,"
                       " weight double)")
    connection.execute("create or replace table analytics.view_parameters (name varchar, value double)")
    connection.executemany("insert into analytics.view_parameters values (?, ?)",
                           [("srm_p_value_threshold", alpha), ("srm_prior_concentration", concentration)])
    rows = []
    for experiment in cohort:
        for day, counts in enumerate(experiment.cumulative(days, rng)):
            for group, count in enumerate(counts):
                rows.append(("sim", experiment.experiment_id, f"g{group}", f"g{group}", day, count))
    import pandas as pd

    loaded = pd.DataFrame(rows, columns=["project", "experiment_id", "group_id", "group_name", "day",
                                         "cumulative_exposures"])
    connection.register("loaded", loaded)
    connection.execute("insert into analytics.exposure_daily select project, experiment_id, group_id, group_name,"
                       " date '2026-01-05' + cast(day as integer), cumulative_exposures from loaded")
    connection.unregister("loaded")


def view_sql(name: str) -> str:
    [definition] = [d for d in graph.view_definitions() if d.name == name]
    return definition.sql


def sequential_first_alerts(connection: duckdb.DuckDBPyConnection, alpha: float) -> dict[str, tuple[int | None, float]]:
    """By experiment: the first test day (0-based) whose sequential p-value is below `alpha`, and the p-value on the last."""
    rows = connection.execute(
        f"with daily as ({view_sql('exposure_srm_daily')}) "
        "select experiment_id, min(case when sequential_p_value < ? then test_date - test_started_on end),"
        " min(sequential_p_value) from daily group by experiment_id", [alpha]).fetchall()
    return {experiment_id: (first, last) for experiment_id, first, last in rows}


def chi_square_first_alerts(connection: duckdb.DuckDBPyConnection, alpha: float, days: int) -> dict[str, int | None]:
    """The one-look chi-square of `exposure_srm`, recomputed as each day's run would: the first day it flagged."""
    first: dict[str, int | None] = {}
    srm = view_sql("exposure_srm")
    # the model reads exposure_daily's latest day; each day's run sees the days up to it
    connection.execute("create or replace temp table all_days as select * from analytics.exposure_daily")
    connection.execute("create or replace table analytics.exposure_srm_daily as select null::varchar as project,"
                       " null::varchar as experiment_id, null::date as test_started_on, null::boolean as restarted,"
                       " null::date as test_date, null::bigint as group_count, null::bigint as test_exposures,"
                       " null::double as log_bayes_factor, null::double as sequential_p_value,"
                       " null::double as p_value_threshold, null::boolean as srm_detected where false")
    for day in range(days):
        connection.execute("delete from analytics.exposure_daily")
        connection.execute("insert into analytics.exposure_daily select * from all_days"
                           " where exposure_date <= date '2026-01-05' + ?", [day])
        flagged = connection.execute(f"with srm as ({srm}) select experiment_id from srm where chi_square_p_value < ?",
                                     [alpha]).fetchall()
        for (experiment_id,) in flagged:
            first.setdefault(experiment_id, day)
    connection.execute("delete from analytics.exposure_daily")
    connection.execute("insert into analytics.exposure_daily select * from all_days")
    return first


@dataclass(frozen=True)
class Row:
    cohort: str
    horizon: int
    alpha: float
    experiments: int
    flagged: int
    median_day: float | None
    chi_flagged: int
    chi_median_day: float | None


def wilson(successes: int, trials: int, z: float = 1.959963984540054) -> tuple[float, float]:
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


def calibrate(healthy: int, mismatched: int, days: int, seed: int = 52,
              alphas: Sequence[float] = (0.05, 0.01, 0.001), horizons: Sequence[int] = (30, 60, 90),
              concentration: float = 1000.0) -> Iterator[Row]:
    rng = random.Random(seed)
    cohort = experiments(healthy, mismatched, rng)
    labels = {experiment.experiment_id: experiment.label for experiment in cohort}
    with duckdb.connect() as connection:
        load(connection, cohort, days, rng, alphas[0], concentration)
        for alpha in alphas:
            sequential = sequential_first_alerts(connection, alpha)
            chi = chi_square_first_alerts(connection, alpha, days)
            for label in ("healthy", "51/49", "52/48"):
                members = [e for e, member in labels.items() if member == label]
                for horizon in horizons if label == "healthy" else (min(days, max(horizons)),):
                    if horizon > days:
                        continue
                    seq_days = [sequential[e][0] for e in members if sequential[e][0] is not None and sequential[e][0] < horizon]
                    chi_days = [chi[e] for e in members if chi.get(e) is not None and chi[e] < horizon]
                    yield Row(label, horizon, alpha, len(members), len(seq_days),
                              statistics.median(seq_days) + 1 if seq_days else None, len(chi_days),
                              statistics.median(chi_days) + 1 if chi_days else None)


def section(rows: Sequence[Row], healthy: int, mismatched: int, days: int) -> str:
    lines = [
        "## Sample-ratio mismatch checked every day",
        "",
        f"`python -m bench.srm --healthy {healthy} --mismatched {mismatched} --days {days}`: simulated experiments (2 and 3",
        "groups, 500 to 20,000 units a day, a weekly cycle) checked daily by gatehouse's own SQL on DuckDB: the",
        "sequential test of `exposure_srm_daily` (prior concentration 1,000) and, beside it, the one-look chi-square of",
        "`exposure_srm` recomputed every day as the views did before. Healthy: the share ever flagged within the",
        "horizon, with its 95% Wilson interval (target: at or below α). Mismatched (planned 50/50): the share caught",
        "within the horizon and the median day of the first alert (target: at most twice the chi-square's delay).",
        "",
        "| cohort | days | α | experiments | sequential: flagged | share (95% interval) | median day | daily chi-square: flagged | share | median day |",
        "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        low, high = wilson(row.flagged, row.experiments)
        share = row.flagged / row.experiments if row.experiments else 0.0
        chi_share = row.chi_flagged / row.experiments if row.experiments else 0.0
        day = f"{row.median_day:g}" if row.median_day is not None else "–"
        chi_day = f"{row.chi_median_day:g}" if row.chi_median_day is not None else "–"
        lines.append(f"| {row.cohort} | {row.horizon} | {row.alpha:g} | {row.experiments} | {row.flagged} |"
                     f" {share:.3f} ({low:.3f}–{high:.3f}) | {day} | {row.chi_flagged} | {chi_share:.3f} | {chi_day} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--healthy", type=int, default=1000)
    parser.add_argument("--mismatched", type=int, default=200)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--no-write", action="store_true", help="print the section instead of writing RESULTS.md")
    args = parser.parse_args()
    text = section(list(calibrate(args.healthy, args.mismatched, args.days)), args.healthy, args.mismatched, args.days)
    if args.no_write:
        print(text)
    else:
        write_section(SRM_SECTION, text)
        log.info("wrote %s", RESULTS_MD)


if __name__ == "__main__":
    main()
