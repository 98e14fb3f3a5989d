"""One day in the life of the organisation: what changes when the twin's clock moves a day.

Each day draws from its own random stream, seeded by (size, seed, day number), so an organisation is
the same after `advance(2)` as after `advance(1)` twice. Changes are stamped at times inside the day that
just passed, never after the new clock.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from gatehouse.console_twin.gates import DAY_MS
from gatehouse.console_twin.generator import (
    HOUR_MS,
    MINUTE_MS,
    PARTIAL_PERCENTAGES,
    build_gate,
    checks_per_hour,
    everyone_condition,
    exposure_noise,
    json5_text,
    make_condition,
    make_rule,
    mark_created,
    scheduled_run,
    set_pass_percentage,
    variant_value,
)
from gatehouse.console_twin.organisation import Organisation

# Daily shares of the live gates (and configs) that change; rounded up or down at random, so a small
# organisation still sees an occasional archive or delete.
GATE_MODIFIED_SHARE = 0.015
GATE_CREATED_SHARE = 0.006
GATE_ARCHIVED_SHARE = 0.003
GATE_DELETED_SHARE = 0.002
CHECKS_STOPPED_SHARE = 0.005
CONFIG_MODIFIED_SHARE = 0.01
CONFIG_ARCHIVED_SHARE = 0.003


def advance_one_day(org: Organisation, day_number: int, runs_per_day: int, evolve: bool = True) -> None:
    rng = random.Random(f"console-twin:{org.size}:{org.seed}:day:{day_number}")
    day_start = org.now_ms
    org.now_ms += DAY_MS

    def during_day() -> int:
        return day_start + rng.randint(1, DAY_MS)

    if evolve:
        _evolve_gates(org, rng, during_day)
        _evolve_configs(org, rng, during_day)
    org.reclassify_gates()
    _add_exposure_day(org, rng)
    _schedule_runs(org, rng, runs_per_day)


def _count(rng: random.Random, population: int, share: float) -> int:
    expected = population * share
    return int(expected) + (rng.random() < expected - int(expected))


def _evolve_gates(org: Organisation, rng: random.Random, during_day: Callable[[], int]) -> None:
    live = [gate_id for gate_id, gate in org.gates.items() if gate["status"] != "Archived"]
    for gate_id in rng.sample(live, k=_count(rng, len(live), GATE_MODIFIED_SHARE)):
        _modify_gate(org, rng, org.gates[gate_id], during_day())

    for gate_id in rng.sample(live, k=_count(rng, len(live), CHECKS_STOPPED_SHARE)):
        facts = org.gate_facts[gate_id]
        if facts.still_checked:
            facts.still_checked, facts.last_check_ms = False, during_day()
            org.gates[gate_id]["checksPerHour"] = 0

    archived = set(rng.sample(live, k=_count(rng, len(live), GATE_ARCHIVED_SHARE)))
    for gate_id in sorted(archived):
        gate = org.gates[gate_id]
        gate["status"], gate["isEnabled"] = "Archived", False
        org.touch(gate, rng.choice(org.people), during_day())
    remaining = [gate_id for gate_id in live if gate_id not in archived]
    for gate_id in rng.sample(remaining, k=_count(rng, len(remaining), GATE_DELETED_SHARE)):
        org.remove_gate(gate_id)

    holdout_ids = list(org.holdouts)
    pipeline_ids = list(org.release_pipelines)
    for _ in range(_count(rng, len(live), GATE_CREATED_SHARE)):
        archetype = "permanent" if rng.random() < 0.2 else "fresh"
        gate, facts = build_gate(rng, org, archetype, taken=org.gates, holdout_ids=holdout_ids, pipeline_ids=pipeline_ids)
        created = during_day()
        mark_created(gate, created)
        # A new gate is wired into code at once: checked from within hours of its creation.
        facts.first_check_ms = min(created + rng.randint(MINUTE_MS, 6 * HOUR_MS), org.now_ms)
        facts.last_check_ms, facts.still_checked = None, True
        gate["checksPerHour"] = checks_per_hour(rng, facts.first_check_ms, True)
        org.add_gate(gate, facts)


def _modify_gate(org: Organisation, rng: random.Random, gate: dict, at_ms: int) -> None:
    change = rng.choice(("rollout", "rollout", "launch", "disable", "tags", "description"))
    if change == "rollout":
        partial = [rule for rule in gate["rules"] if 0 < rule["passPercentage"] < 100]
        if partial:
            rule = rng.choice(partial)
            set_pass_percentage(rule, rng.choice([p for p in PARTIAL_PERCENTAGES + (100,) if p > rule["passPercentage"]]))
        else:
            gate["rules"].append(make_rule(rng, rng.choice(PARTIAL_PERCENTAGES), [make_condition(rng)]))
    elif change == "launch":
        gate["status"], gate["isEnabled"] = "Launched", True
        gate["rules"] = [make_rule(rng, 100, [everyone_condition()])]
        org.gate_facts[gate["id"]].audience = "all"
    elif change == "disable":
        gate["status"], gate["isEnabled"] = "Disabled", False
    elif change == "tags":
        gate["tags"] = sorted({*gate["tags"], rng.choice(("tech-debt", "cleanup", "q4-launch"))})
    else:
        gate["description"] = (gate["description"] + " Reviewed.").strip()
    org.touch(gate, rng.choice(org.people), at_ms)


def _evolve_configs(org: Organisation, rng: random.Random, during_day: Callable[[], int]) -> None:
    live = [config_id for config_id, config in org.dynamic_configs.items() if config["status"] != "Archived"]
    for config_id in rng.sample(live, k=_count(rng, len(live), CONFIG_MODIFIED_SHARE)):
        config = org.dynamic_configs[config_id]
        if config["rules"]:
            set_pass_percentage(rng.choice(config["rules"]), rng.choice((0, 100) + PARTIAL_PERCENTAGES))
        else:
            config["defaultValue"] = variant_value(rng, config["defaultValue"])
            config["defaultValueJson5"] = json5_text(config["defaultValue"])
        org.touch(config, rng.choice(org.people), during_day())
    for config_id in rng.sample(live, k=_count(rng, len(live), CONFIG_ARCHIVED_SHARE)):
        org.archive_dynamic_config(config_id, rng.choice(org.people), during_day())


def _add_exposure_day(org: Organisation, rng: random.Random) -> None:
    # Yesterday's partial count completes (the stored full-day figure) and today starts a new one.
    for experiment in org.experiments.values():
        experiment.add_day((org.today - experiment.start_date).days, *exposure_noise(rng, len(experiment.groups)))


def _schedule_runs(org: Organisation, rng: random.Random, runs_per_day: int) -> None:
    midnight = org.now_ms - org.now_ms % DAY_MS
    for _ in range(runs_per_day):
        run = scheduled_run(rng, midnight + int(rng.uniform(0.3, 0.9) * (org.now_ms - midnight)))
        org.ingestion_runs[run.run_id] = run
