"""The benchmark's console twin: `gatehouse twin serve` plus a control channel on stdin/stdout.

`python -m bench.twin_control --size large --latency-ms 50 --rate-limit 50/1` serves the twin on
127.0.0.1 in its own process (so the twin's CPU time and memory never count as the client's) and
answers one JSON command per stdin line with one JSON line on stdout. The counts come from the
twin's own request log, not from the client being measured; the control channel carries no HTTP
request, so it never disturbs the rate limit or the counts.

Commands: {"cmd": "shape"}, {"cmd": "begin"} (forget recorded requests), {"cmd": "traffic"} (what
arrived since `begin`), {"cmd": "mark_settled"} (remember the runs settled now: a later rerun must
not request them), {"cmd": "advance", "days": N}, {"cmd": "ids"}, {"cmd": "quit"}.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from datetime import timedelta
from typing import Any

from bench.floor import OrganisationShape, RateLimit
from gatehouse.console_twin import ConsoleTwin, TwinSettings
from gatehouse.sources.console import constants as source_constants
from gatehouse.sources.console import settings as source_settings
from gatehouse.sources.console.exposures import has_concluded
from gatehouse.sources.console.settle import has_gone_quiet, is_settled

API = source_constants.API_PREFIX
LIST_ENDPOINTS = ("gates", "dynamic_configs", "qualifying_events")
FAN_OUT_ENDPOINTS = ("holdouts", "experiments", "ingestion_runs")


def endpoint_of(path: str) -> str:
    """The operation a request path names, with ids left out: `runs/abc` -> `ingestion_runs`."""
    if not path.startswith(API):
        return "other"
    rest = path[len(API) :].strip("/").split("/")
    if rest == ["gates"]:
        return "gates"
    if rest == ["dynamic_configs"]:
        return "dynamic_configs"
    if rest == ["experiments", "qualifying_events"]:
        return "qualifying_events"
    if len(rest) == 2 and rest[0] == "gates":
        return "gate"  # a single read: confirming a gate missing from the list
    if len(rest) == 2 and rest[0] == "holdouts":
        return "holdouts"
    if len(rest) == 3 and rest[0] == "experiments" and rest[2] == "cumulative_exposures":
        return "experiments"
    if len(rest) == 3 and rest[:2] == ["ingestion", "runs"]:
        return "ingestion_runs"
    return "other"


def run_id_of(path: str) -> str | None:
    parts = path.rstrip("/").split("/")
    return parts[-1] if endpoint_of(path) == "ingestion_runs" else None


class TwinControl:
    def __init__(self, twin: ConsoleTwin, window_s: float) -> None:
        self.twin = twin
        self.window_s = window_s
        self.settled_marked: set[str] = set()

    def settled_run_ids(self) -> set[str]:
        org = self.twin.organisation
        return {run_id for run_id in self.twin.ingestion_run_ids if is_settled(org.ingestion_run(run_id))}

    def quiet_runs(self) -> int:
        """Runs not settled whose status has not moved for the default quiet_run_after_days, by the twin's clock."""
        org, quiet_after = self.twin.organisation, timedelta(days=source_settings.DEFAULT_QUIET_RUN_AFTER_DAYS)
        return sum(
            1
            for run_id in self.twin.ingestion_run_ids
            if not is_settled(run := org.ingestion_run(run_id)) and has_gone_quiet(run, self.twin.now, quiet_after)
        )

    def concluded_experiments(self) -> int:
        org, today = self.twin.organisation, self.twin.now.date()
        concluded = 0
        for experiment_id in self.twin.experiment_ids:
            days = [
                point["date"] for group in org.cumulative_exposures(experiment_id) or [] for point in group.get("results") or []
            ]
            if days and has_concluded(max(days), today):
                concluded += 1
        return concluded

    def shape(self) -> dict[str, Any]:
        twin, org = self.twin, self.twin.organisation
        with twin.lock:
            shape = OrganisationShape(
                size=twin.size,
                listed={
                    "gates": len(org.listed_gates()),
                    "dynamic_configs": len(org.listed_dynamic_configs()),
                    "qualifying_events": len(org.qualifying_events),
                },
                holdouts=len(twin.holdout_ids),
                experiments=len(twin.experiment_ids),
                ingestion_runs=len(twin.ingestion_run_ids),
                settled_runs=len(self.settled_run_ids()),
                quiet_runs=self.quiet_runs(),
                concluded_experiments=self.concluded_experiments(),
            )
        return {"shape": shape.to_dict(), "max_limit": twin.settings.max_limit, "now": twin.now.isoformat()}

    def traffic(self) -> dict[str, Any]:
        records = self.twin.requests
        statuses = Counter(str(r.status) for r in records)
        by_endpoint = Counter(endpoint_of(r.path) for r in records)
        answered = [r for r in records if r.status != 429]
        settled_requested = [r for r in records if run_id_of(r.path) in self.settled_marked]
        fan_out_ids = {name: len({r.path for r in answered if endpoint_of(r.path) == name}) for name in FAN_OUT_ENDPOINTS}
        start = min((r.time for r in records), default=0.0)
        phases: dict[str, dict[str, float]] = {}
        for record in records:
            phase = phases.setdefault(
                endpoint_of(record.path), {"first_s": round(record.time - start, 3), "last_s": 0.0, "requests": 0}
            )
            phase["last_s"] = round(record.time - start, 3)
            phase["requests"] += 1
        list_times = [r.time for r in records if endpoint_of(r.path) in LIST_ENDPOINTS]
        listing = (min(list_times), max(list_times)) if list_times else None
        return {
            "requests": len(records),
            # time.monotonic() of the first and last arrival: one clock for every process of the machine
            "first_request_at": start if records else None,
            "last_request_at": max((r.time for r in records), default=None),
            "phases": phases,
            # every request (lists, runs...) that arrived between the first and the last list request:
            # whether the rate budget was used while the lists were read
            "requests_while_listing": sum(1 for r in records if listing and listing[0] <= r.time <= listing[1]),
            "throttled": statuses.get("429", 0),
            "statuses": dict(statuses),
            "by_endpoint": dict(by_endpoint),
            "distinct_fan_out": fan_out_ids,
            "settled_runs_requested": len(settled_requested),
            "max_in_window": self.twin.max_requests_in_window(self.window_s),
            # requests per half second from the first, by endpoint: where the rate budget sat idle
            "timeline": timeline(records, start),
        }

    def handle(self, command: dict[str, Any]) -> dict[str, Any]:
        cmd = command.get("cmd")
        if cmd == "shape":
            return self.shape()
        if cmd == "begin":
            self.twin.reset_requests()
            return {"ok": True}
        if cmd == "traffic":
            return self.traffic()
        if cmd == "timeline":
            records = self.twin.requests
            start = min((r.time for r in records), default=0.0)
            return {"timeline": [[round(r.time - start, 4), endpoint_of(r.path), r.status] for r in records]}
        if cmd == "mark_settled":
            with self.twin.lock:
                self.settled_marked = self.settled_run_ids()
            return {"settled": len(self.settled_marked)}
        if cmd == "advance":
            self.twin.advance(days=int(command.get("days", 1)))
            return {"now": self.twin.now.isoformat()}
        if cmd == "ids":
            return self.ids()
        return {"error": f"unknown command {cmd!r}"}

    def ids(self) -> dict[str, list[str]]:
        with self.twin.lock:
            return {
                "experiment_ids": self.twin.experiment_ids,
                "holdout_ids": self.twin.holdout_ids,
                "ingestion_run_ids": self.twin.ingestion_run_ids,
            }


