"""The synthetic organisation a twin serves: entities in the wire shape, plus what the service keeps hidden.

Gates, configs, holdouts, pipelines and qualifying events are stored as the JSON objects the service
sends (camelCase, epoch milliseconds), so a test can compute the rows it expects straight from them.
Experiments and ingestion runs are stored as models and rendered at the twin's clock: exposure series
and run histories depend on what time it is.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from gatehouse.console_twin.gates import DAY_MS, GateFacts, classify, referenced_gate_ids

CONSOLE_API_NAME = "CONSOLE API"
_NOT_ID_CHARACTERS = re.compile(r"[^a-z0-9]+")

# The create-role answer of production lists every flag but these two unless they were sent.
ROLE_PERMISSIONS_ANSWERED_ONLY_WHEN_SENT = frozenset({"event_dimensions_access", "manual_whn_reload"})

INGESTION_STATUSES: tuple[str, ...] = (
    "enqueued",
    "started",
    "download_started",
    "download_complete",
    "download_error",
    "metrics_started",
    "metrics_complete",
    "pulse_started",
    "pulse_complete",
)


def iso_ms(epoch_ms: int) -> str:
    """ISO 8601 UTC with milliseconds, as ingestion runs are stamped: 2023-12-13T02:44:23.790Z."""
    moment = datetime.fromtimestamp(epoch_ms // 1000, UTC)
    return f"{moment:%Y-%m-%dT%H:%M:%S}.{epoch_ms % 1000:03d}Z"


def epoch_ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def slug(name: str) -> str:
    """An id from a display name, as the console makes them: "Checkout Express Pay V2" -> checkout_express_pay_v2."""
    if not name.isascii():
        name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return _NOT_ID_CHARACTERS.sub("_", name.lower()).strip("_")


@dataclass(frozen=True)
class Person:
    person_id: str
    name: str
    email: str | None
    team: str | None

    @property
    def owner(self) -> dict:
        if self.name == CONSOLE_API_NAME:
            return {"ownerID": self.person_id, "ownerName": self.name, "ownerType": "SDK_KEY", "ownerEmail": ""}
        return {"ownerID": self.person_id, "ownerName": self.name, "ownerType": "USER", "ownerEmail": self.email}


@dataclass(frozen=True)
class Team:
    team_id: str
    name: str


@dataclass
class ExposureGroup:
    group_id: str
    name: str
    share: float  # of the experiment's traffic this group actually gets
    daily_new: list[int] = field(default_factory=list)  # full-day new exposures, from the start date


@dataclass
class Experiment:
    experiment_id: str
    name: str
    start_date: date
    groups: list[ExposureGroup]
    daily_volume: int
    decay: float  # novelty: how fast first-time exposures fall off after launch
    floor: float  # share of the launch volume that keeps arriving every day
    launch_day_share: float = 0.0  # launch day: the first exposures trickle in late, often none at all
    stalled_on: date | None = None  # from this day on no exposure arrives
    imbalanced: bool = False  # a group's share drifts from the designed even split (sample ratio mismatch)
    targeting_gate_id: str | None = None
    ended_on: date | None = None  # a concluded experiment: its series stops on this day for good

    def new_exposures(self, day_index: int, traffic: float, jitter: list[float]) -> list[int]:
        """Each group's first-time exposures on one day: `traffic` moves the whole day (weekday, season),
        `jitter` (one per group, about 1%) is the randomness of assignment."""
        day = self.start_date + timedelta(days=day_index)
        if self.stalled_on is not None and day >= self.stalled_on:
            return [0] * len(self.groups)
        if day_index == 0:
            intensity = self.launch_day_share
        else:
            intensity = self.decay ** (day_index - 1) + self.floor
        return [
            round(self.daily_volume * group.share * intensity * traffic * noise)
            for group, noise in zip(self.groups, jitter, strict=True)
        ]

    def add_day(self, day_index: int, traffic: float, jitter: list[float]) -> None:
        for group, arriving in zip(self.groups, self.new_exposures(day_index, traffic, jitter), strict=True):
            group.daily_new.append(arriving)

    def cumulative_exposures(self, today: date, day_fraction: float) -> list[dict]:
        """The series of every group from the start date up to today, today's count partial;
        a concluded experiment's series ends on its last day, every day complete."""
        last = self.ended_on if self.ended_on is not None and self.ended_on < today else today
        concluded = last != today
        days = (last - self.start_date).days
        series = []
        for group in self.groups:
            total = 0
            results = []
            for index in range(days + 1):
                arriving = group.daily_new[index]
                total += int(arriving * day_fraction) if index == days and not concluded else arriving
                results.append({"date": (self.start_date + timedelta(days=index)).isoformat(), "exposures": total})
            series.append({"groupID": group.group_id, "groupName": group.name, "results": results})
        return series


