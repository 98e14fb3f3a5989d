"""What the benchmark measured, summarised: medians per job, paired ratios, the floor, the targets, and
the Markdown of bench/RESULTS.md. Everything here is a pure function of the recorded runs."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from bench.floor import Floor, OrganisationShape, RateLimit, full_load_floor, rerun_floor

GATEHOUSE_FULL = "gatehouse_full"
GATEHOUSE_RERUN = "gatehouse_rerun"
GATEHOUSE_NEXT_DAY = "gatehouse_next_day"
REST_API_DEFAULTS = "rest_api_defaults"
REST_API_BEST = "rest_api_best"
JOB_TITLES = {
    GATEHOUSE_FULL: "gatehouse full load",
    GATEHOUSE_RERUN: "gatehouse no-change rerun",
    GATEHOUSE_NEXT_DAY: "gatehouse rerun, twin +1 day",
    REST_API_DEFAULTS: "rest_api, defaults",
    REST_API_BEST: "rest_api, best settings",
}
GATEHOUSE_JOBS = (GATEHOUSE_FULL, GATEHOUSE_RERUN, GATEHOUSE_NEXT_DAY)
ALTERNATIVES = (REST_API_DEFAULTS, REST_API_BEST)
MB = 1 << 20

# The load's targets ("to the floor"), large organisation.
FULL_LOAD_FLOOR_TARGET = 1.05
RERUN_FLOOR_TARGET = 1.10
PEAK_FULL_LOAD_TARGET_MB = 416
# The run's own row: every run appends one to extraction_runs, whatever changed.
RUN_RECORD_TABLE = "extraction_runs"

# Earlier issues' targets.
FLOOR_MULTIPLE_TARGET = 1.25
SPEEDUP_TARGET = 2.0
RERUN_SHARE_TARGET = 0.15
PEAK_RSS_TARGET_MB = 500
PEAK_GROWTH_TARGET = 1.5
NORMALISE_LOAD_TARGET = 50_000


@dataclass
class JobRun:
    """One measured job: the job's own figures, the twin's count of its requests, and its peak memory."""

    size: str
    rep: int
    job: str
    ok: bool
    wall_s: float = 0.0  # the run itself (gatehouse: run_extraction, views included; rest_api: pipeline.run)
    process_wall_s: float = 0.0  # the job's process from start to exit (interpreter and imports included)
    requests: int = 0  # as the twin counted them, throttled ones included
    throttled: int = 0
    rows: int = 0  # rows normalised into every table, nested tables included
    peak_rss_bytes: int = 0
    steps: dict[str, float] = field(default_factory=dict)  # dlt's extract / normalize / load seconds
    new_versions: int | None = None  # gatehouse: SCD2 versions written (gates + dynamic configs)
    settled_runs_requested: int | None = None  # requests for runs settled before the job
    lists_s: float | None = None  # first to last list request, by the twin's clock
    list_requests: int = 0
    request_rate: float | None = None  # requests per second from the first request to the last
    listing_rate: float | None = None  # requests per second (any operation) while the lists were read
    peak_by_step: dict[str, int] = field(default_factory=dict)  # dlt step -> highest RSS sampled during it
    after_last_request_s: float | None = None  # from the last request's arrival at the twin to the run's end
    rows_by_table: dict[str, int] = field(default_factory=dict)  # gatehouse: rows normalised per table
    unchanged_items: int | None = None  # gatehouse: items read as last loaded, not loaded again
    error: str | None = None
    # requests per half second from the first, by endpoint (runs.json only: where the budget sat idle)
    timeline: list[dict[str, int]] = field(default_factory=list)

    @property
    def rows_per_s(self) -> float:
        return self.rows / self.wall_s if self.wall_s else 0.0

    @property
    def normalise_load_s(self) -> float:
        return self.steps.get("normalize", 0.0) + self.steps.get("load", 0.0)

    @property
    def normalise_load_rows_per_s(self) -> float:
        seconds = self.normalise_load_s
        return self.rows / seconds if seconds else 0.0

    @property
    def peak_rss_mb(self) -> float:
        return self.peak_rss_bytes / MB

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> JobRun:
        # Figures an older bench recorded and this one no longer reports are left out.
        known = {f.name for f in fields(cls)}
        return cls(**{key: value for key, value in data.items() if key in known})


@dataclass
class BenchReport:
    machine: dict[str, str]
    latency_ms: int
    rate_limit: RateLimit
    reps: dict[str, int]  # size -> repetitions
    shapes: dict[str, OrganisationShape]  # size -> what the twin held at the full load
    max_page_size: int | None  # the twin's cap on `limit` (None: no cap)
    runs: list[JobRun]
    elapsed_s: float = 0.0
    command: str = "make bench"

    def to_dict(self) -> dict[str, Any]:
        return {
            "machine": self.machine,
            "latency_ms": self.latency_ms,
            "rate_limit": [self.rate_limit.requests, self.rate_limit.window_s],
            "reps": self.reps,
            "shapes": {size: shape.to_dict() for size, shape in self.shapes.items()},
            "max_page_size": self.max_page_size,
            "runs": [run.to_dict() for run in self.runs],
            "elapsed_s": self.elapsed_s,
            "command": self.command,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BenchReport:
        return cls(
            machine=data["machine"],
            latency_ms=data["latency_ms"],
            rate_limit=RateLimit(*data["rate_limit"]),
            reps=data["reps"],
            shapes={size: OrganisationShape.from_dict(shape) for size, shape in data["shapes"].items()},
            max_page_size=data["max_page_size"],
            runs=[JobRun.from_dict(run) for run in data["runs"]],
            elapsed_s=data.get("elapsed_s", 0.0),
            command=data.get("command", "make bench"),
        )

    def floor(self, size: str) -> Floor:
        return full_load_floor(self.shapes[size], self.rate_limit, self.max_page_size)

    def rerun_floor(self, size: str) -> Floor:
        return rerun_floor(self.shapes[size], self.rate_limit, self.max_page_size)

    @property
    def sizes(self) -> list[str]:
        return list(self.shapes)

    def runs_of(self, size: str, job: str) -> list[JobRun]:
        return [run for run in self.runs if run.size == size and run.job == job and run.ok]

    def median(self, size: str, job: str, metric: Callable[[JobRun], float]) -> float | None:
        values = [metric(run) for run in self.runs_of(size, job)]
        return statistics.median(values) if values else None

    def paired_ratio(self, size: str, job: str, other: str, metric: Callable[[JobRun], float]) -> float | None:
        """Median over repetitions of metric(job) / metric(other), each pair measured in the same repetition."""
        ratios = []
        for run in self.runs_of(size, job):
            for peer in self.runs_of(size, other):
                if peer.rep == run.rep and metric(peer):
                    ratios.append(metric(run) / metric(peer))
        return statistics.median(ratios) if ratios else None


@dataclass(frozen=True)
class TargetCheck:
    target: str
    measured: str
    holds: bool | None  # None: not measured in this run


def wall(run: JobRun) -> float:
    return run.wall_s


def requests(run: JobRun) -> float:
    return run.requests


def peak_mb(run: JobRun) -> float:
    return run.peak_rss_mb


def fmt(value: float | None, pattern: str = "{:.1f}") -> str:
    return "–" if value is None else pattern.format(value)


def rows_beyond_run_record(run: JobRun) -> float:
    """Rows normalised into anything but the run's own extraction_runs row."""
    return run.rows - run.rows_by_table.get(RUN_RECORD_TABLE, 0) if run.rows_by_table else run.rows


