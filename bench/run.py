"""`make bench`: gatehouse against the rate-limit floor and against dlt's rest_api source, side by side.

For each organisation size and repetition a fresh console twin is started in its own process; then
each job runs in its own process against it: gatehouse's full load, its no-change rerun, its rerun
after the twin advanced one day, and the rest_api alternative's full load with its defaults and with
its best settings. The order of gatehouse and the alternative alternates between repetitions, so a
slow spell of the (shared) machine does not always hit the same side.

    python -m bench.run            # medium ×3, large ×1, writes bench/RESULTS.md (about 15 minutes)
    python -m bench.run --quick    # medium ×1, writes bench/out/RESULTS-quick.md
    python -m bench.run --render bench/out/run-.../runs.json   # rewrite RESULTS.md from recorded runs

Then (not with --quick) the code-references scan bench, bench/code_refs.py, writes its own section.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from bench import code_refs
from bench.findings import findings
from bench.floor import OrganisationShape, RateLimit
from bench.machine import machine_description
from bench.processes import JOB_TIMEOUT_S, REPO, Measured, TwinProcess, run_job
from bench.results import (
    ALTERNATIVES,
    GATEHOUSE_FULL,
    GATEHOUSE_NEXT_DAY,
    GATEHOUSE_RERUN,
    JOB_TITLES,
    REST_API_BEST,
    REST_API_DEFAULTS,
    BenchReport,
    JobRun,
    render,
)
from bench.results_md import OUT_DIR, RESULTS_MD, sections_owned_elsewhere
from bench.twin_control import LIST_ENDPOINTS

log = logging.getLogger("bench")


def phases_summary(phases: dict[str, dict[str, float]]) -> tuple[float | None, float | None, int]:
    """(seconds spent on lists, requests per second from the first request to the last, requests) from the twin's phases."""
    lists = [phases[name] for name in LIST_ENDPOINTS if name in phases]
    lists_s = max(p["last_s"] for p in lists) - min(p["first_s"] for p in lists) if lists else None
    requests = int(sum(p.get("requests", 0) for p in phases.values()))
    rate = None
    if phases:
        span = max(p["last_s"] for p in phases.values()) - min(p["first_s"] for p in phases.values())
        rate = requests / span if span > 0 else None
    return lists_s, rate, requests


def job_run(size: str, rep: int, job: str, measured: Measured, traffic: dict[str, Any]) -> JobRun:
    result = measured.result
    lists_s, request_rate, _ = phases_summary(traffic.get("phases", {}))
    while_listing = traffic.get("requests_while_listing")
    run = JobRun(
        size=size,
        rep=rep,
        job=job,
        ok=bool(result.get("ok")) and measured.returncode == 0,
        wall_s=result.get("wall_s", 0.0),
        process_wall_s=measured.process_wall_s,
        requests=traffic.get("requests", 0),
        throttled=traffic.get("throttled", 0),
        rows=sum(result.get("rows", {}).values()),
        peak_rss_bytes=measured.peak_rss_bytes,
        steps=result.get("steps", {}),
        lists_s=lists_s,
        list_requests=int(sum(traffic.get("by_endpoint", {}).get(name, 0) for name in LIST_ENDPOINTS)),
        request_rate=request_rate,
        listing_rate=while_listing / lists_s if lists_s and while_listing is not None else None,
        peak_by_step=peak_by_step(measured, result.get("step_starts", {})),
        after_last_request_s=after_last_request(result, traffic),
        error=result.get("error"),
        timeline=traffic.get("timeline", []),
    )
    if job not in ALTERNATIVES:
        run.new_versions = sum(result.get("new_versions", {}).values())
        run.rows_by_table = dict(result.get("rows", {}))
        run.unchanged_items = sum(result.get("unchanged", {}).values())
        run.settled_runs_requested = traffic.get("settled_runs_requested", 0)
    return run


def after_last_request(result: dict[str, Any], traffic: dict[str, Any]) -> float | None:
    """Seconds from the last request's arrival at the twin to the end of the run (both time.monotonic())."""
    ended, last = result.get("ended_at"), traffic.get("last_request_at")
    return ended - last if ended is not None and last is not None else None


def peak_by_step(measured: Measured, starts: dict[str, float]) -> dict[str, int]:
    """The highest resident memory sampled while each dlt step ran (step_starts: seconds since the job began)."""
    order = sorted((start, step) for step, start in starts.items() if step in ("extract", "normalize", "load"))
    peaks: dict[str, int] = {}
    for index, (start, step) in enumerate(order):
        end = order[index + 1][0] if index + 1 < len(order) else float("inf")
        inside = [rss for at, rss in measured.rss_timeline if start <= at < end]
        if inside:
            peaks[step] = max(inside)
    return peaks


