"""What the console knows about a gate beyond its public fields, and how it derives type, pass and rollout rates.

The staleness rules are those of the production console (gap-decisions.md, "Gates"). They are applied
as an ordered decision so that every gate has exactly one `type`/`typeReason`:

1. permanent, template and archived gates keep their declared type, reason NONE;
2. a gate created or modified in the last 30 days, or referenced by another gate, an experiment or a
   config, is TEMPORARY/NONE;
3. no checks in the last 30 days: STALE_PROBABLY_DEAD_CHECK;
4. checked, but first checked less than 30 days ago: TEMPORARY/NONE;
5. otherwise STALE, the reason being the first that holds of: no rules (STALE_NO_RULES); launched or an
   everyone rule passing 100% (STALE_PROBABLY_LAUNCHED); disabled or an everyone rule passing 0%
   (STALE_PROBABLY_UNLAUNCHED); every sampled check true / false / empty (STALE_ALL_TRUE / STALE_ALL_FALSE /
   STALE_EMPTY_CHECKS); else partly rolled out for a long time (STALE_PROBABLY_FORGOTTEN).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

DAY_MS = 86_400_000
STALE_WINDOW_MS = 30 * DAY_MS

GATE_STATUSES = ("In Progress", "Launched", "Disabled", "Archived")
GATE_REFERENCE_CONDITIONS = ("passes_gate", "fails_gate")

Audience = Literal["all", "some", "none"]
Lifetime = Literal["TEMPORARY", "PERMANENT", "TEMPLATE"]


@dataclass
class GateFacts:
    """Hidden state of a gate: its declared lifetime, check telemetry and release pipeline."""

    lifetime: Lifetime  # the type a gate has while not stale
    order: int  # creation order; breaks createdTime ties in the newest-first list
    release_pipeline_id: str | None = None
    first_check_ms: int | None = None  # None: never checked
    last_check_ms: int | None = None  # when checks stopped; ignored while still_checked
    still_checked: bool = False
    # Which checked units match the rules: "all" match the first rule, "none" match no targeted rule,
    # "some" spread over the rules and fall through.
    audience: Audience = "some"
    returns_nothing: bool = False  # checks arrive but evaluate to no value (STALE_EMPTY_CHECKS)

    def checked_within_window(self, now_ms: int) -> bool:
        if self.still_checked:
            return True
        return self.last_check_ms is not None and self.last_check_ms >= now_ms - STALE_WINDOW_MS


def is_everyone_rule(rule: dict) -> bool:
    conditions = rule.get("conditions") or []
    return len(conditions) == 1 and conditions[0].get("type") == "public"


def rollout_rate(rules: list[dict]) -> str | None:
    """The `rolloutRate` filter value a gate's rules answer to, or None when it answers to none."""
    percentages = [rule["passPercentage"] for rule in rules]
    if not percentages:
        return None
    if any(0 < p < 100 for p in percentages):
        return "INBETWEEN"
    if all(p == 0 for p in percentages):
        return "0"
    if all(p == 100 for p in percentages) and any(is_everyone_rule(rule) for rule in rules):
        return "100"
    return None


def sampled_outcome(gate: dict, facts: GateFacts) -> Literal["all_true", "all_false", "mixed", "empty"]:
    """What a sampling of the gate's recent checks returned."""
    if facts.returns_nothing:
        return "empty"
    rules = gate["rules"]
    if not gate["isEnabled"] or not rules:
        return "all_false"
    everyone = next((index for index, rule in enumerate(rules) if is_everyone_rule(rule)), None)
    falls_through_to_false = False
    if everyone is None:
        if facts.audience == "none":
            return "all_false"
        reachable = rules[:1] if facts.audience == "all" else rules
        falls_through_to_false = facts.audience == "some"
    elif facts.audience == "all":
        reachable = rules[:1]
    elif facts.audience == "none":
        reachable = [rules[everyone]]
    else:
        reachable = rules[: everyone + 1]
    percentages = {rule["passPercentage"] for rule in reachable}
    if falls_through_to_false:
        percentages.add(0)
    if percentages == {100}:
        return "all_true"
    if percentages == {0}:
        return "all_false"
    return "mixed"


def pass_rate(gate: dict, facts: GateFacts) -> str | None:
    """The `passRate` filter value: from the sampled outcome; a gate whose checks return nothing has none."""
    return {"all_true": "100", "all_false": "0", "mixed": "INBETWEEN"}.get(sampled_outcome(gate, facts))


def referenced_gate_ids(rule_holders: list[dict]) -> set[str]:
    """Gate ids named by passes_gate / fails_gate conditions in the given gates' or configs' rules."""
    referenced: set[str] = set()
    for holder in rule_holders:
        for rule in holder["rules"]:
            for condition in rule["conditions"]:
                if condition["type"] in GATE_REFERENCE_CONDITIONS and condition["targetValue"]:
                    referenced.update(condition["targetValue"])
    return referenced


def classify(gate: dict, facts: GateFacts, now_ms: int, referenced: set[str]) -> tuple[str, str]:
    """The (type, typeReason) the console shows for a gate at `now_ms`."""
    if facts.lifetime != "TEMPORARY" or gate["status"] == "Archived":
        return facts.lifetime, "NONE"
    if now_ms - max(gate["createdTime"], gate["lastModifiedTime"]) < STALE_WINDOW_MS:
        return "TEMPORARY", "NONE"
    if gate["id"] in referenced:
        return "TEMPORARY", "NONE"
    if not facts.checked_within_window(now_ms):
        return "STALE", "STALE_PROBABLY_DEAD_CHECK"
    if facts.first_check_ms is not None and facts.first_check_ms > now_ms - STALE_WINDOW_MS:
        return "TEMPORARY", "NONE"
    return "STALE", _stale_reason(gate, facts)


def _stale_reason(gate: dict, facts: GateFacts) -> str:
    rules = gate["rules"]
    if not rules:
        return "STALE_NO_RULES"
    everyone_percentages = {rule["passPercentage"] for rule in rules if is_everyone_rule(rule)}
    if gate["status"] == "Launched" or 100 in everyone_percentages:
        return "STALE_PROBABLY_LAUNCHED"
    if gate["status"] == "Disabled" or 0 in everyone_percentages:
        return "STALE_PROBABLY_UNLAUNCHED"
    outcome = sampled_outcome(gate, facts)
    if outcome == "all_true":
        return "STALE_ALL_TRUE"
    if outcome == "all_false":
        return "STALE_ALL_FALSE"
    if outcome == "empty":
        return "STALE_EMPTY_CHECKS"
    return "STALE_PROBABLY_FORGOTTEN"


def answer_to_everyone(gate: dict) -> bool | None:
    """What every user gets from the gate, or None when users get different answers.

    A user is checked against the rules in order and the first rule whose conditions match passes its
    percentage of users; a user no rule matches fails. Only the rules a user can reach count: those up to the
    first everyone rule, and without one, the failing fall-through. The twin's own reading, for the truth a
    time-travel play records; the analysis views read the answer their own way.
    """
    if gate["status"] == "Archived" or not gate["isEnabled"]:
        return False
    if gate["status"] == "Launched":
        return True
    reachable: set[int] = set()
    for rule in gate["rules"]:
        reachable.add(rule["passPercentage"])
        if is_everyone_rule(rule):
            break
    else:
        reachable.add(0)
    if reachable == {100}:
        return True
    if reachable == {0}:
        return False
    return None
