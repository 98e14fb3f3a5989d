"""A deterministic synthetic organisation from (size, seed).

Gates are built from archetypes: each fixes the hidden facts (lifetime, age, check telemetry, audience)
that make the staleness rules give one intended `type`/`typeReason`; the type itself is always computed
by `gates.classify`, never written by hand, so generated data and the rules cannot disagree. The first
gates of every organisation walk through all archetypes, so even the small one shows every type and
reason. Other entities follow the same idea: the first few cover every status worth testing.
"""

from __future__ import annotations

import base64
import copy
import gc
import json
import random
import uuid
from collections.abc import Container, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import TypeVar, cast

from gatehouse.console_twin import vocabulary as words
from gatehouse.console_twin.gates import DAY_MS, STALE_WINDOW_MS, Audience, GateFacts, Lifetime
from gatehouse.console_twin.organisation import (
    CONSOLE_API_NAME,
    INGESTION_STATUSES,
    Experiment,
    ExposureGroup,
    IngestionRun,
    Organisation,
    Person,
    Team,
    epoch_ms,
    iso_ms,
    slug,
)

# The twin's clock starts here (a Monday morning, UTC) whatever the wall clock says.
TWIN_EPOCH = datetime(2026, 11, 2, 6, 0, tzinfo=UTC)


@dataclass(frozen=True)
class OrgSize:
    gates: int
    dynamic_configs: int
    holdouts: int
    experiments: int
    ingestion_runs: int
    qualifying_events: int
    release_pipelines: int
    people: int
    teams: int
    run_history_days: int  # settled runs spread over this many days before the epoch


SIZES: dict[str, OrgSize] = {
    "small": OrgSize(60, 20, 8, 12, 24, 6, 3, 8, 4, 12),
    "medium": OrgSize(2_000, 500, 40, 100, 200, 20, 8, 24, 8, 30),
    "large": OrgSize(20_000, 5_000, 200, 1_000, 2_000, 60, 20, 60, 12, 30),
}

GATE_HISTORY_DAYS = 720
HOUR_MS = 3_600_000
MINUTE_MS = 60_000
_ALPHANUMERIC = bytes.maketrans(b"+/", b"Qz")
SCIM_GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group"

T = TypeVar("T")

# Archetype -> weight once every archetype was used once. Each names the type/reason it yields at
# generation time; time and changes move gates between them afterwards.
GATE_ARCHETYPES: dict[str, int] = {
    "fresh": 18,  # TEMPORARY/NONE: created in the last 30 days
    "recently_modified": 12,  # TEMPORARY/NONE: old, modified in the last 30 days
    "referenced": 4,  # TEMPORARY/NONE: old and partly rolled out, but another entity depends on it
    "recently_first_checked": 2,  # TEMPORARY/NONE: old, but only checked for less than 30 days
    "permanent": 18,  # PERMANENT/NONE
    "template": 3,  # TEMPLATE/NONE
    "dead_check": 10,  # STALE_PROBABLY_DEAD_CHECK
    "no_rules": 4,  # STALE_NO_RULES
    "launched": 8,  # STALE_PROBABLY_LAUNCHED
    "unlaunched": 5,  # STALE_PROBABLY_UNLAUNCHED
    "all_true": 3,  # STALE_ALL_TRUE
    "all_false": 3,  # STALE_ALL_FALSE
    "empty_checks": 2,  # STALE_EMPTY_CHECKS
    "forgotten": 8,  # STALE_PROBABLY_FORGOTTEN
}
# Archetypes whose status and rules are free, as opposed to pinned down by the reason they stand for.
FREE_ARCHETYPES = frozenset({"fresh", "recently_modified", "recently_first_checked", "permanent", "dead_check"})
RULE_KINDS: dict[str, int] = {
    "partial": 35,
    "targeted": 20,
    "targeted100": 10,
    "everyone100": 15,
    "everyone0": 5,
    "all_zero": 5,
    "none": 10,
}
PARTIAL_PERCENTAGES = (1, 5, 10, 20, 25, 33, 50, 75, 90, 95, 99)
CONDITION_TYPES = tuple(words.CONDITIONS)
ID_TYPE_WEIGHTS = dict(words.ID_TYPES)


# --- small helpers -----------------------------------------------------------------------------------
def base62_id(rng: random.Random) -> str:
    """A 22-character alphanumeric id like the service's (4R5PV7mvYdW6NLCwK8ocoz)."""
    # base64 of random bytes with its two symbols mapped to letters: one call for the whole id, not
    # one random choice a character.
    return base64.b64encode(rng.randbytes(17))[:22].translate(_ALPHANUMERIC).decode()


def run_uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def weighted(rng: random.Random, weights: dict[T, int]) -> T:
    total = sum(weights.values())
    pick = rng.random() * total
    for choice, weight in weights.items():
        pick -= weight
        if pick < 0:
            return choice
    return choice