def timeline(records: list[Any], start: float, step_s: float = 0.5) -> list[dict[str, int]]:
    """Requests arrived in each `step_s` from `start`, per endpoint."""
    buckets: list[Counter] = []
    for record in records:
        index = int((record.time - start) / step_s)
        while len(buckets) <= index:
            buckets.append(Counter())
        buckets[index][endpoint_of(record.path)] += 1
    return [dict(bucket) for bucket in buckets]


def emit(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.twin_control", description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="large")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--latency-ms", type=int, default=50)
    parser.add_argument("--rate-limit", type=RateLimit.parse, default=RateLimit(50, 1.0))
    parser.add_argument("--max-limit", type=int, default=None)
    args = parser.parse_args(argv)
    settings = TwinSettings(
        latency=args.latency_ms / 1000,
        rate_limit=(args.rate_limit.requests, args.rate_limit.window_s),
        max_limit=args.max_limit,
    )
    twin = ConsoleTwin(size=args.size, seed=args.seed, settings=settings)
    control = TwinControl(twin, args.rate_limit.window_s)
    with twin.serve() as base_url:
        emit({"ready": True, "base_url": base_url, "api_key": twin.settings.api_key})
        for line in sys.stdin:
            if not line.strip():
                continue
            command = json.loads(line)
            if command.get("cmd") == "quit":
                emit({"ok": True})
                break
            emit(control.handle(command))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
