"""The "what stands in the way" section of RESULTS.md: each missed target explained with this run's figures.

The causes were found by profiling (py-spy on the job processes, the twin's request timeline); the
figures quoted come from the run being reported, except where a paragraph says it quotes a profiling
experiment.
"""

from __future__ import annotations

from bench.results import (
    FLOOR_MULTIPLE_TARGET,
    FULL_LOAD_FLOOR_TARGET,
    GATEHOUSE_FULL,
    GATEHOUSE_RERUN,
    MB,
    NORMALISE_LOAD_TARGET,
    PEAK_GROWTH_TARGET,
    PEAK_RSS_TARGET_MB,
    RERUN_SHARE_TARGET,
    REST_API_BEST,
    REST_API_DEFAULTS,
    SPEEDUP_TARGET,
    BenchReport,
    fmt,
    max_peak,
)
from gatehouse.sources.console.constants import RATE_LIMIT_ARRIVAL_JITTER_S, RATE_LIMIT_WINDOW_MARGIN


def peak_step(report: BenchReport, size: str, step: str) -> float | None:
    value = report.median(size, GATEHOUSE_FULL, lambda r: r.peak_by_step.get(step, 0))
    return value / MB if value else None


def alternative_pace(alternative_extract: float, gatehouse_extract: float | None) -> str:
    if not gatehouse_extract:
        return "extracts at the rate limit too"
    ratio = alternative_extract / gatehouse_extract
    if ratio < 0.95:
        return f"extracts faster than gatehouse does today ({ratio:.2f}x its extract time)"
    if ratio > 1.05:
        return f"extracts slower ({ratio:.2f}x gatehouse's extract time)"
    return "extracts about as fast"


