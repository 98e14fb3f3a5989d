"""`make bench`: what one `gatehouse run` costs in CPU, a first load and a rerun that changed nothing.

A scheduler's worker runs project after project in one process, and the test suite runs hundreds of loads of the
small twin organisation: what a run costs there is mostly fixed, per run, not per row. The small twin (seed 5) is
served from its own process (`bench.twin_control`: its CPU never counts), without latency or throttling. A measuring
process loads it twice first (imports, caches: what a worker has after its first project), then `--runs` times a
first load into a new DuckDB file and a rerun into it, each timed as the CPU of the process and its children (dlt's
normalize workers), in the order a worker would run them.

With `--against REV`, REV's code (a `git archive` of it under bench/out/) is measured the same way, in a process of
its own, the two sides taking turns round by round on the same twin: the machine is shared and noisy, so the
figures are medians, and each side's ratio to REV's is what compares them.

    python -m bench.run_cost                          # this checkout alone (its own ratio is 1)
    python -m bench.run_cost --against main --runs 5 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import logging
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.machine import machine_description
from bench.processes import REPO, TwinProcess, child_environment
from bench.results_md import OUT_DIR, RUN_COST_SECTION, publish

log = logging.getLogger("bench.run_cost")
SIZE, SEED = "small", 5
# No throttling: the twin answers as fast as it can, and the rate limit's waits are not CPU.
TWIN_RATE_LIMIT = "100000/1"
PACKAGES = ("sources", "pipelines", "console_twin", "notebooks", "dbt")  # pyproject.toml's package-dir
KINDS = ("first load", "rerun")


def cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def measure_runs(twin: dict[str, Any], runs: int, workdir: Path) -> dict[str, list[float]]:
    """In the measuring process: two warm-up runs, then `runs` first loads and reruns, CPU seconds each."""
    logging.disable(logging.WARNING)
    from gatehouse.pipelines.run.options import RunOptions
    from gatehouse.pipelines.run.steps import run_extraction
    from gatehouse.pipelines.warehouse.destination import Destination

    source_args = {
        "base_url": twin["base_url"],
        "api_key": twin["api_key"],
        "experiment_ids": twin["experiment_ids"],
        "ingestion_run_ids": twin["ingestion_run_ids"],
    }

    def load(path: Path) -> float:
        started = cpu_seconds()
        run_extraction(RunOptions(destination=Destination(duckdb_path=path), progress=False, source_args=source_args))
        return cpu_seconds() - started

    load(workdir / "warm.duckdb")
    load(workdir / "warm.duckdb")
    figures: dict[str, list[float]] = {kind: [] for kind in KINDS}
    for number in range(runs):
        path = workdir / f"run-{number}.duckdb"
        figures[KINDS[0]].append(load(path))
        figures[KINDS[1]].append(load(path))
    return figures


def code_of(revision: str | None, root: Path) -> Path:
    """A folder whose `gatehouse` package is the code of `revision` (None: this checkout), for PYTHONPATH."""
    name = revision or "checkout"
    tree = REPO if revision is None else root / "trees" / name
    if revision is not None and not tree.exists():
        tree.mkdir(parents=True)
        archive = subprocess.run(["git", "archive", revision], cwd=REPO, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    path = root / "paths" / name
    package = path / "gatehouse"
    package.mkdir(parents=True, exist_ok=True)
    for folder in PACKAGES:
        link = package / folder
        if not link.is_symlink():
            link.symlink_to(tree / folder)
    return path


def measure_side(code: Path, twin: dict[str, Any], runs: int, workdir: Path) -> dict[str, list[float]]:
    """One measuring process importing gatehouse from `code`."""
    workdir.mkdir(parents=True)
    env = child_environment()
    env["PYTHONPATH"] = f"{code}:{env['PYTHONPATH']}"
    command = [sys.executable, "-m", "bench.run_cost", "--measure", json.dumps(twin), "--runs", str(runs)]
    done = subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(f"the measuring process failed ({done.returncode}):\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def section(sides: dict[str, dict[str, list[float]]], anchor: str, args: argparse.Namespace) -> str:
    def median(side: str, kind: str) -> float:
        return statistics.median(sides[side][kind])

    against = f" --against {args.against}" if args.against else ""
    rows = [
        f"| {side} | {median(side, KINDS[0]):.2f} | {median(side, KINDS[0]) / median(anchor, KINDS[0]):.2f}"
        f" | {median(side, KINDS[1]):.2f} | {median(side, KINDS[1]) / median(anchor, KINDS[1]):.2f}"
        f" | {len(sides[side][KINDS[0]])} |"
        for side in sides
    ]
    return "\n".join([
        f"{RUN_COST_SECTION} (the {SIZE} organisation, CPU seconds, medians)",
        "",
        f"`python -m bench.run_cost{against} --runs {args.runs} --rounds {args.rounds}`, {machine_description()['date']}:"
        f" the {SIZE} twin (seed {SEED}) in its own process, no latency, no throttling; in one process per side, after"
        " two warm-up runs, a first load into a new DuckDB file and a rerun that changes nothing, CPU of the process"
        f" and its children; the sides take turns, round by round. Ratios are to {anchor}'s medians.",
        "",
        "| code | first load s | ratio | rerun s | ratio | runs |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
        *rows,
        "",
    ])  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.run_cost", description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", help="a git revision measured side by side, the anchor of the ratios")
    parser.add_argument("--runs", type=int, default=5, help="first loads and reruns per round and side")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--no-write", action="store_true", help="print the section instead of writing RESULTS.md")
    parser.add_argument("--measure", help=argparse.SUPPRESS)  # the measuring process: the twin as JSON
    args = parser.parse_args(argv)
    if args.measure:
        with tempfile.TemporaryDirectory(prefix="gatehouse-run-cost-") as workdir:
            print(json.dumps(measure_runs(json.loads(args.measure), args.runs, Path(workdir))))
        return 0
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S", stream=sys.stderr)
    root = OUT_DIR / "run-cost"
    codes = {"this checkout": code_of(None, root)}
    if args.against:
        codes = {args.against: code_of(args.against, root), **codes}
    sides: dict[str, dict[str, list[float]]] = {side: {kind: [] for kind in KINDS} for side in codes}
    twin_process = TwinProcess(SIZE, 0, TWIN_RATE_LIMIT, seed=SEED)
    try:
        twin = {"base_url": twin_process.base_url, "api_key": twin_process.api_key, **twin_process.ask("ids")}
        with tempfile.TemporaryDirectory(prefix="gatehouse-run-cost-") as scratch:
            for number in range(args.rounds):
                order = list(codes) if number % 2 == 0 else list(codes)[::-1]
                for side in order:
                    figures = measure_side(codes[side], twin, args.runs, Path(scratch) / f"{number}-{list(codes).index(side)}")
                    for kind in KINDS:
                        sides[side][kind].extend(figures[kind])
                    log.info("round %d %s: %s", number + 1, side, {k: [round(v, 2) for v in figures[k]] for k in KINDS})
    finally:
        twin_process.close()
    publish(RUN_COST_SECTION, section(sides, args.against or "this checkout", args), args.no_write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