@dataclass
class IngestionRun:
    """A run's whole script, future statuses included; what the service shows depends on the clock."""

    run_id: str
    created_ms: int
    sources: list[str]
    date_stamps: list[str]
    history: list[tuple[int, str]]  # run level, oldest first
    source_history: dict[str, list[tuple[int, str]]]
    trigger: str = "scheduled"

    def latest_status(self, now_ms: int) -> str:
        return [status for at, status in self.history if at <= now_ms][-1]

    def view(self, now_ms: int) -> dict:
        visible = [(at, status) for at, status in self.history if at <= now_ms]
        granular = []
        for source in self.sources:
            statuses = [
                {"statusTimestamp": iso_ms(at), "status": status}
                for at, status in reversed(self.source_history[source])
                if at <= now_ms
            ]
            granular.append(
                {
                    "source": source,
                    "latestSourceStatus": statuses[0]["status"],
                    "statusByDate": [
                        {"dateStamp": stamp, "statuses": [dict(entry) for entry in statuses]}
                        for stamp in sorted(self.date_stamps, reverse=True)
                    ],
                }
            )
        return {
            "runID": self.run_id,
            "latestStatus": visible[-1][1],
            "lastUpdatedAt": iso_ms(visible[-1][0]),
            "createdAt": iso_ms(self.created_ms),
            "trigger": self.trigger,
            "sources": list(self.sources),
            "dateStamps": list(self.date_stamps),
            "runHistory": [{"statusTimestamp": iso_ms(at), "status": status} for at, status in reversed(visible)],
            "granularHistory": granular,
        }