def floor_check(what: str, wall_s: float | None, floor: Floor, target: float) -> TargetCheck:
    """A run's wall time against its floor: within `target` times it."""
    multiple = wall_s / floor.seconds if wall_s is not None else None
    return TargetCheck(
        f"{what} ≤ {target:.2f}x",
        f"{fmt(wall_s)} s / {floor.seconds:.2f} s = {fmt(multiple if wall_s else None, '{:.3f}')}x",
        None if multiple is None else multiple <= target,
    )


def issue_targets(report: BenchReport) -> list[TargetCheck]:
    """The load's targets, on the largest organisation measured."""
    big = "large" if "large" in report.shapes else report.sizes[-1]
    median = lambda job, metric: report.median(big, job, metric)  # noqa: E731
    checks: list[TargetCheck] = []
    floor, rerun_floor = report.floor(big), report.rerun_floor(big)
    checks.append(floor_check(f"{big} full load / floor", median(GATEHOUSE_FULL, wall), floor, FULL_LOAD_FLOOR_TARGET))
    checks.append(
        floor_check(f"{big} no-change rerun / its floor", median(GATEHOUSE_RERUN, wall), rerun_floor, RERUN_FLOOR_TARGET)
    )
    moved_rows = median(GATEHOUSE_RERUN, rows_beyond_run_record)
    checks.append(
        TargetCheck(
            f"{big} rows normalised on a no-change rerun ≤ the rows of the per-id series that moved (none: the twin's"
            " clock stands still)",
            f"{fmt(median(GATEHOUSE_RERUN, lambda r: r.rows), '{:,.0f}')} rows, of which {fmt(moved_rows, '{:,.0f}')}"
            f" beyond the run's own `{RUN_RECORD_TABLE}` row;"
            f" {fmt(median(GATEHOUSE_RERUN, lambda r: r.unchanged_items or 0), '{:,.0f}')} items read as last loaded",
            None if moved_rows is None else moved_rows == 0,
        )
    )
    peak = median(GATEHOUSE_FULL, peak_mb)
    checks.append(
        TargetCheck(
            f"{big} peak memory, full load ≤ {PEAK_FULL_LOAD_TARGET_MB} MB",
            f"{fmt(peak, '{:.0f}')} MB",
            None if peak is None else peak <= PEAK_FULL_LOAD_TARGET_MB,
        )
    )
    throttled = [run.throttled for job in GATEHOUSE_JOBS for run in report.runs_of(big, job)]
    checks.append(
        TargetCheck(
            f"{big}: 429s from the twin, every gatehouse run = 0",
            f"{sum(throttled)} in {len(throttled)} runs",
            None if not throttled else sum(throttled) == 0,
        )
    )
    return checks


