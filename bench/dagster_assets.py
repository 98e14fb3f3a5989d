"""`make bench`: the Dagster assets against `gatehouse run`, on the large organisation (issue 25: at most 1.10x).

Each load runs in its own process (as a scheduler would start it: dlt picks its normalize workers per process,
and under Dagster it spawns rather than forks) into a fresh DuckDB file, from an in-process console twin of the
same seed, the sides alternating; the wall time of each is the whole call, imports excluded:
`run_extraction` for gatehouse, `dagster.materialize` of the `gatehouse_run` multi-asset (the run, the
views, the materialisation events) for Dagster.

    python -m bench.dagster_assets                 # large, 2 repetitions each
    python -m bench.dagster_assets --size medium --reps 1
"""

from __future__ import annotations

import argparse
import logging
import os
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

from bench.results_md import OUT_DIR

log = logging.getLogger("bench.dagster")
LIMIT = 1.10
BASE_URL = "http://console-twin.bench.invalid"


def source_args(size: str) -> dict[str, Any]:
    from gatehouse.console_twin import ConsoleTwin

    twin = ConsoleTwin(size=size, seed=0)
    # no client-side rate limit: the in-process twin has none, and the wait would hide the overhead measured
    return {"base_url": BASE_URL, "api_key": twin.settings.api_key, "experiment_ids": twin.experiment_ids,
            "ingestion_run_ids": twin.ingestion_run_ids, "transport": twin.transport(), "rate_limit_requests": 100000}


def time_gatehouse(size: str, work: Path) -> float:
    from gatehouse.pipelines.warehouse.destination import Destination
    from gatehouse.pipelines.run.steps import RunOptions, run_extraction

    args = source_args(size)
    started = time.perf_counter()
    run_extraction(RunOptions(destination=Destination(duckdb_path=work / "gatehouse.duckdb"), progress=False, source_args=args))
    return time.perf_counter() - started


def time_dagster(size: str, work: Path) -> float:
    import dagster

    from gatehouse.pipelines.schedule.dagster import GatehouseResource, gatehouse_run

    args = source_args(size)

    class BenchGatehouse(GatehouseResource):
        def source_args(self) -> dict[str, Any]:
            return args

    started = time.perf_counter()
    result = dagster.materialize([gatehouse_run], resources={"gatehouse": BenchGatehouse(duckdb=str(work / "gatehouse.duckdb"))})
    elapsed = time.perf_counter() - started
    assert result.success
    return elapsed


SIDES = {"gatehouse run": time_gatehouse, "dagster assets": time_dagster}


def measure_apart(name: str, size: str, work: Path) -> float:
    """One load in a new process: `python -m bench.dagster_assets --one NAME` prints its seconds as JSON."""
    done = subprocess.run([sys.executable, "-m", "bench.dagster_assets", "--one", name, "--size", size, "--work", str(work)],
                          check=True, capture_output=True, text=True, timeout=1800)
    return float(json.loads(done.stdout.strip().splitlines()[-1])["seconds"])


def main(argv: Optional[list[str]] = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S", stream=sys.stderr)
    parser = argparse.ArgumentParser(prog="python -m bench.dagster_assets", description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="large")
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--one", choices=list(SIDES), help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    os.environ.setdefault("RUNTIME__LOG_LEVEL", "ERROR")
    if args.one:
        logging.getLogger("dagster").setLevel(logging.WARNING)
        print(json.dumps({"seconds": SIDES[args.one](args.size, args.work)}))
        return 0
    times: dict[str, list[float]] = {"gatehouse run": [], "dagster assets": []}
    with tempfile.TemporaryDirectory(prefix="gatehouse-dagster-bench-") as root:
        for rep in range(args.reps):
            order = list(SIDES)
            for name in order if rep % 2 == 0 else order[::-1]:
                work = Path(root) / f"{name.replace(' ', '_')}{rep}"
                work.mkdir()
                times[name].append(measure_apart(name, args.size, work))
                log.info("%s #%d %-15s %6.1f s", args.size, rep + 1, name, times[name][-1])
    run, assets = (statistics.median(times[name]) for name in ("gatehouse run", "dagster assets"))
    ratio = assets / run
    lines = [
        f"## Dagster assets against gatehouse run ({args.size} organisation, {args.reps} each, median wall time)",
        "",
        f"| gatehouse run | Dagster assets | ratio | limit |",
        f"|---|---|---|---|",
        f"| {run:.1f} s | {assets:.1f} s | {ratio:.2f}x | {LIMIT:.2f}x |",
        "",
    ]
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    (OUT_DIR / f"dagster-{args.size}.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0 if ratio <= LIMIT else 1


if __name__ == "__main__":
    sys.exit(main())
