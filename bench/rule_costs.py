"""What two extraction rules cost a rerun: late exposure series, and confirming absences from a list.

    python -m bench.rule_costs                  # medium organisation, 50 ms latency, 50/1s (about a minute)
    python -m bench.rule_costs --size large

Late series: a series lagging the service clock by up to `late_exposure_days` (4) is requested on every
run; before, one silent since before yesterday was concluded and skipped for a week. Absences: a gate
or dynamic config listed last run and missing now is confirmed (gate by id, configs by one more read
of the list) before it is retired. On the same twin as `bench.run` (its own process, one scheduled
run after another in one database), this measures gatehouse's no-change rerun against its own
request floor, that floor under the old rule and under the new one, and what the rerun after a day of
changes spends on confirmations.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

from bench.floor import OrganisationShape, RateLimit, rerun_floor
from bench.processes import JOB_TIMEOUT_S, TwinProcess, run_job
from bench.results_md import OUT_DIR
from gatehouse.console_twin import ConsoleTwin
from gatehouse.sources.console.exposures import has_concluded

log = logging.getLogger("bench")

# The rule before late series were told apart from concluded ones: silent since before yesterday.
OLD_LATE_DAYS = 1


def newest_days(twin: ConsoleTwin) -> dict[str, str]:
    org = twin.organisation
    return {
        experiment_id: max(point["date"] for group in org.cumulative_exposures(experiment_id) or [] for point in group["results"])
        for experiment_id in twin.experiment_ids
        if org.cumulative_exposures(experiment_id)
    }


def concluded(twin: ConsoleTwin, late_days: int) -> int:
    today = twin.now.date()
    return sum(has_concluded(day, today, late_days) for day in newest_days(twin).values())


def left_the_lists(size: str, seed: int) -> dict[str, int]:
    """Gates and configs listed now and not after one day: what the next-day rerun must confirm."""
    twin = ConsoleTwin(size=size, seed=seed)
    before = {
        "gates": {g["id"] for g in twin.organisation.listed_gates()},
        "dynamic_configs": {c["id"] for c in twin.organisation.listed_dynamic_configs()},
    }
    twin.advance(days=1)
    after = {
        "gates": {g["id"] for g in twin.organisation.listed_gates()},
        "dynamic_configs": {c["id"] for c in twin.organisation.listed_dynamic_configs()},
    }
    return {name: len(before[name] - after[name]) for name in before}


def measure(twin: TwinProcess, workdir: Path, job: str, ids: dict[str, list[str]], rate_limit: RateLimit) -> dict[str, Any]:
    spec = {
        "kind": "gatehouse",
        "variant": None,
        "workdir": str(workdir),
        "base_url": twin.base_url,
        "api_key": twin.api_key,
        "ids": ids,
        "rate_limit": [rate_limit.requests, rate_limit.window_s],
    }
    time.sleep(rate_limit.window_s)  # the previous job's requests leave the twin's window
    twin.ask("begin")
    measured = run_job(spec, workdir / job, JOB_TIMEOUT_S)
    traffic = twin.ask("traffic")
    if not (measured.result.get("ok") and measured.returncode == 0):
        raise SystemExit(f"{job} failed: {measured.result.get('error')} (see {workdir / job})")
    return {"wall_s": measured.result["wall_s"], **traffic}


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S", stream=sys.stderr)
    parser = argparse.ArgumentParser(prog="python -m bench.rule_costs", description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="medium")
    parser.add_argument("--latency-ms", type=int, default=50)
    parser.add_argument("--rate-limit", type=RateLimit.parse, default=RateLimit(50, 1.0))
    args = parser.parse_args(argv)
    rate_limit: RateLimit = args.rate_limit

    local = ConsoleTwin(size=args.size)  # the same organisation as the served one (seed 0), to count from
    concluded_old, concluded_new = concluded(local, OLD_LATE_DAYS), concluded(local, 4)
    workdir = OUT_DIR / time.strftime("rule-costs-%Y%m%d-%H%M%S")
    workdir.mkdir(parents=True, exist_ok=True)
    with TwinProcess(args.size, args.latency_ms, f"{rate_limit.requests}/{rate_limit.window_s:g}", logdir=workdir) as twin:
        shape = OrganisationShape.from_dict(twin.ask("shape")["shape"])
        ids = twin.ask("ids")
        full = measure(twin, workdir, "full", ids, rate_limit)
        rerun = measure(twin, workdir, "rerun", ids, rate_limit)
        twin.ask("advance", days=1)
        next_day = measure(twin, workdir, "next_day", twin.ask("ids"), rate_limit)
    left = left_the_lists(args.size, 0)

    floor_new = rerun_floor(shape, rate_limit)
    old_shape = OrganisationShape.from_dict({**shape.to_dict(), "concluded_experiments": concluded_old})
    floor_old = rerun_floor(old_shape, rate_limit)
    lines = [
        f"### Rule costs ({args.size}, `python -m bench.rule_costs`, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})",
        "",
        f"Twin in its own process, {args.latency_ms} ms latency, rate limit {rate_limit}; one run each, in one database; "
        f"load average at the end {' '.join(f'{v:.1f}' for v in os.getloadavg())} on {os.cpu_count()} cores.",
        "",
        "| figure | value |",
        "| --- | ---: |",
        f"| experiments | {shape.experiments} |",
        f"| concluded, old rule (silent since before yesterday) | {concluded_old} |",
        f"| concluded, new rule (silent more than 4 days) | {concluded_new} |",
        f"| rerun floor, old rule | {floor_old.requests} req = {floor_old.seconds:.1f} s |",
        f"| rerun floor, new rule | {floor_new.requests} req = {floor_new.seconds:.1f} s |",
        f"| cost of the late-series rule on the floor | +{floor_new.requests - floor_old.requests} req ="
        f" +{floor_new.seconds - floor_old.seconds:.1f} s |",
        f"| full load | {full['requests']} req, {full['wall_s']:.1f} s |",
        f"| no-change rerun | {rerun['requests']} req, {rerun['wall_s']:.1f} s = {rerun['wall_s'] / floor_new.seconds:.2f}x its"
        " floor "
        f"({rerun['requests'] - floor_new.requests:+d} req over it) |",
        f"| no-change rerun: experiments requested | {rerun['distinct_fan_out']['experiments']} |",
        f"| no-change rerun: gates read by id, dynamic config list requests | {rerun['by_endpoint'].get('gate', 0)}, "
        f"{rerun['by_endpoint'].get('dynamic_configs', 0)} |",
        f"| rerun after one day: gates and configs gone from the lists | {left['gates']}, {left['dynamic_configs']} |",
        f"| rerun after one day: gates read by id, dynamic config list requests | {next_day['by_endpoint'].get('gate', 0)}, "
        f"{next_day['by_endpoint'].get('dynamic_configs', 0)} |",
        f"| rerun after one day | {next_day['requests']} req, {next_day['wall_s']:.1f} s |",
    ]
    text = "\n".join(lines) + "\n"
    (workdir / "rule-costs.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