def check_targets(report: BenchReport) -> list[TargetCheck]:
    checks: list[TargetCheck] = issue_targets(report)
    big = "large" if "large" in report.shapes else report.sizes[-1]
    full = report.median(big, GATEHOUSE_FULL, wall)
    floor = report.floor(big)
    multiple = full / floor.seconds if full is not None else None
    checks.append(
        TargetCheck(
            f"{big} full load within {FLOOR_MULTIPLE_TARGET}x the rate-limit floor",
            f"{fmt(full)} s = {fmt(multiple, '{:.2f}')}x the floor of {floor.seconds:.1f} s ({floor.requests} requests at"
            f" {report.rate_limit})",
            None if multiple is None else multiple <= FLOOR_MULTIPLE_TARGET,
        )
    )
    for alternative in ALTERNATIVES:
        ratio = report.paired_ratio(big, GATEHOUSE_FULL, alternative, wall)
        checks.append(
            TargetCheck(
                f"{big} full load at least {SPEEDUP_TARGET:g}x faster than {JOB_TITLES[alternative]}",
                f"gatehouse takes {fmt(ratio, '{:.2f}')}x the alternative's time"
                + ("" if not ratio else f" ({1 / ratio:.2f}x faster)" if ratio <= 1 else f" ({ratio:.2f}x slower)"),
                None if ratio is None else ratio <= 1 / SPEEDUP_TARGET,
            )
        )
    for size in report.sizes:
        full = report.median(size, GATEHOUSE_FULL, wall)
        rerun = report.median(size, GATEHOUSE_RERUN, wall)
        settled = report.median(size, GATEHOUSE_RERUN, lambda r: r.settled_runs_requested or 0)
        versions = report.median(size, GATEHOUSE_RERUN, lambda r: r.new_versions or 0)
        share = rerun / full if rerun is not None and full else None
        checks.append(
            TargetCheck(
                f"{size} no-change rerun: no request for a settled run",
                f"{fmt(settled, '{:.0f}')} requests for settled runs",
                None if settled is None else settled == 0,
            )
        )
        checks.append(
            TargetCheck(
                f"{size} no-change rerun: no new SCD2 version",
                f"{fmt(versions, '{:.0f}')} new versions",
                None if versions is None else versions == 0,
            )
        )
        rerun_floor_s = report.rerun_floor(size).seconds
        checks.append(
            TargetCheck(
                f"{size} no-change rerun under {RERUN_SHARE_TARGET:.0%} of the full load's time",
                f"{fmt(rerun)} s = {fmt(share, '{:.0%}')} of {fmt(full)} s (its own floor: {rerun_floor_s:.1f} s"
                f" = {rerun_floor_s / full:.0%})"
                if full
                else "–",
                None if share is None else share < RERUN_SHARE_TARGET,
            )
        )
    peaks = {size: max_peak(report, size) for size in report.sizes}
    if big in peaks:
        checks.append(
            TargetCheck(
                f"{big} peak memory under {PEAK_RSS_TARGET_MB} MB",
                f"{fmt(peaks[big], '{:.0f}')} MB",
                None if peaks[big] is None else peaks[big] < PEAK_RSS_TARGET_MB,
            )
        )
    if "medium" in peaks and big != "medium":
        growth = peaks[big] / peaks["medium"] if peaks[big] and peaks["medium"] else None
        checks.append(
            TargetCheck(
                f"{big} peak under {PEAK_GROWTH_TARGET}x the medium peak",
                f"{fmt(peaks[big], '{:.0f}')} / {fmt(peaks['medium'], '{:.0f}')} MB = {fmt(growth, '{:.2f}')}x",
                None if growth is None else growth < PEAK_GROWTH_TARGET,
            )
        )
    speed = report.median(big, GATEHOUSE_FULL, lambda r: r.normalise_load_rows_per_s)
    checks.append(
        TargetCheck(
            f"normalise and load at least {NORMALISE_LOAD_TARGET:,} rows/s ({big} full load)",
            f"{fmt(speed, '{:,.0f}')} rows/s",
            None if speed is None else speed >= NORMALISE_LOAD_TARGET,
        )
    )
    return checks


