"""What the analysis layer costs on DuckDB and on PostgreSQL, side by side in one run.

    python -m bench.analysis_layer                 # large organisation, 3 repetitions (about 10 minutes)
    python -m bench.analysis_layer --size medium --reps 1

The organisation is served by the console twin (no latency, no rate limit: extraction is not what is
measured here) and loaded once into a DuckDB file and once into a PostgreSQL server started from the
`pgserver` wheel, each with `gatehouse run`. Then, alternating the two destinations in every repetition
so that a slow spell of the shared machine does not always hit the same one, it times as whole commands
`gatehouse views` (every view translated and re-applied) and `gatehouse report` (the three notebooks
executed headless, the summary printed), and what publishing the readers' snapshot of the DuckDB file costs.
The demo (`gatehouse run --demo`) is timed the same way in each repetition, as the yardstick a report is held to:
the report against the views on the same data, pair by pair. The medians go to a section of bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.machine import machine_description
from bench.postgres_server import PostgresServer
from bench.processes import child_environment
from bench.results_md import ANALYSIS_LAYER_SECTION as SECTION
from bench.results_md import OUT_DIR, publish
from gatehouse.console_twin import ConsoleTwin
from gatehouse.pipelines.warehouse.destination import Destination

log = logging.getLogger("bench")

COMMANDS = {"views": ["views"], "report": ["report", "--out", "reports"]}


def gatehouse(args: list[str], env: dict[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "gatehouse.pipelines.cli", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=1800)  # fmt: skip
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"gatehouse {' '.join(args)} failed: {done.stderr.strip().splitlines()[-1:]}")
    return elapsed


def measure(size: str, reps: int, workdir: Path) -> dict:
    workdir.mkdir(parents=True, exist_ok=True)
    twin = ConsoleTwin(size=size)
    server = PostgresServer().start()
    try:
        with twin.serve() as base_url:
            env = child_environment(
                {
                    "SOURCES__CONSOLE__BASE_URL": base_url,
                    "SOURCES__CONSOLE__API_KEY": twin.settings.api_key,
                    "SOURCES__CONSOLE__EXPERIMENT_IDS": json.dumps(twin.experiment_ids),
                    "SOURCES__CONSOLE__INGESTION_RUN_IDS": json.dumps(twin.ingestion_run_ids),
                    "SOURCES__CONSOLE__RATE_LIMIT_REQUESTS": "1000000",
                    "DESTINATION__POSTGRES__CREDENTIALS": server.database("gatehouse_bench"),
                    "DLT_DATA_DIR": str(workdir / "dlt"),
                    "RUNTIME__LOG_LEVEL": "ERROR",
                }
            )
            destinations = {"duckdb": ["--duckdb", "gatehouse.duckdb"], "postgres": ["--destination", "postgres"]}
            loads = {}
            for name, flags in destinations.items():
                log.info("loading the %s organisation into %s", size, name)
                loads[name] = gatehouse(["run", "--no-progress", *flags], env, workdir)
        log.info("loading the demo")
        gatehouse(["run", "--demo", "--no-progress", "--duckdb", "demo.duckdb"], env, workdir)
        destinations["demo"] = ["--duckdb", "demo.duckdb"]
        times: dict[str, dict[str, list[float]]] = {c: {d: [] for d in destinations} for c in COMMANDS}
        snapshots = [Destination(duckdb_path=workdir / "gatehouse.duckdb").snapshot.publish() for _ in range(reps)]
        snapshot = {"seconds": [s.seconds for s in snapshots], "mb": snapshots[-1].size_bytes / 1e6}
        for rep in range(reps):
            order = list(destinations) if rep % 2 == 0 else list(reversed(destinations))
            for command, args in COMMANDS.items():
                for name in order:
                    seconds = gatehouse([*args, *destinations[name]], env, workdir)
                    times[command][name].append(seconds)
                    log.info("rep %d: %s on %s %.1f s", rep + 1, command, name, seconds)
    finally:
        server.stop()
    return {"size": size, "reps": reps, "load_s": loads, "times": times, "snapshot": snapshot, "machine": machine_description()}


def render(result: dict) -> str:
    lines = [
        SECTION,
        "",
        f"`python -m bench.analysis_layer --size {result['size']} --reps {result['reps']}`, {result['machine']['date']},"
        f" {result['machine']['cpu']}. The {result['size']} organisation loaded once into each destination"
        f" (DuckDB {result['load_s']['duckdb']:.1f} s, PostgreSQL {result['load_s']['postgres']:.1f} s, no rate"
        " limit), then each command timed as a whole process, the destinations alternating.",
        "",
        "| median of " + str(result["reps"]) + ", s | DuckDB | PostgreSQL | PostgreSQL / DuckDB |",
        "| --- | ---: | ---: | ---: |",
    ]
    for command, per_destination in result["times"].items():
        duck, pg = (statistics.median(per_destination[d]) for d in ("duckdb", "postgres"))
        what = {
            "views": "`gatehouse views` (translate and apply every view)",
            "report": "`gatehouse report` (three notebooks and the summary)",
        }[command]
        lines.append(f"| {what} | {duck:.1f} | {pg:.1f} | {pg / duck:.2f}x |")
    demo = result["times"]["report"].get("demo")
    if demo:
        views = result["times"]["views"]["demo"]
        ratios = [report / view for report, view in zip(demo, views)]
        large = statistics.median(result["times"]["report"]["duckdb"])
        lines += [
            "",
            f"The report against the views on the demo (DuckDB), median of {len(demo)}: report"
            f" {statistics.median(demo):.1f} s, views {statistics.median(views):.1f} s, report / views"
            f" {statistics.median(ratios):.2f}x pair by pair (each: {', '.join(f'{r:.2f}' for r in ratios)}); the"
            f" {result['size']} organisation's report on DuckDB {large:.1f} s.",
        ]
    every = "; ".join(
        f"{command} on {d}: " + ", ".join(f"{s:.1f}" for s in result["times"][command][d])
        for command in result["times"]
        for d in result["times"][command]
    )
    snapshot = result["snapshot"]
    lines += [
        "",
        f"Every run, s: {every}.",
        "",
        f"The readers' snapshot each DuckDB run publishes (checkpoint, copy, atomic rename;"
        f" docs/reliability.md): {statistics.median(snapshot['seconds']):.2f} s (median of {len(snapshot['seconds'])}:"
        f" {', '.join(f'{s:.2f}' for s in snapshot['seconds'])}) for {snapshot['mb']:.0f} MB, as much disk again as the"
        " database.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="large", choices=("small", "medium", "large"))
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--no-write", action="store_true", help="print the section instead of writing RESULTS.md")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    workdir = OUT_DIR / f"analysis-{args.size}-{int(time.time())}"
    result = measure(args.size, args.reps, workdir)
    (workdir / "analysis_layer.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    text = render(result)
    publish(SECTION, text, args.no_write)


if __name__ == "__main__":
    main()
