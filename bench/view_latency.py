"""How long each analysis view takes on PostgreSQL, read whole and read for one project.

    python -m bench.view_latency --label after                       # 3 repetitions, writes bench/out/view-latency-after.json
    python -m bench.view_latency --label after --before bench/out/view-latency-before.json --write   # and RESULTS.md
    python -m bench.view_latency --size medium --timeout 120 --label medium-after   # an organisation's scale

Two organisations of the console twin (seeds 3 and 8; `--size`, small by default: about 60 gates each, medium
2,000) are loaded with `gatehouse run`'s own steps into a PostgreSQL server started from the `pgserver` wheel, as two
projects (`web`, `mobile`), the raw tables analyzed as every load leaves them. Then every view of `analytics` is timed
as a reader meets it: `select count(*)` over every project, and `select *` for the project `web`, each the median of
the repetitions. PostgreSQL plans the views from estimates it cannot make for CTEs (one row where there are
thousands): a model that joins on an inequality or back to itself becomes nested loops there, seconds where DuckDB
takes milliseconds, and grows with the square of the organisation (the medium size shows it). Run once on the models
before a change (`--label before`) and once after, the section sets the two side by side, one subsection per size; a
view slower than `TARGET_S` in either reading is marked.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import time
from pathlib import Path

from bench.machine import machine_description
from bench.postgres_server import PostgresServer
from bench.results_md import OUT_DIR, RESULTS_MD, VIEW_LATENCY_SECTION, write_section
from gatehouse.console_twin import SIZES

log = logging.getLogger("bench.view_latency")

TARGET_S = 0.5
# The two projects: the twin's seed of each, and the API key of its console.
PROJECTS = {"web": (3, None), "mobile": (8, "console-Vw3Nb8Qs5Ty2Lk7Rx4")}


def load(workdir: Path, credentials: str, size: str = "small") -> None:
    """The two organisations of `size` loaded into PostgreSQL, the views applied, as `gatehouse run` does."""
    from gatehouse.console_twin import ConsoleTwin, TwinSettings
    from gatehouse.pipelines.run.consoles import run_projects
    from gatehouse.pipelines.run.steps import RunOptions
    from gatehouse.pipelines.warehouse.destination import Destination

    os.environ["DESTINATION__POSTGRES__CREDENTIALS"] = credentials
    os.environ["DLT_DATA_DIR"] = str(workdir / "dlt")
    os.environ.setdefault("RUNTIME__LOG_LEVEL", "ERROR")
    twins = {
        name: ConsoleTwin(size=size, seed=seed, settings=TwinSettings(api_key=key) if key else None)
        for name, (seed, key) in PROJECTS.items()
    }
    with twins["web"].serve() as web, twins["mobile"].serve() as mobile:
        for name, url in (("web", web), ("mobile", mobile)):
            prefix = f"SOURCES__CONSOLE__PROJECTS__{name.upper()}__"
            os.environ[prefix + "BASE_URL"] = url
            os.environ[prefix + "API_KEY"] = twins[name].settings.api_key
            os.environ[prefix + "EXPERIMENT_IDS"] = json.dumps(twins[name].experiment_ids)
            os.environ[prefix + "INGESTION_RUN_IDS"] = json.dumps(twins[name].ingestion_run_ids)
        cwd = Path.cwd()
        os.chdir(workdir)
        try:
            run_projects(RunOptions(destination=Destination(name="postgres"), progress=False), sorted(PROJECTS))
        finally:
            os.chdir(cwd)


def timed(cursor, sql: str) -> float:
    """Seconds to read `sql` whole; a read the statement timeout stopped counts as the time it ran."""
    from psycopg2.errors import QueryCanceled

    started = time.perf_counter()
    try:
        cursor.execute(sql)
        cursor.fetchall()
    except QueryCanceled:
        pass
    return time.perf_counter() - started


def measure(reps: int, workdir: Path, size: str = "small", timeout_s: float | None = None) -> dict:
    """`timeout_s`: each read is stopped there (the models as they were can take minutes a view at the medium size)."""
    import psycopg2

    workdir.mkdir(parents=True, exist_ok=True)
    server = PostgresServer(timezone="UTC").start()
    try:
        credentials = server.database("view_latency")
        started = time.perf_counter()
        load(workdir, credentials, size)
        load_s = time.perf_counter() - started
        connection = psycopg2.connect(credentials)
        connection.autocommit = True
        cursor = connection.cursor()
        if timeout_s:
            cursor.execute(f"set statement_timeout = {int(timeout_s * 1000)}")
        cursor.execute(
            "select table_name, bool_or(column_name = 'project') from information_schema.columns"
            " where table_schema = 'analytics' and table_name in"
            " (select table_name from information_schema.views where table_schema = 'analytics')"
            " group by table_name order by table_name"
        )
        views = cursor.fetchall()
        times: dict[str, dict[str, list[float]]] = {view: {"all": [], "web": []} for view, _ in views}
        for rep in range(reps):
            for view, has_project in views:
                times[view]["all"].append(timed(cursor, f"select count(*) from analytics.{view}"))
                if has_project:
                    times[view]["web"].append(timed(cursor, f"select * from analytics.{view} where project = 'web'"))
            log.info("rep %d done", rep + 1)
        connection.close()
    finally:
        server.stop()
    return {
        "reps": reps,
        "size": size,
        "timeout_s": timeout_s,
        "load_s": load_s,
        "times": times,
        "machine": machine_description(),
    }


def medians(result: dict) -> dict[str, tuple[float, float | None]]:
    return {
        view: (statistics.median(t["all"]), statistics.median(t["web"]) if t["web"] else None)
        for view, t in result["times"].items()
    }


EXPLANATION = (
    "PostgreSQL sizes a CTE it cannot see into (a window, an aggregate, a union of the projects or of the two entity"
    " kinds, a join on `project` and a key) at one row, and then runs nested loops that compute the inner side again"
    " for every outer row: quadratic in the gates, configs, sources or experiments. The models read each series once"
    " with windows (`exposure_srm_daily`, `exposure_srm_expected_shares`, the verdicts of `exposure_srm`), compute the"
    " p-values on the rows they belong to (`exposure_srm`), take the latest sighting before an answer change as a"
    " running max (`gate_lifecycle`'s `answer_changes`) instead of a join on `load_id <`, and join outer from the"
    " relation PostgreSQL sizes right, keeping the matched rows by a filter it cannot see through (`current_gates`,"
    " `current_dynamic_configs`, `gate_lifecycle`, `int_gate_dependencies`, `exposure_growth`,"
    " `ingestion_source_health`). `join_on` writes the project term `is not distinct from`, which PostgreSQL filters"
    " on instead of merging a join on project alone (every pair of a project compared). The same rows on every"
    " warehouse (tests/views). Left: read for one project, `exposure_srm` (and `experiment_health`, which reads it)"
    " still computes the daily test's last day once per experiment, a join whose two sides PostgreSQL sizes at one"
    " row each; the organisations here have no code scans, so the code evidence's joins are not measured."
)


def render(after: dict, before: dict | None) -> str:
    """One size's subsection of the section: its heading, how it was measured, the table."""
    now = medians(after)
    then = medians(before) if before else {}
    size = after.get("size", "small")
    # the views worth a line: slower than a tenth of the target before or after
    shown = [v for v in now if max(x or 0 for x in (*now[v], *then.get(v, (0, 0)))) >= TARGET_S / 10]
    slow_after = [v for v in now if max(x or 0 for x in now[v]) > TARGET_S]

    def cell(value: float | None, result: dict) -> str:
        if value is None:
            return ""
        if result.get("timeout_s") and value >= result["timeout_s"]:
            return f"> {result['timeout_s']:.0f} ⚠"
        return f"{value:.2f}" + (" ⚠" if value > TARGET_S else "")

    lines = [
        f"### {size.capitalize()} organisations ({SIZES[size].gates:,} gates each)",
        "",
        f"`python -m bench.view_latency --size {size}"
        + (f" --timeout {after['timeout_s']:.0f}" if after.get("timeout_s") else "")
        + f"`, {after['machine']['date']}, {after['machine']['cpu']},"
        f" load average {after['machine'].get('load average at start', 'not recorded')}. Two {size} organisations of the twin"
        f" loaded into PostgreSQL as two projects ({after['load_s']:.0f} s), then every view read as `select count(*)`"
        f" over both projects and as `select *` for one (`where project = 'web'`), median of {after['reps']}"
        + (f" (before: {before['reps']}, on the models as they were)" if before else "")
        + ", seconds"
        + "".join(
            f" (a read stopped at {timeout:.0f} s shows as > {timeout:.0f})"
            for timeout in sorted({result["timeout_s"] for result in (after, before or {}) if result.get("timeout_s")})
        )
        + f"; target under {TARGET_S} s each (⚠ above it). Views under a tenth of the target in both runs"
        " are left out.",
        "",
        "| view | before, all | before, one project | after, all | after, one project |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for view in shown:
        old = then.get(view, (None, None))
        lines.append(
            f"| `{view}` | {cell(old[0], before or {})} | {cell(old[1], before or {})}"
            f" | {cell(now[view][0], after)} | {cell(now[view][1], after)} |"
        )
    lines += ["", f"Above the target after: {', '.join(f'`{v}`' for v in slow_after) or 'none'}.", ""]
    return "\n".join(lines)


def section(subsection: str, current: str) -> str:
    """The whole section with `subsection` in place of the one of its size (the other sizes' kept as they are)."""
    heading = subsection.split("\n", 1)[0]
    kept = [
        "### " + part.rstrip("\n") + "\n"
        for part in current.partition(VIEW_LATENCY_SECTION)[2].split("\n## ", 1)[0].split("\n### ")[1:]
        if not ("### " + part).startswith(heading.split(" (")[0])
    ]
    ordered = sorted(
        [*kept, subsection],
        key=lambda text: next((i for i, size in enumerate(SIZES) if text.startswith(f"### {size.capitalize()} ")), 0),
    )
    return "\n".join([VIEW_LATENCY_SECTION, "", EXPLANATION, "", *ordered])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--size", choices=sorted(SIZES), default="small", help="the twin organisations' size")
    parser.add_argument("--timeout", type=float, help="seconds after which a read is stopped (shown as '> N')")
    parser.add_argument("--label", default="after", help="names the JSON written to bench/out/")
    parser.add_argument("--before", type=Path, help="a JSON of an earlier run: the section sets the two side by side")
    parser.add_argument("--after", type=Path, help="render this JSON of an earlier run instead of measuring")
    parser.add_argument("--write", action="store_true", help="write the section of RESULTS.md (else print it)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    if args.after:
        result = json.loads(args.after.read_text(encoding="utf-8"))
    else:
        result = measure(args.reps, OUT_DIR / f"view-latency-{args.label}-{int(time.time())}", args.size, args.timeout)
        out = OUT_DIR / f"view-latency-{args.label}.json"
        out.write_text(json.dumps(result, indent=1), encoding="utf-8")
        log.info("wrote %s", out)
    before = json.loads(args.before.read_text(encoding="utf-8")) if args.before else None
    text = render(result, before)
    if args.write:
        write_section(VIEW_LATENCY_SECTION, section(text, RESULTS_MD.read_text(encoding="utf-8")))
        log.info("wrote %s", RESULTS_MD)
    else:
        print(text)


if __name__ == "__main__":
    main()