def max_peak(report: BenchReport, size: str) -> float | None:
    peaks = [report.median(size, job, peak_mb) for job in GATEHOUSE_JOBS]
    peaks = [peak for peak in peaks if peak is not None]
    return max(peaks) if peaks else None


def table(header: list[str], rows: Iterable[list[str]]) -> list[str]:
    align = ["---"] + ["---:"] * (len(header) - 1)
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


@dataclass(frozen=True)
class Column:
    """A column of a table by job: its title, the figure each run gives, how the figure is written."""

    title: str
    metric: Callable[[JobRun], float]
    pattern: str = "{:.1f}"


RESULT_COLUMNS = (
    Column("requests", requests, "{:.0f}"),
    Column("429s", lambda r: r.throttled, "{:.0f}"),
    Column("rows", lambda r: r.rows, "{:,.0f}"),
    Column("rows/s", lambda r: r.rows_per_s, "{:,.0f}"),
    Column("normalise+load rows/s", lambda r: r.normalise_load_rows_per_s, "{:,.0f}"),
    Column("peak RSS MB", peak_mb, "{:.0f}"),
)
# what only gatehouse's jobs record
GATEHOUSE_RESULT_COLUMNS = (
    Column("new versions", lambda r: r.new_versions or 0, "{:,.0f}"),
    Column("settled runs requested", lambda r: r.settled_runs_requested or 0, "{:.0f}"),
)
# gatehouse's full load over each alternative's, paired within a repetition
RATIO_COLUMNS = (
    Column("wall time", wall, "{:.2f}"),
    Column("requests", requests, "{:.2f}"),
    Column("peak RSS", peak_mb, "{:.2f}"),
    Column("rows/s", lambda r: r.rows_per_s, "{:.2f}"),
)
STEP_COLUMNS = (
    Column("extract s", lambda r: r.steps.get("extract", 0.0)),
    Column("lists s", lambda r: r.lists_s or 0.0),
    Column("req/s while listing", lambda r: r.listing_rate or 0.0),
    Column("req/s overall", lambda r: r.request_rate or 0.0),
    Column("normalize s", lambda r: r.steps.get("normalize", 0.0)),
    Column("load s", lambda r: r.steps.get("load", 0.0)),
    Column("last request to end s", lambda r: r.after_last_request_s or 0.0),
    Column("rows", lambda r: r.rows, "{:,.0f}"),
    Column("normalise+load rows/s", lambda r: r.normalise_load_rows_per_s, "{:,.0f}"),
)


def titles(*tables: Iterable[Column]) -> list[str]:
    return [column.title for columns in tables for column in columns]


def medians(report: BenchReport, size: str, job: str, columns: Iterable[Column]) -> list[str]:
    return [fmt(report.median(size, job, column.metric), column.pattern) for column in columns]