@dataclass
class Organisation:
    size: str
    seed: int
    now_ms: int
    console_api: Person  # the identity of writes made through the console API
    people: list[Person]
    teams: list[Team]
    gates: dict[str, dict] = field(default_factory=dict)  # list-item shape; archived gates included
    gate_facts: dict[str, GateFacts] = field(default_factory=dict)
    dynamic_configs: dict[str, dict] = field(default_factory=dict)  # archived configs included
    status_before_archive: dict[str, str] = field(default_factory=dict)  # config id -> status to restore
    holdouts: dict[str, dict] = field(default_factory=dict)
    experiments: dict[str, Experiment] = field(default_factory=dict)
    ingestion_runs: dict[str, IngestionRun] = field(default_factory=dict)
    qualifying_events: list[dict] = field(default_factory=list)
    release_pipelines: dict[str, dict] = field(default_factory=dict)
    trigger_notices: dict[str, str | None] = field(default_factory=dict)  # write-only pipeline member
    roles: dict[str, dict] = field(default_factory=dict)
    warehouse_connection: dict[str, dict] = field(default_factory=dict)  # holds secrets: never answered
    scim_groups: dict[str, dict] = field(default_factory=dict)
    next_gate_order: int = 0

    # --- the clock -------------------------------------------------------------------------------
    @property
    def now(self) -> datetime:
        return datetime.fromtimestamp(self.now_ms / 1000, UTC)

    @property
    def today(self) -> date:
        return self.now.date()

    @property
    def day_fraction(self) -> float:
        """How much of today has passed: the share of today's exposures already counted."""
        return (self.now_ms % DAY_MS) / DAY_MS

    # --- reads -------------------------------------------------------------------------------------
    def listed_gates(self) -> list[dict]:
        """Gates as the list answers them: archived ones left out, newest created first."""
        facts = self.gate_facts
        live = [gate for gate in self.gates.values() if gate["status"] != "Archived"]
        live.sort(key=lambda gate: (gate["createdTime"], facts[gate["id"]].order), reverse=True)
        return live

    def listed_dynamic_configs(self) -> list[dict]:
        live = [config for config in self.dynamic_configs.values() if config["status"] != "Archived"]
        live.sort(key=lambda config: (config["createdTime"], config["id"]), reverse=True)
        return live

    def cumulative_exposures(self, experiment_id: str) -> list[dict] | None:
        experiment = self.experiments.get(experiment_id)
        if experiment is None:
            return None
        return experiment.cumulative_exposures(self.today, self.day_fraction)

    def ingestion_run(self, run_id: str) -> dict | None:
        run = self.ingestion_runs.get(run_id)
        if run is None or run.created_ms > self.now_ms:
            return None
        return run.view(self.now_ms)

    def visible_run_ids(self) -> list[str]:
        runs = [run for run in self.ingestion_runs.values() if run.created_ms <= self.now_ms]
        return [run.run_id for run in sorted(runs, key=lambda run: (run.created_ms, run.run_id))]

    def referenced_gate_ids(self) -> set[str]:
        """Gates another live gate or config names in a condition, or an experiment targets."""
        holders = [gate for gate in self.gates.values() if gate["status"] != "Archived"]
        holders += [config for config in self.dynamic_configs.values() if config["status"] != "Archived"]
        referenced = referenced_gate_ids(holders)
        referenced.update(e.targeting_gate_id for e in self.experiments.values() if e.targeting_gate_id)
        return referenced

    # --- changes -----------------------------------------------------------------------------------
    def reclassify_gates(self) -> None:
        referenced = self.referenced_gate_ids()
        for gate_id, gate in self.gates.items():
            gate["type"], gate["typeReason"] = classify(gate, self.gate_facts[gate_id], self.now_ms, referenced)

    def add_gate(self, gate: dict, facts: GateFacts) -> None:
        self.gates[gate["id"]] = gate
        self.gate_facts[gate["id"]] = facts
        for holdout_id in gate["holdoutIDs"]:
            holdout = self.holdouts.get(holdout_id)
            if holdout is not None and gate["id"] not in holdout["gateIDs"]:
                holdout["gateIDs"].append(gate["id"])

    def remove_gate(self, gate_id: str) -> None:
        gate = self.gates.pop(gate_id)
        del self.gate_facts[gate_id]
        for holdout_id in gate["holdoutIDs"]:
            holdout = self.holdouts.get(holdout_id)
            if holdout is not None and gate_id in holdout["gateIDs"]:
                holdout["gateIDs"].remove(gate_id)

    def touch(self, entity: dict, modifier: Person, at_ms: int) -> None:
        """Records a modification the way the service does: new version, time and modifier."""
        # Two changes drawn in one day keep lastModifiedTime from moving backwards.
        entity["lastModifiedTime"] = max(entity["lastModifiedTime"], at_ms)
        entity["lastModifierID"] = modifier.person_id
        entity["lastModifierName"] = modifier.name
        entity["lastModifierEmail"] = modifier.email
        if "version" in entity:
            entity["version"] += 1

    def archive_dynamic_config(self, config_id: str, modifier: Person, at_ms: int) -> None:
        config = self.dynamic_configs[config_id]
        self.status_before_archive[config_id] = config["status"]
        config["status"] = "Archived"
        config["isEnabled"] = False
        self.touch(config, modifier, at_ms)

    def unarchive_dynamic_config(self, config_id: str) -> dict:
        config = self.dynamic_configs[config_id]
        restored = self.status_before_archive.pop(config_id, "Disabled")
        config["status"] = restored
        config["isEnabled"] = restored == "Enabled"
        self.touch(config, self.console_api, self.now_ms)
        return config

    def update_warehouse_connection(self, update: dict) -> None:
        # Members and fields left out of a PATCH keep their stored values.
        for member, fields in update.items():
            self.warehouse_connection.setdefault(member, {}).update(fields)

    def patch_scim_group(self, group_id: str, operations: list[dict]) -> dict:
        group = self.scim_groups[group_id]
        for operation in operations:
            members = [{"value": item["value"], "display": item["display"]} for item in operation["value"]]
            named = {member["value"] for member in members}
            if operation["op"] == "replace":
                group["members"] = members
            elif operation["op"] == "add":
                present = {member["value"] for member in group["members"]}
                group["members"] += [member for member in members if member["value"] not in present]
            else:
                group["members"] = [member for member in group["members"] if member["value"] not in named]
        group["meta"]["lastModified"] = iso_ms(self.now_ms)
        return group