def days_ago(rng: random.Random, now_ms: int, low: float, high: float) -> int:
    return now_ms - int(rng.uniform(low, high) * DAY_MS)


def display_name(*parts: str) -> str:
    text = " ".join(part.strip() for part in parts if part.strip())
    return " ".join(w.upper() if w in words.ACRONYMS else w.capitalize() for w in text.split())


def unique_name(base: str, taken: Container[str]) -> str:
    name, copy_number = base, 2
    while slug(name) in taken:
        name = f"{base} {copy_number}"
        copy_number += 1
    return name


def json5_text(value: object, indent: int = 0) -> str:
    """JSON5 as people write it: unquoted keys, trailing commas. Parses to the same JSON as `value`."""
    pad = "  " * (indent + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        members = [
            f"{pad}{key if key.isidentifier() else json.dumps(key)}: {json5_text(item, indent + 1)},"
            for key, item in value.items()
        ]
        return "{\n" + "\n".join(members) + "\n" + "  " * indent + "}"
    if isinstance(value, list):
        return "[" + ", ".join(json5_text(item, indent) for item in value) + "]"
    return json.dumps(value)


# --- rules and conditions ----------------------------------------------------------------------------
def make_condition(rng: random.Random) -> dict:
    condition_type = rng.choice(CONDITION_TYPES)
    operator, target_choices, field_name, custom_id = words.CONDITIONS[condition_type]
    return {
        "type": condition_type,
        "targetValue": copy.copy(rng.choice(target_choices)),
        "operator": operator,
        "field": field_name,
        "customID": custom_id,
    }


def everyone_condition() -> dict:
    return {"type": "public", "targetValue": None, "operator": "any", "field": None, "customID": None}


def gate_reference_condition(rng: random.Random, gate_id: str) -> dict:
    return {
        "type": rng.choice(("passes_gate", "fails_gate")),
        "targetValue": [gate_id],
        "operator": "any",
        "field": None,
        "customID": None,
    }


def rule_id(base_id: str, percentage: float, revision: int) -> str:
    # The service decorates a rule's stable baseID with its current pass percentage and revision.
    return f"{base_id}:{percentage:.2f}:{revision}"


def make_rule(rng: random.Random, percentage: int, conditions: list[dict], name: str | None = None) -> dict:
    base_id = base62_id(rng)
    if name is None:
        name = (
            "Everyone"
            if conditions[0]["type"] == "public"
            else display_name(conditions[0]["type"].replace("_", " "), "targeting")
        )
    return {
        "id": rule_id(base_id, percentage, 1),
        "baseID": base_id,
        "name": name,
        "passPercentage": percentage,
        "conditions": conditions,
        "environments": copy.copy(rng.choice(words.ENVIRONMENTS)),
    }


def set_pass_percentage(rule: dict, percentage: int) -> None:
    revision = int(rule["id"].rsplit(":", 1)[-1]) + 1
    rule["passPercentage"] = percentage
    rule["id"] = rule_id(rule["baseID"], percentage, revision)


def make_gate_rules(rng: random.Random, kind: str) -> list[dict]:
    def targeted(count: int, percentages: Sequence[int]) -> list[dict]:
        return [make_rule(rng, rng.choice(percentages), [make_condition(rng)]) for _ in range(count)]

    if kind == "none":
        return []
    if kind == "targeted100":
        return targeted(rng.randint(1, 3), (100,))
    if kind == "targeted":
        return targeted(rng.randint(1, 3), (0, 100) + PARTIAL_PERCENTAGES)
    if kind == "partial":
        rules = targeted(rng.randint(0, 2), (0, 100) + PARTIAL_PERCENTAGES)
        rules.insert(rng.randint(0, len(rules)), make_rule(rng, rng.choice(PARTIAL_PERCENTAGES), [make_condition(rng)]))
        if rng.random() < 0.3:
            rules.append(make_rule(rng, rng.choice(PARTIAL_PERCENTAGES), [everyone_condition()]))
        return rules
    if kind == "everyone100":
        return targeted(rng.randint(0, 2), (100,)) + [make_rule(rng, 100, [everyone_condition()])]
    if kind == "everyone0":
        return targeted(rng.randint(0, 1), (0,)) + [make_rule(rng, 0, [everyone_condition()])]
    if kind == "all_zero":
        return targeted(rng.randint(1, 2), (0,))
    raise ValueError(f"unknown rule kind {kind}")


# --- gates ------------------------------------------------------------------------------------------
def gate_name(rng: random.Random, taken: Container[str], template: bool = False) -> str:
    base = display_name(rng.choice(words.AREAS), rng.choice(words.FEATURES), rng.choice(words.VERSIONS))
    return unique_name(f"{base} Template" if template else base, taken)


def _status_and_rules(rng: random.Random, archetype: str) -> tuple[str, str]:
    """(status, rule kind) for an archetype."""
    if archetype in FREE_ARCHETYPES:
        status = weighted(rng, {"In Progress": 70, "Launched": 15, "Disabled": 15})
        if status == "Launched":
            return status, "everyone100"
        if status == "Disabled":
            return status, rng.choice(("partial", "targeted", "targeted100", "all_zero", "none"))
        return status, weighted(rng, RULE_KINDS)
    if archetype == "template":
        return "In Progress", weighted(rng, RULE_KINDS)
    if archetype == "launched":
        return rng.choice(("Launched", "Launched", "In Progress")), "everyone100"
    if archetype == "unlaunched":
        return rng.choice((("Disabled", "partial"), ("Disabled", "targeted100"), ("In Progress", "everyone0")))
    if archetype in ("all_false", "empty_checks"):
        return "In Progress", rng.choice(("targeted", "targeted100"))
    return "In Progress", {
        "referenced": "partial",
        "no_rules": "none",
        "all_true": "targeted100",
        "forgotten": "partial",
    }[archetype]


def _timeline(rng: random.Random, archetype: str, now_ms: int) -> tuple[int, int]:
    """(createdTime, lastModifiedTime) for an archetype."""
    if archetype == "fresh":
        created = days_ago(rng, now_ms, 0.2, 29)
        return created, rng.choice((created, created + int(rng.random() * (now_ms - created))))
    if archetype == "recently_modified":
        return days_ago(rng, now_ms, 45, GATE_HISTORY_DAYS), days_ago(rng, now_ms, 0.05, 29)
    if archetype in ("permanent", "template"):
        created = days_ago(rng, now_ms, 1, GATE_HISTORY_DAYS)
        return created, rng.choice((created, created + int(rng.random() * (now_ms - created))))
    # Old and untouched for longer than the staleness window.
    created = days_ago(rng, now_ms, 45, GATE_HISTORY_DAYS)
    latest_modification = now_ms - STALE_WINDOW_MS - DAY_MS
    return created, rng.choice((created, created + int(rng.random() * (latest_modification - created))))


def _check_telemetry(rng: random.Random, archetype: str, created: int, now_ms: int) -> tuple[int | None, int | None, bool]:
    """(first check, time checks stopped, still checked)."""
    first = min(created + int(rng.uniform(0.01, 1.5) * DAY_MS), now_ms)
    if archetype == "template":
        return None, None, False
    if archetype == "recently_first_checked":
        return days_ago(rng, now_ms, 1, 29), None, True
    if archetype == "dead_check":
        if rng.random() < 0.4:
            return None, None, False
        latest_stop = now_ms - STALE_WINDOW_MS - DAY_MS
        return first, first + int(rng.random() * (latest_stop - first)), False
    if archetype == "permanent":
        roll = rng.random()
        if roll < 0.1:
            return None, None, False
        if roll < 0.2:
            return first, first + int(rng.random() * (now_ms - first)), False
    return first, None, True


def checks_per_hour(rng: random.Random, first_check: int | None, still_checked: bool) -> int | None:
    if first_check is None:
        return None
    if not still_checked:
        return 0
    return min(5_000_000, max(1, int(rng.lognormvariate(4.5, 2.0))))


def build_gate(
    rng: random.Random,
    org: Organisation,
    archetype: str,
    *,
    taken: Container[str],
    holdout_ids: Sequence[str] = (),
    pipeline_ids: Sequence[str] = (),
) -> tuple[dict, GateFacts]:
    now_ms = org.now_ms
    status, rule_kind = _status_and_rules(rng, archetype)
    created, modified = _timeline(rng, archetype, now_ms)
    first_check, stopped, still_checked = _check_telemetry(rng, archetype, created, now_ms)
    lifetime = cast(Lifetime, {"permanent": "PERMANENT", "template": "TEMPLATE"}.get(archetype, "TEMPORARY"))
    audience = cast(
        Audience,
        {
            "all_true": "all",
            "launched": "all",
            "all_false": "none",
            "forgotten": "some",
            "referenced": "some",
        }.get(archetype)
        or weighted(rng, {"all": 20, "some": 70, "none": 10}),
    )

    name = gate_name(rng, taken, template=lifetime == "TEMPLATE")
    area, feature = rng.choice(words.AREAS), rng.choice(words.FEATURES)
    creator = org.console_api if rng.random() < 0.1 else rng.choice(org.people)
    modifier = creator if modified == created else rng.choice(org.people) if rng.random() < 0.9 else org.console_api
    owner = creator if creator.name == CONSOLE_API_NAME or rng.random() < 0.8 else rng.choice(org.people)
    reviewers = rng.sample(org.people, k=min(len(org.people), rng.randint(1, 2))) if rng.random() < 0.15 else []
    gate = {
        "id": slug(name),
        "name": name,
        "description": rng.choice(words.GATE_PURPOSES).format(area=area, feature=feature),
        "idType": weighted(rng, ID_TYPE_WEIGHTS),
        **audit_members(creator, created, modifier, modified),
        "targetApps": list(rng.choice(words.TARGET_APPS)),
        "holdoutIDs": [rng.choice(holdout_ids)] if holdout_ids and rng.random() < 0.12 else [],
        "tags": sorted(rng.sample(words.TAGS, k=rng.choice((0, 0, 1, 1, 2, 3)))),
        "isEnabled": status != "Disabled",
        "status": status,
        "rules": make_gate_rules(rng, rule_kind),
        "checksPerHour": checks_per_hour(rng, first_check, still_checked),
        "type": lifetime,
        "typeReason": "NONE",
        "team": creator.team if rng.random() < 0.7 else None,
        "reviewSettings": {
            "requiredReview": bool(reviewers),
            "allowedReviewers": [{"id": p.person_id, "name": p.name, "email": p.email} for p in reviewers],
        },
        "measureMetricLifts": rng.random() < 0.6,
        "owner": owner.owner,
        "monitoringMetrics": [dict(m) for m in rng.sample(words.MONITORING_METRICS, k=rng.choice((0, 0, 0, 1, 2)))],
        "version": 1 if modified == created else rng.randint(2, 12),
    }
    facts = GateFacts(
        lifetime=lifetime,
        order=org.next_gate_order,
        release_pipeline_id=rng.choice(pipeline_ids) if pipeline_ids and rng.random() < 0.1 else None,
        first_check_ms=first_check,
        last_check_ms=stopped,
        still_checked=still_checked,
        audience=audience,
        returns_nothing=archetype == "empty_checks",
    )
    org.next_gate_order += 1
    return gate, facts


def audit_members(creator: Person, created_ms: int, modifier: Person, modified_ms: int) -> dict:
    """Who created and last modified an entity, and when: the members gates, dynamic configs and holdouts
    share, in the order the service sends them."""
    return {
        "lastModifierID": modifier.person_id,
        "lastModifiedTime": modified_ms,
        "lastModifierName": modifier.name,
        "lastModifierEmail": modifier.email,
        "creatorID": creator.person_id,
        "createdTime": created_ms,
        "creatorName": creator.name,
        "creatorEmail": creator.email,
    }


def mark_created(gate: dict, created_ms: int) -> None:
    """Makes a built gate one created at `created_ms` and never modified since."""
    gate["createdTime"] = gate["lastModifiedTime"] = created_ms
    gate["version"] = 1
    gate["lastModifierID"], gate["lastModifierName"] = gate["creatorID"], gate["creatorName"]
    gate["lastModifierEmail"] = gate["creatorEmail"]


# --- ingestion runs ---------------------------------------------------------------------------------
def run_script(
    rng: random.Random, sources: Sequence[str], *, failures: int, gives_up: bool, backlog: bool
) -> tuple[list[tuple[int, str]], dict[str, list[tuple[int, str]]]]:
    """A run's statuses as offsets from its creation: the run level and each source's own."""
    run = [(0, "enqueued")]
    per_source = {source: [(0, "enqueued")] for source in sources}

    def stamp(at: int, status: str, for_sources: Sequence[str]) -> None:
        run.append((at, status))
        for source in for_sources:
            # Sources report a moment before the run does.
            per_source[source].append((at - rng.randint(200, 3_000), status))

    t = int(rng.uniform(1, 20) * HOUR_MS) if backlog else int(rng.uniform(0.5, 5) * MINUTE_MS)
    stamp(t, "started", sources)
    pending = list(sources)
    attempts = failures if gives_up else failures + 1
    for attempt in range(attempts):
        t += int(rng.uniform(0.5, 10) * MINUTE_MS)
        stamp(t, "download_started", pending)
        t += int(rng.uniform(6, 30) * HOUR_MS) if rng.random() < 0.1 else int(rng.uniform(5, 180) * MINUTE_MS)
        if attempt < failures:
            failing = rng.sample(pending, k=rng.randint(1, len(pending)))
            run.append((t, "download_error"))
            for source in pending:
                per_source[source].append(
                    (t - rng.randint(200, 3_000), "download_error" if source in failing else "download_complete")
                )
            pending = failing
            t += int(rng.uniform(0.5, 30) * HOUR_MS)  # until the retry
        else:
            stamp(t, "download_complete", pending)
    if not gives_up:
        for status, low, high in (
            ("metrics_started", 1 * MINUTE_MS, 20 * MINUTE_MS),
            ("metrics_complete", 0.5 * HOUR_MS, 12 * HOUR_MS),
            ("pulse_started", 1 * MINUTE_MS, 30 * MINUTE_MS),
            ("pulse_complete", 0.3 * HOUR_MS, 8 * HOUR_MS),
        ):
            t += int(rng.uniform(low, high))
            run.append((t, status))
    return run, per_source


def _script_for(rng: random.Random, target: str, sources: Sequence[str]):
    """A script that passes through `target` (or ends in it, for the two settled targets)."""
    gives_up = target == "gives_up"
    failures = weighted(rng, {0: 70, 1: 18, 2: 7, 3: 5})
    if target == "download_error" or gives_up:
        failures = max(1, failures)
    return run_script(rng, sources, failures=failures, gives_up=gives_up, backlog=target == "enqueued" or rng.random() < 0.1)


def build_ingestion_run(
    rng: random.Random,
    created_ms: int,
    script: tuple[list[tuple[int, str]], dict[str, list[tuple[int, str]]]],
    sources: list[str],
) -> IngestionRun:
    offsets, per_source = script
    created_day = datetime.fromtimestamp(created_ms / 1000, UTC).date()
    backfill_days = rng.choice((1, 1, 1, 1, 1, 1, 1, 1, 2, 3))
    return IngestionRun(
        run_id=run_uuid(rng),
        created_ms=created_ms,
        sources=sources,
        date_stamps=[(created_day - timedelta(days=back)).isoformat() for back in range(backfill_days, 0, -1)],
        history=[(created_ms + offset, status) for offset, status in offsets],
        source_history={s: [(created_ms + offset, status) for offset, status in entries] for s, entries in per_source.items()},
    )


def scheduled_run(rng: random.Random, created_ms: int) -> IngestionRun:
    """A run the schedule creates at `created_ms`, with whatever future it gets."""
    sources = rng.sample(words.INGESTION_SOURCES, k=rng.randint(1, 3))
    target = weighted(rng, {"pulse_complete": 80, "download_error": 12, "gives_up": 8})
    return build_ingestion_run(rng, created_ms, _script_for(rng, target, sources), sources)


# --- the organisation -------------------------------------------------------------------------------
class OrganisationBuilder:
    def __init__(self, size: str, seed: int) -> None:
        if size not in SIZES:
            raise ValueError(f"unknown size {size!r}; expected one of {', '.join(SIZES)}")
        self.size = SIZES[size]
        self.rng = random.Random(f"console-twin:{size}:{seed}")
        rng = self.rng
        teams = [Team(base62_id(rng), name) for name in words.TEAMS[: self.size.teams]]
        people = []
        for index, name in enumerate(words.PEOPLE[: self.size.people]):
            email = ".".join(slug(part).replace("_", "") for part in name.split()) + "@example.com"
            people.append(Person(base62_id(rng), name, email, teams[index % len(teams)].name))
        self.org = Organisation(
            size=size,
            seed=seed,
            now_ms=epoch_ms(TWIN_EPOCH),
            console_api=Person(base62_id(rng), CONSOLE_API_NAME, None, None),
            people=people,
            teams=teams,
        )

    def build(self) -> Organisation:
        self._release_pipelines()
        holdout_names = self._holdout_names()
        self._experiments()
        references = self._gates(list(holdout_names))
        self._dynamic_configs(references)
        self._holdouts(holdout_names)
        self._ingestion_runs()
        self._qualifying_events()
        self._scim_groups()
        self.org.reclassify_gates()
        return self.org

    def _release_pipelines(self) -> None:
        rng, org = self.rng, self.org
        for index in range(self.size.release_pipelines):
            author = rng.choice(org.people)
            pipeline_id = base62_id(rng)
            phases = []
            for number, (phase_name, environment) in enumerate(
                (("Staging", "staging"), ("Canary", "production"), ("General availability", "production"))
            ):
                condition = {
                    "type": "environment_tier",
                    "targetValue": [environment],
                    "operator": "any",
                    "field": None,
                    "customID": None,
                }
                phases.append(
                    {
                        "id": base62_id(rng),
                        "name": phase_name,
                        "timeIntervalMs": (number + 1) * 24 * HOUR_MS,
                        "requiredReview": number > 0 and rng.random() < 0.5,
                        "rules": [
                            {
                                "id": base62_id(rng),
                                "name": f"{phase_name} rule",
                                "conditions": [condition],
                                "environments": None,
                            }
                        ],
                    }
                )
            org.release_pipelines[pipeline_id] = {
                "id": pipeline_id,
                "name": f"{org.teams[index % len(org.teams)].name} rollout {index // len(org.teams) + 1}",
                "creatorID": author.person_id,
                "createdTime": days_ago(rng, org.now_ms, 60, 400),
                "lastModifierID": author.person_id,
                "phases": phases,
            }
            org.trigger_notices[pipeline_id] = None

    def _holdout_names(self) -> dict[str, str]:
        """Holdout id -> name; the ids come first because gates name the holdouts they sit in."""
        names: dict[str, str] = {}
        for index in range(self.size.holdouts):
            team = self.org.teams[index % len(self.org.teams)].name
            name = unique_name(f"{self.rng.choice(words.HOLDOUT_SEASONS)} {team} holdout", names)
            names[slug(name)] = name
        return names

    def _gates(self, holdout_ids: list[str]) -> dict[str, list[str]]:
        """Builds the gates; returns the gates that must be referenced, by who references them."""
        rng, org = self.rng, self.org
        archetypes = list(GATE_ARCHETYPES)
        references: dict[str, list[str]] = {"gate": [], "config": [], "experiment": []}
        referencers = ("gate", "config", "experiment")
        referenced_count = 0
        pipeline_ids = list(org.release_pipelines)
        for index in range(self.size.gates):
            guaranteed = index < len(archetypes)
            archetype = archetypes[index] if guaranteed else weighted(rng, GATE_ARCHETYPES)
            gate, facts = build_gate(rng, org, archetype, taken=org.gates, holdout_ids=holdout_ids, pipeline_ids=pipeline_ids)
            if not guaranteed and rng.random() < 0.04:
                gate["status"], gate["isEnabled"] = "Archived", False
            org.add_gate(gate, facts)
            if archetype == "referenced":
                references[referencers[referenced_count % 3]].append(gate["id"])
                referenced_count += 1
        # Gate references come from permanent gates: their own type never depends on their rules.
        holders = [g for g in org.gates.values() if org.gate_facts[g["id"]].lifetime == "PERMANENT" and g["status"] != "Archived"]
        for gate_id in references.pop("gate"):
            if not holders:
                references["config"].append(gate_id)
                continue
            holder = rng.choice(holders)
            holder["rules"].insert(0, make_rule(rng, 100, [gate_reference_condition(rng, gate_id)], name="Depends on " + gate_id))
        experiments = list(org.experiments.values())
        for index, gate_id in enumerate(references.pop("experiment")):
            if index < len(experiments):
                experiments[index].targeting_gate_id = gate_id
            else:
                references["config"].append(gate_id)
        return references

    def _dynamic_configs(self, references: dict[str, list[str]]) -> None:
        rng, org = self.rng, self.org
        taken: set[str] = set()
        pipeline_ids = list(org.release_pipelines)
        teams = {team.name: team for team in org.teams}
        for index in range(self.size.dynamic_configs):
            name = unique_name(display_name(rng.choice(words.AREAS), rng.choice(words.CONFIG_SUBJECTS)), taken)
            taken.add(slug(name))
            # The first three cover every status; the rest follow the usual mix.
            status = (
                ("Archived", "Disabled", "Enabled")[index]
                if index < 3
                else weighted(rng, {"Enabled": 75, "Disabled": 15, "Archived": 10})
            )
            creator = rng.choice(org.people)
            modifier = rng.choice(org.people)
            created = days_ago(rng, org.now_ms, 1, 600)
            modified = created + int(rng.random() * (org.now_ms - created))
            default_value, properties = copy.deepcopy(rng.choice(words.CONFIG_VALUES))
            schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "properties": properties}
            with_schema = rng.random() < 0.75
            # org.people are the organisation's members, each in a team (the console API's own person is not one)
            team = teams[creator.team or ""]
            config = {
                "id": slug(name),
                "name": name,
                "description": f"{name} served to clients at start-up.",
                "idType": weighted(rng, ID_TYPE_WEIGHTS),
                **audit_members(creator, created, modifier, modified),
                "targetApps": list(rng.choice(words.TARGET_APPS)),
                "holdoutIDs": [],
                "tags": sorted(rng.sample(words.TAGS, k=rng.choice((0, 1, 1, 2)))),
                "team": team.name,
                "teamID": team.team_id,
                "isEnabled": status == "Enabled",
                "rules": [self._config_rule(default_value) for _ in range(rng.choice((0, 1, 1, 2, 3)))],
                "defaultValue": default_value,
                "defaultValueJson5": json5_text(default_value),
                "schema": json.dumps(schema, separators=(",", ":")) if with_schema else None,
                "schemaJson5": json.dumps(schema, indent=2) if with_schema else None,
                "version": rng.randint(1, 9),
                "owner": creator.owner,
                "releasePipelineID": rng.choice(pipeline_ids) if pipeline_ids and rng.random() < 0.2 else None,
                "isTemplate": rng.random() < 0.05,
                "status": status,
            }
            if status == "Archived":
                # Archived from a state it returns to when unarchived.
                org.status_before_archive[config["id"]] = rng.choice(("Enabled", "Disabled"))
            org.dynamic_configs[config["id"]] = config
        live = [c for c in org.dynamic_configs.values() if c["status"] != "Archived"]
        for gate_id in references["config"]:
            holder = rng.choice(live)
            rule = self._config_rule(holder["defaultValue"])
            rule["conditions"] = [gate_reference_condition(rng, gate_id)]
            holder["rules"].append(rule)

    def _config_rule(self, default_value: dict) -> dict:
        rng = self.rng
        rule = make_rule(rng, rng.choice((0, 100) + PARTIAL_PERCENTAGES), [make_condition(rng)])
        value = variant_value(rng, default_value)
        rule["returnValue"] = value
        rule["returnValueJson5"] = json5_text(value)
        rollouts = rng.random() < 0.1
        now_ms = self.org.now_ms
        rule["completedAutomatedRollouts"] = (
            [
                {"time": days_ago(rng, now_ms, 8, 14), "passPercent": 10},
                {"time": days_ago(rng, now_ms, 1, 7), "passPercent": 25},
            ]
            if rollouts
            else []
        )
        rule["pendingAutomatedRollouts"] = (
            [{"time": now_ms + int(rng.uniform(1, 7) * DAY_MS), "passPercent": 50}] if rollouts else []
        )
        variants = []
        if rng.random() < 0.25:
            split = rng.choice(((50, 50), (34, 33, 33), (80, 20)))
            for number, share in enumerate(split):
                variant = variant_value(rng, default_value) if number else copy.deepcopy(default_value)
                variants.append(
                    {
                        "id": base62_id(rng),
                        "name": "Control" if number == 0 else f"Variant {'ABC'[number - 1]}",
                        "passPercentage": share,
                        "returnValue": variant,
                        "returnValueJson5": json5_text(variant),
                    }
                )
        rule["variants"] = variants
        return rule

    def _holdouts(self, holdout_names: dict[str, str]) -> None:
        rng, org = self.rng, self.org
        experiment_ids = list(org.experiments)
        rng.shuffle(experiment_ids)
        # A good share of experiments sit in a holdout; the rest are only known through configuration.
        held = experiment_ids[: round(len(experiment_ids) * 0.65)]
        permanent = [g["id"] for g in org.gates.values() if org.gate_facts[g["id"]].lifetime == "PERMANENT"]
        holdout_ids = list(holdout_names)
        for index, holdout_id in enumerate(holdout_ids):
            author = rng.choice(org.people)
            created = days_ago(rng, org.now_ms, 30, 500)
            modified = created + int(rng.random() * (org.now_ms - created))
            org.holdouts[holdout_id] = {
                "id": holdout_id,
                "name": holdout_names[holdout_id],
                "description": "Keeps a slice of users away from new launches to measure their combined effect.",
                "idType": "userID",
                **audit_members(author, created, author, modified),
                "targetApps": [],
                "tags": [],
                "team": author.team,
                "isEnabled": rng.random() < 0.9,
                "isGlobal": index == 0,
                "passPercentage": rng.choice((0, 1, 2, 5, 10)),
                "gateIDs": [],
                "experimentIDs": [],
                "layerIDs": [base62_id(rng) for _ in range(rng.choice((0, 0, 1, 2)))],
                "targetingGateID": rng.choice(permanent) if permanent and rng.random() < 0.2 else None,
            }
        for experiment_id in held:
            org.holdouts[rng.choice(holdout_ids)]["experimentIDs"].append(experiment_id)
        for gate in org.gates.values():
            for holdout_id in gate["holdoutIDs"]:
                org.holdouts[holdout_id]["gateIDs"].append(gate["id"])
        for config in org.dynamic_configs.values():
            if not config["holdoutIDs"] and rng.random() < 0.1:
                config["holdoutIDs"] = [rng.choice(holdout_ids)]

    def _experiments(self) -> None:
        rng, org = self.rng, self.org
        today = org.today
        for index in range(self.size.experiments):
            groups = rng.choice(words.EXPERIMENT_GROUPS)
            shares = [1 / len(groups)] * len(groups)
            # The first experiment of every organisation is imbalanced, the second stalls.
            imbalanced = index == 0 or (index > 1 and rng.random() < 0.15)
            if imbalanced:
                shares[-1] *= rng.uniform(0.85, 0.93)
            start = today - timedelta(days=rng.randint(3, 75) if index < 2 else rng.randint(0, 75))
            running_days = (today - start).days
            stalled_on = None
            if index == 1 or (index > 1 and running_days >= 2 and rng.random() < 0.15):
                stalled_on = start + timedelta(days=rng.randint(1, running_days - 1))
            experiment = Experiment(
                experiment_id=base62_id(rng),
                name=display_name(rng.choice(words.AREAS), rng.choice(words.FEATURES), "test"),
                start_date=start,
                groups=[ExposureGroup(base62_id(rng), name, share) for name, share in zip(groups, shares, strict=True)],
                daily_volume=int(rng.lognormvariate(9, 1)),
                decay=rng.uniform(0.2, 0.7),
                floor=rng.uniform(0.01, 0.08),
                launch_day_share=rng.choice((0.0, 0.0, rng.uniform(0.01, 0.3))),
                stalled_on=stalled_on,
                imbalanced=imbalanced,
            )
            for day_index in range(running_days + 1):
                experiment.add_day(day_index, *exposure_noise(rng, len(experiment.groups)))
            experiment.ended_on = concluded_on(experiment, index, today)
            org.experiments[experiment.experiment_id] = experiment

    def _ingestion_runs(self) -> None:
        rng, org = self.rng, self.org
        now_ms = org.now_ms
        settled = ("pulse_complete", "gives_up")
        in_flight = tuple(s for s in INGESTION_STATUSES if s != "pulse_complete")
        for index in range(self.size.ingestion_runs):
            # The first runs show every status at the epoch (download_error both retrying and given up).
            if index < len(in_flight) + len(settled):
                target = (in_flight + settled)[index]
            else:
                # Runs take hours and a schedule spreads them over the history: at any moment only
                # the latest few are in flight; most finished long ago (or gave up on an error).
                target = weighted(rng, {"pulse_complete": 80, "gives_up": 12, "in_flight": 8})
                if target == "in_flight":
                    target = rng.choice(in_flight)
            sources = rng.sample(words.INGESTION_SOURCES, k=rng.randint(1, 3))
            offsets, per_source = _script_for(rng, target, sources)
            if target in settled:
                created = now_ms - offsets[-1][0] - int(rng.uniform(0.05, self.size.run_history_days) * DAY_MS)
            else:
                # Place the run so that the clock stands between `target` and the status after it.
                # The last occurrence: a retried download_error is followed by a new download_started.
                position = max(i for i, (_, status) in enumerate(offsets) if status == target)
                here, after = offsets[position][0], offsets[position + 1][0]
                created = now_ms - here - int(rng.uniform(0.1, 0.9) * (after - here))
            run = build_ingestion_run(rng, created, (offsets, per_source), sources)
            org.ingestion_runs[run.run_id] = run

    def _qualifying_events(self) -> None:
        rng, org = self.rng, self.org
        taken: set[str] = set()
        for index in range(self.size.qualifying_events):
            name, description, table, column, id_columns = words.QUALIFYING_EVENTS[index % len(words.QUALIFYING_EVENTS)]
            region = words.QUALIFYING_REGIONS[(index // len(words.QUALIFYING_EVENTS)) % len(words.QUALIFYING_REGIONS)]
            name = unique_name(f"{name}{region}", taken)
            taken.add(slug(name))
            as_table = rng.random() < 0.3
            org.qualifying_events.append(
                {
                    "name": name,
                    "description": description,
                    "tags": sorted(rng.sample(words.TAGS, k=rng.choice((0, 0, 1)))),
                    "sql": (
                        f"SELECT *\nFROM {table}\nwhere DATE({column}) between {{service_start_date}} and {{service_end_date}}\n"
                    ),
                    "timestampColumn": column,
                    "timestampAsDay": rng.random() < 0.2,
                    "idTypeMapping": [{"serviceUnitID": unit, "column": id_column} for unit, id_column in id_columns],
                    "tableName": table if as_table else "",
                    "customFieldMapping": rng.choice(
                        (
                            [{"key": "", "formula": ""}],
                            [],
                            [{"key": "revenue", "formula": "amount_usd"}, {"key": "country", "formula": "geo_country"}],
                        )
                    ),
                }
            )

    def _scim_groups(self) -> None:
        org = self.org
        stamp = iso_ms(org.now_ms - 90 * DAY_MS)
        for team in org.teams:
            org.scim_groups[team.team_id] = {
                "schemas": [SCIM_GROUP_SCHEMA],
                "id": team.team_id,
                "displayName": team.name,
                "members": [{"value": p.person_id, "display": p.name} for p in org.people if p.team == team.name],
                "meta": {"resourceType": "Group", "created": stamp, "lastModified": stamp},
            }


def exposure_noise(rng: random.Random, groups: int) -> tuple[float, list[float]]:
    """(the day's traffic swing, each group's assignment jitter)."""
    return rng.uniform(0.85, 1.15), [rng.uniform(0.99, 1.01) for _ in range(groups)]


def variant_value(rng: random.Random, default_value: dict) -> dict:
    """Another value of the same shape, as a rule or variant returns it."""
    value = copy.deepcopy(default_value)
    for key, item in value.items():
        if isinstance(item, bool):
            value[key] = not item
        elif isinstance(item, int):
            value[key] = item * rng.choice((2, 3, 5))
        elif isinstance(item, str):
            value[key] = f"{item} ({rng.choice(('bold', 'short', 'test'))})"
    return value


def build_organisation(size: str, seed: int) -> Organisation:
    # A build allocates a great many small containers and frees none of them: the cyclic garbage
    # collector would rescan them over and over for nothing, a good part of a large build's time.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return OrganisationBuilder(size, seed).build()
    finally:
        if collecting:
            gc.enable()


# Most experiments of a real organisation have concluded; the first three always run (they carry
# the imbalanced and stalled cases every organisation shows).
CONCLUDED_SHARE = 0.6


def concluded_on(experiment: Experiment, index: int, today: date) -> date | None:
    """The last day of a concluded experiment, or None while it runs.

    Drawn from the experiment's own random stream, so adding this changed no other generated value.
    """
    running_days = (today - experiment.start_date).days
    if index < 3 or running_days < 10:
        return None
    rng = random.Random(f"concluded:{experiment.experiment_id}")
    if rng.random() >= CONCLUDED_SHARE:
        return None
    return experiment.start_date + timedelta(days=rng.randint(7, running_days - 2))