class Bench:
    def __init__(self, args: argparse.Namespace, workroot: Path) -> None:
        self.args = args
        self.workroot = workroot
        self.rate_limit: RateLimit = args.rate_limit
        self.runs: list[JobRun] = []
        self.shapes: dict[str, OrganisationShape] = {}
        self.max_page_size: int | None = None

    def run_size(self, size: str, reps: int) -> None:
        for rep in range(reps):
            with TwinProcess(
                size, self.args.latency_ms, f"{self.rate_limit.requests}/{self.rate_limit.window_s:g}", logdir=self.workroot
            ) as twin:
                answer = twin.ask("shape")
                self.shapes.setdefault(size, OrganisationShape.from_dict(answer["shape"]))
                self.max_page_size = answer["max_limit"]
                ids = twin.ask("ids")
                alternatives = [] if self.args.no_alternative else [REST_API_DEFAULTS, REST_API_BEST]
                # Alternate who goes first; the alternative only reads, so the twin is unchanged for gatehouse.
                if rep % 2 == 0:
                    order = [GATEHOUSE_FULL, GATEHOUSE_RERUN, *alternatives]
                else:
                    order = [*alternatives, GATEHOUSE_FULL, GATEHOUSE_RERUN]
                for job in order:
                    self.measure(twin, size, rep, job, ids)
                    if job == GATEHOUSE_FULL:
                        # Runs settled now must never be requested again, by the rerun nor after the advance.
                        twin.ask("mark_settled")
                twin.ask("advance", days=1)
                # A scheduler that lists the runs to follow passes the new day's runs too.
                self.measure(twin, size, rep, GATEHOUSE_NEXT_DAY, twin.ask("ids"))

    def measure(self, twin: TwinProcess, size: str, rep: int, job: str, ids: dict[str, list[str]]) -> JobRun:
        alternative = job in ALTERNATIVES
        # gatehouse's three jobs share one database and state, as three scheduled runs would.
        workdir = self.workroot / size / f"rep{rep}" / (job if alternative else "gatehouse")
        spec = {
            "kind": "rest_api" if alternative else "gatehouse",
            "variant": job.removeprefix("rest_api_") if alternative else None,
            "workdir": str(workdir),
            "base_url": twin.base_url,
            "api_key": twin.api_key,
            "ids": ids,
            "rate_limit": [self.rate_limit.requests, self.rate_limit.window_s],
        }
        time.sleep(self.rate_limit.window_s)  # the previous job's requests leave the twin's window
        twin.ask("begin")
        measured = run_job(spec, workdir / job, JOB_TIMEOUT_S)
        traffic = twin.ask("traffic")
        run = job_run(size, rep, job, measured, traffic)
        self.runs.append(run)
        if run.ok:
            log.info(
                "%s #%d %-30s %6.1f s  %5d requests (%d throttled)  %8d rows  %4.0f MB",
                size,
                rep + 1,
                JOB_TITLES[job],
                run.wall_s,
                run.requests,
                run.throttled,
                run.rows,
                run.peak_rss_mb,
            )
        else:
            log.warning("%s #%d %s failed: %s (see %s)", size, rep + 1, JOB_TITLES[job], run.error, workdir / job)
        return run


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.run", description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="medium organisation only, one repetition")
    parser.add_argument("--sizes", help="comma-separated organisation sizes (default medium,large)")
    parser.add_argument("--reps-medium", type=int, default=3)
    parser.add_argument("--reps-large", type=int, default=1)
    parser.add_argument("--latency-ms", type=int, default=50, help="the twin's latency per request (default 50)")
    parser.add_argument(
        "--rate-limit",
        type=RateLimit.parse,
        default=RateLimit(50, 1.0),
        help="N/SECONDS for the twin and gatehouse (default 50/1)",
    )
    parser.add_argument("--no-alternative", action="store_true", help="measure gatehouse only")
    parser.add_argument("--no-code-refs", action="store_true", help="skip the code-references scan bench (bench/code_refs.py)")
    parser.add_argument("--out", type=Path, help="Markdown results (default bench/RESULTS.md; --quick: bench/out/)")
    parser.add_argument(
        "--render",
        type=Path,
        metavar="RUNS_JSON",
        help="measure nothing: write the results of an earlier run (bench/out/run-*/runs.json)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S", stream=sys.stderr)
    args = parse_args(argv)
    if args.render:
        report = BenchReport.from_dict(json.loads(args.render.read_text()))
        write_results(report, args.out or RESULTS_MD)
        return 0
    sizes = ["medium"] if args.quick else (args.sizes.split(",") if args.sizes else ["medium", "large"])
    reps = {size: 1 if args.quick else (args.reps_large if size == "large" else args.reps_medium) for size in sizes}
    out = args.out or (OUT_DIR / "RESULTS-quick.md" if args.quick else RESULTS_MD)
    workroot = OUT_DIR / dt.datetime.now().strftime("run-%Y%m%d-%H%M%S")
    workroot.mkdir(parents=True, exist_ok=True)
    machine = machine_description()
    started = time.perf_counter()
    bench = Bench(args, workroot)
    for size in sizes:
        bench.run_size(size, reps[size])
    machine["load average at end"] = " ".join(f"{value:.2f}" for value in os.getloadavg())
    command = (
        "make bench"
        if argv is None and sys.argv[1:] == []
        else "python -m bench.run " + shlex.join(sys.argv[1:] if argv is None else argv)
    )
    report = BenchReport(
        machine=machine,
        latency_ms=args.latency_ms,
        rate_limit=args.rate_limit,
        reps=reps,
        shapes=bench.shapes,
        max_page_size=bench.max_page_size,
        runs=bench.runs,
        elapsed_s=time.perf_counter() - started,
        command=command,
    )
    (workroot / "runs.json").write_text(json.dumps(report.to_dict(), indent=2))
    write_results(report, out)
    log.info("raw runs: %s; %.1f min", workroot / "runs.json", report.elapsed_s / 60)
    if not (args.quick or args.no_code_refs):
        code_refs.main(["--out", str(out)])
    return 0 if all(run.ok for run in bench.runs) else 1


def write_results(report: BenchReport, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    kept = sections_owned_elsewhere(out)
    out.write_text(render(report, findings(report)) + (f"\n{kept}" if kept else ""))
    log.info("wrote %s", out.relative_to(REPO) if out.is_relative_to(REPO) else out)
    print(out.read_text())


if __name__ == "__main__":
    raise SystemExit(main())