def results_table(report: BenchReport) -> list[str]:
    header = ["organisation", "job", "runs", "wall s", "× floor", *titles(RESULT_COLUMNS, GATEHOUSE_RESULT_COLUMNS)]
    rows = []
    for size in report.sizes:
        floor_s = report.floor(size).seconds
        for job in (*GATEHOUSE_JOBS, *ALTERNATIVES):
            done = report.runs_of(size, job)
            if not done:
                failed = [run for run in report.runs if run.size == size and run.job == job]
                if failed:
                    rows.append(
                        [size, JOB_TITLES[job], f"0/{len(failed)}", f"failed: {failed[0].error}"] + [""] * (len(header) - 4)
                    )
                continue
            median_wall = report.median(size, job, wall)
            # a rerun's time is not measured against the full load's floor
            of_floor = job not in (GATEHOUSE_RERUN, GATEHOUSE_NEXT_DAY) and median_wall is not None
            rows.append(
                [
                    size,
                    JOB_TITLES[job],
                    str(len(done)),
                    fmt(median_wall),
                    fmt(median_wall / floor_s, "{:.2f}") if of_floor else "",
                    *medians(report, size, job, RESULT_COLUMNS),
                    *(
                        medians(report, size, job, GATEHOUSE_RESULT_COLUMNS)
                        if job in GATEHOUSE_JOBS
                        else [""] * len(GATEHOUSE_RESULT_COLUMNS)
                    ),
                ]
            )
    return table(header, rows)


def ratio_table(report: BenchReport) -> list[str]:
    header = ["organisation", "gatehouse / alternative", *titles(RATIO_COLUMNS)]
    rows = [
        [
            size,
            f"full load / {JOB_TITLES[alternative]}",
            *(
                fmt(report.paired_ratio(size, GATEHOUSE_FULL, alternative, column.metric), column.pattern)
                for column in RATIO_COLUMNS
            ),
        ]
        for size in report.sizes
        for alternative in ALTERNATIVES
        if report.runs_of(size, alternative)
    ]
    return table(header, rows)


def steps_table(report: BenchReport) -> list[str]:
    header = ["organisation", "job", *titles(STEP_COLUMNS)]
    jobs = (*GATEHOUSE_JOBS, *ALTERNATIVES)
    rows = [
        [size, JOB_TITLES[job], *medians(report, size, job, STEP_COLUMNS)]
        for size in report.sizes
        for job in jobs
        if report.runs_of(size, job)
    ]
    return table(header, rows)


def floor_table(report: BenchReport) -> list[str]:
    header = [
        "organisation",
        "gates",
        "dynamic configs",
        "holdouts",
        "experiments (concluded)",
        "runs (settled, quiet)",
        "full-load floor",
        "rerun floor",
    ]
    rows = []
    for size in report.sizes:
        shape, floor, rerun = report.shapes[size], report.floor(size), report.rerun_floor(size)
        rows.append(
            [
                size,
                f"{shape.listed.get('gates', 0):,}",
                f"{shape.listed.get('dynamic_configs', 0):,}",
                f"{shape.holdouts:,}",
                f"{shape.experiments:,} ({shape.concluded_experiments:,})",
                f"{shape.ingestion_runs:,} ({shape.settled_runs:,}, {shape.quiet_runs:,})",
                f"{floor.requests:,} req = {floor.seconds:.1f} s",
                f"{rerun.requests:,} req = {rerun.seconds:.1f} s",
            ]
        )
    return table(header, rows)


def targets_table(checks: list[TargetCheck]) -> list[str]:
    verdict = {True: "holds", False: "**missed**", None: "not measured"}
    return table(["target", "measured", ""], ([c.target, c.measured, verdict[c.holds]] for c in checks))