def findings(report: BenchReport) -> list[str]:
    big = "large" if "large" in report.shapes else report.sizes[-1]
    median = lambda job, metric, size=big: report.median(size, job, metric)  # noqa: E731
    if not report.runs_of(big, GATEHOUSE_FULL):
        return []
    limit = report.rate_limit
    floor = report.floor(big)
    out: list[str] = []

    throttled = median(GATEHOUSE_FULL, lambda r: r.throttled)
    request_rate = median(GATEHOUSE_FULL, lambda r: r.request_rate or 0.0)
    listing_rate = median(GATEHOUSE_FULL, lambda r: r.listing_rate or 0.0)
    extract = median(GATEHOUSE_FULL, lambda r: r.steps.get("extract", 0.0))
    lists_s = median(GATEHOUSE_FULL, lambda r: r.lists_s or 0.0)
    list_requests = median(GATEHOUSE_FULL, lambda r: r.list_requests)
    # A slot is held a window (+ the margin) plus the arrival-jitter allowance from when the service counted it.
    paced = limit.per_second / (1 + RATE_LIMIT_WINDOW_MARGIN + RATE_LIMIT_ARRIVAL_JITTER_S / limit.window_s)
    after_last = median(GATEHOUSE_FULL, lambda r: r.after_last_request_s or 0.0)
    out.append(
        f"**Extraction runs at the client's paced rate, just under the limit** (client,"
        f" `sources/console/ratelimit.py`). The twin counts a request when it reaches its throttle, somewhere"
        f" between sending and answering. Holding each slot until a window after the answer, as the client did"
        f" before, is safe whatever the service does but costs one round trip per window (47.4"
        f" requests/s at 50 ms and 50/1s). The limiter now learns the shortest round trip (from httpcore's trace:"
        f" first byte sent, answer's head received) and holds a slot a window from the answer less that round"
        f" trip less a 10 ms allowance for scheduling, never less than a window from the send: about {paced:.1f}"
        f" requests/s at most; a 429 still lowers the pace by a fifth. Measured in the {big} full load:"
        f" {throttled:.0f} 429s, {fmt(request_rate)} requests/s from the first request to the last,"
        f" {fmt(listing_rate)} while the {list_requests:.0f} list pages were read ({fmt(lists_s)} s, the ingestion"
        f" runs streaming alongside from one of dlt's worker threads); the two load phases' extract steps took"
        f" {fmt(extract)} s (the first phase's normalise and load run between them while the requests go on), for a"
        f" floor of {floor.seconds:.1f} s; then {fmt(after_last)} s from the last request to the end of"
        f" the run: the last phase's normalise and load (the exposures and the run's row), the SCD2 counts, views"
        f" and snapshot. The first phase (the lists, holdouts and runs: most of the rows) is normalised and loaded"
        f" while the exposures are read ahead on the slots the other requests leave."
    )
    requests = median(GATEHOUSE_FULL, lambda r: r.requests)
    if requests and after_last:
        least = requests / paced + after_last
        out[-1] += (
            f" What the target leaves: at the paced rate its {requests:,.0f} requests take {requests / paced:.1f} s,"
            f" and {fmt(after_last)} s follow the last one: {least:.1f} s ="
            f" {least / floor.seconds:.3f}x the floor before the run's start-up, against {FULL_LOAD_FLOOR_TARGET:.2f}x."
        )
    walls = sorted(run.wall_s for run in report.runs_of(big, GATEHOUSE_FULL))
    if len(walls) > 1:
        out[-1] += (
            f" The {len(walls)} {big} full loads took {', '.join(f'{wall:.1f}' for wall in walls)} s"
            f" ({walls[0] / floor.seconds:.2f}x to {walls[-1] / floor.seconds:.2f}x the floor): the machine's noise is"
            f" as large as what is left to the target."
        )
    if listing_rate and listing_rate < 0.9 * paced:
        out.append(
            f"**The rate budget is idle while the lists are read** (source, `sources/console/__init__.py`): only"
            f" {fmt(listing_rate)} requests/s arrived during the {fmt(lists_s)} s of list paging. Holdout and"
            f" experiment ids come from the lists, so that fan-out waits for them; reading list pages 2..n"
            f" concurrently once page 1 gives `totalItems` would shorten the wait."
        )
    rows = median(GATEHOUSE_FULL, lambda r: r.rows)
    normalize = median(GATEHOUSE_FULL, lambda r: r.steps.get("normalize", 0.0))
    load = median(GATEHOUSE_FULL, lambda r: r.steps.get("load", 0.0))
    speed = median(GATEHOUSE_FULL, lambda r: r.normalise_load_rows_per_s)
    if speed is not None and speed < NORMALISE_LOAD_TARGET:
        exposures = report.shapes[big]
        out.append(
            f"**Normalising dict rows is bound by dlt's relational normaliser** (pure Python: flattening,"
            f" `_dlt_id` generation, type coercion; parquet writing is a small share). The {big} full load"
            f" normalises {fmt(rows, '{:,.0f}')} rows (nested tables included) in {fmt(normalize)} s and loads"
            f" them in {fmt(load)} s: {fmt(speed, '{:,.0f}')} rows/s, against {NORMALISE_LOAD_TARGET:,}."
            f" The loader is not the problem (parquet into DuckDB, SCD2 merge included). Already done:"
            f" `cumulative_exposures` ({exposures.experiments:,} experiments' series, a quarter of all rows) is"
            f" yielded as Arrow tables, which dlt copies without the relational normaliser (34,500 rows/s before);"
            f" the run freezes the objects alive at its start out of the garbage collector's scans and collects"
            f" young objects every 10,000 allocations instead of 700 (`pipelines/run.py`): with Python's defaults"
            f" seven full collections took about 1.2 s of a 9.3 s normalise step, measured in one profiling"
            f" process, 8.1 s after; and the normalise step runs in two forked worker processes over extract files"
            f" of about 2 MB, so both cores work (interleaved in one profiling session: 7.2 to 10.0 s with one"
            f" worker, 5.9 to 7.5 s with two; the machine's noise is large). Two workers are not twice as fast:"
            f" dlt deals the files out by count, not size, and the tables are merged and loaded by one process."
            " What is left does not reach it either, measured in profiling processes: keeping the simple string lists of gates"
            " and configs (`tags`, `target_apps`, `holdoutIDs`,"
            f" `monitoring_metrics`, `rules.environments`, `conditions.targetValue`) as JSON columns instead of"
            f" child tables shortens normalize from 8.1 to 6.1 s and load from 2.3 to 1.7 s, but a third of the"
            f" rows go (402,787 to 265,922), so rows per second fall (38,900 to 33,900), and the data model and"
            f" views would change. Reaching {NORMALISE_LOAD_TARGET:,} would mean bypassing dlt's normaliser for"
            f" gates, configs and runs (building their nested tables, row ids and SCD2 hashes ourselves as Arrow),"
            f" re-implementing dlt internals its SCD2 merge depends on."
        )
    peaks = {size: max_peak(report, size) for size in report.sizes}
    if peaks.get(big) and (
        peaks[big] >= PEAK_RSS_TARGET_MB
        or (peaks.get("medium") and big != "medium" and peaks[big] >= PEAK_GROWTH_TARGET * peaks["medium"])
    ):
        steps = {step: peak_step(report, big, step) for step in ("extract", "normalize", "load")}
        medium_steps = {step: peak_step(report, "medium", step) for step in ("extract", "normalize", "load")}
        out.append(
            f"**Memory peaks while DuckDB loads, not while pages stream.** Peak RSS of the {big} full load by"
            f" step: extract {fmt(steps['extract'], '{:.0f}')} MB, normalize {fmt(steps['normalize'], '{:.0f}')} MB,"
            f" load {fmt(steps['load'], '{:.0f}')} MB"
            + (
                f" (medium: {fmt(medium_steps['extract'], '{:.0f}')} / {fmt(medium_steps['normalize'], '{:.0f}')} /"
                f" {fmt(medium_steps['load'], '{:.0f}')} MB)"
                if "medium" in report.shapes and big != "medium"
                else ""
            )
            + ". Extraction memory does follow the page (it grows by about 20 MB over 3,000 fan-out requests:"
            " resource state and the id catalogue). The load step adds DuckDB's buffers for the SCD2 merge"
            f" of {report.shapes[big].listed.get('gates', 0):,} gates and their nested tables, and each normalize worker holds"
            " dlt's per-table write"
            " buffers (5,000 rows per table by default; gatehouse buffers 500 per table while extracting)."
            " `gatehouse run` caps DuckDB at 128 MB and one thread by default"
            " (`DESTINATION__DUCKDB__CREDENTIALS__GLOBAL_CONFIG` overrides it); a smaller"
            " `NORMALIZE__DATA_WRITER__BUFFER_MAX_ITEMS` would lower the normalize plateau."
        )
    rerun = median(GATEHOUSE_RERUN, lambda r: r.wall_s)
    full = median(GATEHOUSE_FULL, lambda r: r.wall_s)
    if rerun and full and rerun >= RERUN_SHARE_TARGET * full:
        shape = report.shapes[big]
        rerun_floor = report.rerun_floor(big)
        unsettled = shape.ingestion_runs - shape.settled_runs - shape.quiet_runs
        running = shape.experiments - shape.concluded_experiments
        reachable = rerun_floor.seconds < RERUN_SHARE_TARGET * full
        out.append(
            f"**A no-change rerun {'could' if reachable else 'cannot'} be under {RERUN_SHARE_TARGET:.0%} of the"
            f' full load with this organisation.** It must read the lists (no "modified since" filter), every'
            f" holdout (no list of them), every experiment that has not concluded and every run that has not"
            f" settled: {shape.holdouts:,} holdouts + {running:,} of {shape.experiments:,} experiments"
            f" ({shape.concluded_experiments:,} concluded) + {unsettled:,} of {shape.ingestion_runs:,} runs"
            f" (the rest settled, or quiet and not due for their weekly re-check) = {rerun_floor.requests:,} requests, a floor"
            f" of {rerun_floor.seconds:.1f} s ="
            f" {rerun_floor.seconds / full:.0%} of the full load's {full:.1f} s. Measured: {rerun:.1f} s"
            f" ({rerun / full:.0%}), of which normalise and load"
            f" {fmt(median(GATEHOUSE_RERUN, lambda r: r.normalise_load_s))} s: lists and answers identical to"
            f" those last loaded are no longer normalised, so what is left is the requests."
            + (
                ""
                if shape.concluded_experiments
                else " The twin's organisation has no concluded experiment, so"
                " the source's skipping of concluded experiments never applies here."
            )
        )
    alternative_throttled = median(REST_API_BEST, lambda r: r.throttled)
    alternative_extract = median(REST_API_BEST, lambda r: r.steps.get("extract", 0.0))
    defaults_load = median(REST_API_DEFAULTS, lambda r: r.steps.get("load", 0.0))
    defaults_peak = median(REST_API_DEFAULTS, lambda r: r.peak_rss_mb)
    best_peak = median(REST_API_BEST, lambda r: r.peak_rss_mb)
    if alternative_extract is not None:
        out.append(
            f"**The alternative {alternative_pace(alternative_extract, extract)}: the difference is in loading"
            f" and memory.** With"
            f" `parallelized` on its child endpoints, rest_api sends requests as fast as its workers go and lets the"
            f" server's 429s and Retry-After pace it ({fmt(alternative_throttled, '{:.0f}')} 429s in its best"
            f" {big} full load; extraction {fmt(alternative_extract)} s against gatehouse's {fmt(extract)} s)."
            f" With the source-level `parallelized` flag alone, each child endpoint makes one request at a time"
            f" (about 10 requests/s each, measured while profiling), so the config measured here is already its"
            f" faster form. Its defaults load with `insert_values`: {fmt(defaults_load)} s for the load step of"
            f" the {big} full load, peaking at {fmt(defaults_peak, '{:,.0f}')} MB (dlt loads with 20 workers into"
            f" one DuckDB); with parquet its peak is {fmt(best_peak, '{:,.0f}')} MB. It keeps no state: each rerun"
            f" requests and loads everything again."
        )
    best_wall = median(REST_API_BEST, lambda r: r.wall_s)
    if best_wall is not None and best_wall < SPEEDUP_TARGET * floor.seconds:
        out.append(
            f"**{SPEEDUP_TARGET:g}x faster than the alternative's best settings is out of reach at this rate limit.**"
            f" Its best {big} full load took {best_wall:.1f} s = {best_wall / floor.seconds:.2f}x the floor;"
            f" {SPEEDUP_TARGET:g}x faster would be {best_wall / SPEEDUP_TARGET:.1f} s, under the {floor.seconds:.1f} s"
            f" that no client can beat. Against its defaults (what a user gets) the target is reachable: at"
            f" {FLOOR_MULTIPLE_TARGET}x the floor gatehouse would take {FLOOR_MULTIPLE_TARGET * floor.seconds:.0f} s,"
            f" {median(REST_API_DEFAULTS, lambda r: r.wall_s) / (FLOOR_MULTIPLE_TARGET * floor.seconds):.1f}x faster"
            f" than its defaults."
            if median(REST_API_DEFAULTS, lambda r: r.wall_s)
            else ""
        )
    return [f"{number}. {text}" for number, text in enumerate(filter(None, out), start=1)]
