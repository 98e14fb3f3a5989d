"""`make bench`: three projects loaded side by side by one `gatehouse run`, against three runs one after another.

Three console twins (seeds 0, 1 and 2 of one size), each in its own process on loopback, answering as the
load bench's (50 ms a request, 50/1s each: every project has its own key and rate limit on the service).
Each side starts from a fresh DuckDB file and loads the same three projects, configured as a scheduler
would (environment variables `SOURCES__CONSOLE__PROJECTS__<NAME>__*`):

- three runs: `gatehouse run --project NAME`, one process after another, as three cron lines would;
- side by side: one `gatehouse run`, which loads every configured project.

The wall time of each side includes its processes' start-up; requests and 429s are counted by the twins;
peak memory is the largest resident set of the gatehouse process (and what its children hold alone).

    python -m bench.projects                     # large organisations, one repetition (about 5 minutes)
    python -m bench.projects --size medium --reps 3
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import psutil

from bench.machine import machine_description
from bench.processes import TwinProcess, child_environment, tree_rss
from bench.results_md import OUT_DIR, PROJECTS_SECTION, write_section

log = logging.getLogger("bench.projects")
PROJECTS = ("web", "mobile", "tools")
LATENCY_MS = 50
RATE_LIMIT = (50, 1.0)
SIDES = ("three runs, one after another", "one run, side by side")


def project_environment(twins: dict[str, TwinProcess]) -> dict[str, str]:
    """The three projects as environment variables, with the rate limit every console keeps to."""
    env = {"SOURCES__CONSOLE__RATE_LIMIT_REQUESTS": str(RATE_LIMIT[0]), "SOURCES__CONSOLE__RATE_LIMIT_WINDOW": str(RATE_LIMIT[1])}
    for name, twin in twins.items():
        ids = twin.ask("ids")
        prefix = f"SOURCES__CONSOLE__PROJECTS__{name.upper()}__"
        env.update({
            prefix + "BASE_URL": twin.base_url,
            prefix + "API_KEY": twin.api_key,
            prefix + "EXPERIMENT_IDS": json.dumps(ids["experiment_ids"]),
            prefix + "INGESTION_RUN_IDS": json.dumps(ids["ingestion_run_ids"]),
        })  # fmt: skip
    return env


def run_gatehouse(arguments: list[str], env: dict[str, str], workdir: Path) -> tuple[float, int]:
    """One `gatehouse run` process: its wall time and peak memory (bytes)."""
    command = [sys.executable, "-m", "gatehouse.pipelines.cli", "run", "--no-progress", *arguments]
    started = time.perf_counter()
    child = subprocess.Popen(command, cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    peak = 0
    done = threading.Event()

    def watch() -> None:
        nonlocal peak
        process = psutil.Process(child.pid)
        while not done.wait(0.2):
            peak = max(peak, tree_rss(process))

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    output, _ = child.communicate(timeout=3600)
    elapsed = time.perf_counter() - started
    done.set()
    watcher.join()
    if child.returncode != 0:
        raise RuntimeError(f"gatehouse run {' '.join(arguments)} failed ({child.returncode}):\n{output}")
    return elapsed, peak


def measure(side: str, twins: dict[str, TwinProcess], env: dict[str, str], workdir: Path) -> dict[str, Any]:
    database = str(workdir / "gatehouse.duckdb")
    for twin in twins.values():
        twin.ask("begin")
    if side == SIDES[0]:
        runs = [run_gatehouse(["--duckdb", database, "--project", name], env, workdir) for name in twins]
        wall, peak = sum(seconds for seconds, _ in runs), max(peak for _, peak in runs)
    else:
        wall, peak = run_gatehouse(["--duckdb", database], env, workdir)
    traffic = {name: twin.ask("traffic") for name, twin in twins.items()}
    time.sleep(RATE_LIMIT[1])  # the next side's requests start in an empty window
    return {
        "wall_s": wall,
        "peak_mb": peak / 2**20,
        "requests": sum(t["requests"] for t in traffic.values()),
        "throttled": sum(t["throttled"] for t in traffic.values()),
    }


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S", stream=sys.stderr)
    parser = argparse.ArgumentParser(prog="python -m bench.projects", description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="large")
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--no-write", action="store_true", help="print the section instead of writing RESULTS.md")
    args = parser.parse_args(argv)
    results: dict[str, list[dict[str, Any]]] = {side: [] for side in SIDES}
    rate = f"{RATE_LIMIT[0]}/{RATE_LIMIT[1]:g}"
    with tempfile.TemporaryDirectory(prefix="gatehouse-projects-bench-") as root:
        twins = {name: TwinProcess(args.size, LATENCY_MS, rate, seed=seed) for seed, name in enumerate(PROJECTS)}
        try:
            env = child_environment(project_environment(twins))
            for rep in range(args.reps):
                for side in SIDES if rep % 2 == 0 else SIDES[::-1]:
                    workdir = Path(root) / f"{rep}-{SIDES.index(side)}"
                    workdir.mkdir()
                    results[side].append(measure(side, twins, env, workdir))
                    log.info(
                        "%s #%d %-32s %6.1f s, %d requests, %d 429s, %.0f MB",
                        args.size,
                        rep + 1,
                        side,
                        results[side][-1]["wall_s"],
                        results[side][-1]["requests"],
                        results[side][-1]["throttled"],
                        results[side][-1]["peak_mb"],
                    )
        finally:
            for twin in twins.values():
                twin.close()

    def median(side: str, key: str) -> float:
        return statistics.median(result[key] for result in results[side])

    apart, together = SIDES
    ratio = median(together, "wall_s") / median(apart, "wall_s")
    lines = [
        f"{PROJECTS_SECTION} ({args.size} organisations, {args.reps} repetition{'s' if args.reps > 1 else ''}, medians)",
        "",
        f"`python -m bench.projects --size {args.size} --reps {args.reps}`, {machine_description()['date']}: three console"
        f" twins (seeds 0-2), each in its own process with its own rate limit ({LATENCY_MS} ms a request, {rate}s),"
        " loaded into a fresh DuckDB file by three `gatehouse run --project NAME` one after another, and by one"
        " `gatehouse run` that loads the three side by side (each project's requests paced by its own client; the"
        " file written by one project at a time). Wall time includes process start-up; requests and 429s counted by the twins.",
        "",
        "| three projects | wall s | requests | 429s | peak memory MB |",
        "| --- | ---: | ---: | ---: | ---: |",
        *(
            f"| {side} | {median(side, 'wall_s'):.1f} | {median(side, 'requests'):,.0f} | {median(side, 'throttled'):.0f} |"
            f" {median(side, 'peak_mb'):.0f} |"
            for side in SIDES
        ),
        "",
        f"Side by side takes {ratio:.2f}x the time of three runs one after another ({1 / ratio:.1f}x faster), with"
        f" {median(together, 'requests') - median(apart, 'requests'):+,.0f} requests.",
        "",
    ]
    text = "\n".join(lines)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    (OUT_DIR / f"projects-{args.size}.md").write_text(text)
    if not args.no_write:
        write_section(PROJECTS_SECTION, text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