def readme_section(report: BenchReport) -> list[str]:
    """The README's `## Benchmarks` section: the headline figures of this run."""
    big = "large" if "large" in report.shapes else report.sizes[-1]
    shape, floor = report.shapes[big], report.floor(big)
    columns = [(GATEHOUSE_FULL, "gatehouse"), (REST_API_DEFAULTS, "rest_api, defaults"), (REST_API_BEST, "rest_api, best")]
    columns = [(job, title) for job, title in columns if report.runs_of(big, job)]
    median = lambda job, metric: report.median(big, job, metric)  # noqa: E731
    rows = [
        ["full load, wall s"] + [fmt(median(job, wall)) for job, _ in columns] + [f"{floor.seconds:.1f}"],
        ["requests"] + [fmt(median(job, requests), "{:,.0f}") for job, _ in columns] + [f"{floor.requests:,}"],
        ["peak memory, MB"] + [fmt(median(job, peak_mb), "{:,.0f}") for job, _ in columns] + [""],
        ["rows/s"] + [fmt(median(job, lambda r: r.rows_per_s), "{:,.0f}") for job, _ in columns] + [""],
    ]
    rows.insert(
        1,
        ["full load / floor"]
        + [fmt(median(job, wall) / floor.seconds if median(job, wall) else None, "{:.2f}x") for job, _ in columns]
        + ["1.00x"],
    )
    rows.append(
        ["requests/s overall"]
        + [fmt(median(job, lambda r: r.request_rate or 0.0)) for job, _ in columns]
        + [f"{report.rate_limit.per_second:g}"]
    )
    rows.append(
        ["last request to end of run, s"]
        + [fmt(median(job, lambda r: r.after_last_request_s or 0.0)) for job, _ in columns]
        + [""]
    )
    rerun = report.median(big, GATEHOUSE_RERUN, wall)
    if rerun is not None:
        rerun_floor = report.rerun_floor(big).seconds
        rows.append(
            ["no-change rerun, wall s", fmt(rerun)] + ["reloads everything"] * (len(columns) - 1) + [f"{rerun_floor:.1f}"]
        )
        rows.append(["no-change rerun / its floor", f"{rerun / rerun_floor:.2f}x"] + [""] * (len(columns) - 1) + ["1.00x"])
        rows.append(
            ["no-change rerun, rows normalised", fmt(report.median(big, GATEHOUSE_RERUN, lambda r: r.rows), "{:,.0f}")]
            + [""] * (len(columns) - 1)
            + [""]
        )
    return [
        "## Benchmarks",
        "",
        f"`make bench` serves the console twin's {big} organisation ({shape.listed.get('gates', 0):,} listed gates,"
        f" {shape.listed.get('dynamic_configs', 0):,} dynamic configs, {shape.experiments:,} experiments,"
        f" {shape.ingestion_runs:,} ingestion runs) on loopback with {report.latency_ms} ms latency and a rate limit"
        f" of {report.rate_limit}, and loads it into DuckDB with gatehouse and with what a dlt user would otherwise"
        f" write, dlt's generic `rest_api` source over the same endpoints. The floor is the fewest requests that can"
        f" fetch the organisation divided by the rate limit.",
        "",
        *table([big] + [title for _, title in columns] + ["floor"], rows),
        "",
        f"Measured on {report.machine.get('cpu', 'this machine')}, {report.machine.get('date', '')}. Medium"
        " organisation, the reruns, where the time goes and which targets hold: [bench/RESULTS.md](bench/RESULTS.md).",
    ]


def render(report: BenchReport, findings: Iterable[str] = ()) -> str:
    page_cap = "no cap (each list is one page)" if report.max_page_size is None else f"{report.max_page_size:,} items"
    reps = ", ".join(f"{size} ×{count}" for size, count in report.reps.items())
    lines = [
        "# Benchmark results",
        "",
        f"Generated by `{report.command}` (bench/run.py) in {report.elapsed_s / 60:.1f} min. Console twin on 127.0.0.1 in its"
        f" own process: {report.latency_ms} ms latency per request, rate limit {report.rate_limit}"
        f" (answers 429 with Retry-After beyond it), page size cap: {page_cap}. gatehouse is configured with the"
        f" same rate limit. Each job runs in its own process; figures are medians over repetitions ({reps}),"
        " ratios are medians of ratios paired within a repetition.",
        "",
        "Wall time is the run itself (`run_extraction`, views included; `pipeline.run` for the alternative);"
        " requests and 429s are counted by the twin; rows are every row normalised, nested tables included;"
        " peak RSS is the job's resident set plus what the processes it starts hold alone (dlt's forked"
        " normalize workers share the job's pages; summing resident sets would count those twice).",
        "",
        "## Results",
        "",
        *results_table(report),
        "",
        "## gatehouse / rest_api alternative (full load, same twin, same rate limit)",
        "",
        *ratio_table(report),
        "",
        "## The floor",
        "",
        f"The fewest requests that fetch the organisation: each list in one page (the twin allows any `limit`)"
        f" plus one request per holdout, experiment and ingestion run; divided by the rate limit ({report.rate_limit}).",
        'A rerun cannot skip the lists (no "modified since" filter) nor holdouts, but can skip concluded'
        " experiments, settled (complete) runs and quiet runs not due for their weekly re-check.",
        "",
        *floor_table(report),
        "",
        "## Where the time goes",
        "",
        *steps_table(report),
        "",
        "## Targets",
        "",
        *targets_table(check_targets(report)),
        "",
    ]
    findings = list(findings)
    if findings:
        lines += ["## What stands in the way", "", *findings, ""]
    lines += ["## Machine", "", *(f"- {name}: {value}" for name, value in report.machine.items()), ""]
    lines += [
        "## README section",
        "",
        "To paste into README.md (figures from this run):",
        "",
        "```markdown",
        *readme_section(report),
        "```",
        "",
    ]
    return "\n".join(lines)
