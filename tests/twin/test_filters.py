"""List filters answer what the organisation says they should: single values, repeated values (any of),
several filters (all of)."""

from __future__ import annotations

import httpx
import pytest

from gatehouse.console_twin import ConsoleTwin
from gatehouse.console_twin.gates import sampled_outcome
from tests.twin.conftest import read_all

MEDIUM = ConsoleTwin("medium", seed=3)  # read-only here: enough gates for every filter value to match some


def gate_pass_rate(twin: ConsoleTwin, gate: dict) -> str | None:
    # The sampled outcome is hidden telemetry: only the twin's model of it can say.
    outcome = sampled_outcome(gate, twin.organisation.gate_facts[gate["id"]])
    return {"all_true": "100", "all_false": "0", "mixed": "INBETWEEN"}.get(outcome)


def gate_rollout_rate(gate: dict) -> str | None:
    percentages = [rule["passPercentage"] for rule in gate["rules"]]
    everyone = any(len(r["conditions"]) == 1 and r["conditions"][0]["type"] == "public" for r in gate["rules"])
    if not percentages:
        return None
    if any(0 < p < 100 for p in percentages):
        return "INBETWEEN"
    if set(percentages) == {0}:
        return "0"
    if set(percentages) == {100} and everyone:
        return "100"
    return None


GATE_FILTERS = [
    ("idType", ["userID"], lambda t, g: g["idType"] == "userID"),
    ("idType", ["stableID", "companyID"], lambda t, g: g["idType"] in ("stableID", "companyID")),
    ("type", ["STALE"], lambda t, g: g["type"] == "STALE"),
    ("type", ["TEMPLATE"], lambda t, g: g["type"] == "TEMPLATE"),
    ("typeReason", ["STALE_PROBABLY_FORGOTTEN"], lambda t, g: g["typeReason"] == "STALE_PROBABLY_FORGOTTEN"),
    (
        "typeReason",
        ["STALE_ALL_TRUE", "STALE_ALL_FALSE"],
        lambda t, g: g["typeReason"] in ("STALE_ALL_TRUE", "STALE_ALL_FALSE"),
    ),
    ("passRate", ["0"], lambda t, g: gate_pass_rate(t, g) == "0"),
    ("passRate", ["100"], lambda t, g: gate_pass_rate(t, g) == "100"),
    ("passRate", ["INBETWEEN", "100"], lambda t, g: gate_pass_rate(t, g) in ("INBETWEEN", "100")),
    ("rolloutRate", ["0"], lambda t, g: gate_rollout_rate(g) == "0"),
    ("rolloutRate", ["100"], lambda t, g: gate_rollout_rate(g) == "100"),
    ("rolloutRate", ["INBETWEEN"], lambda t, g: gate_rollout_rate(g) == "INBETWEEN"),
    ("creatorName", ["CONSOLE API"], lambda t, g: g["creatorName"] == "CONSOLE API"),
    ("tags", ["core"], lambda t, g: "core" in g["tags"]),
    ("tags", ["core", "payments"], lambda t, g: bool({"core", "payments"} & set(g["tags"]))),
]


@pytest.fixture(scope="module")
def medium_console():
    with httpx.Client(
        transport=MEDIUM.transport(),
        base_url="http://console.test",
        headers={"SERVICE-API-KEY": MEDIUM.settings.api_key},
    ) as client:
        yield client


@pytest.mark.parametrize("name, values, matches", GATE_FILTERS, ids=[f"{f[0]}={','.join(f[1])}" for f in GATE_FILTERS])
def test_gate_filters(medium_console, name, values, matches):
    expected = [gate["id"] for gate in MEDIUM.organisation.listed_gates() if matches(MEDIUM, gate)]
    served = [gate["id"] for gate in read_all(medium_console, "/console/v1/gates", {name: values}, limit=1000)]

    assert served == expected
    assert expected  # the organisation has gates of every filtered kind


def test_id_filters_and_release_pipelines(medium_console):
    person = MEDIUM.organisation.people[1]
    pipeline_id = next(iter(MEDIUM.organisation.release_pipelines))
    facts = MEDIUM.organisation.gate_facts

    by_creator = read_all(medium_console, "/console/v1/gates", {"creatorID": person.person_id}, limit=1000)
    by_pipeline = read_all(medium_console, "/console/v1/gates", {"releasePipelineID": pipeline_id}, limit=1000)

    assert by_creator and all(g["creatorID"] == person.person_id for g in by_creator)
    assert by_pipeline and all(facts[g["id"]].release_pipeline_id == pipeline_id for g in by_pipeline)


def test_filters_combine_and_empty_values_are_ignored(medium_console):
    served = read_all(medium_console, "/console/v1/gates", {"type": "STALE", "tags": "core", "creatorName": ""}, limit=1000)
    expected = [g for g in MEDIUM.organisation.listed_gates() if g["type"] == "STALE" and "core" in g["tags"]]
    assert served == expected


CONFIG_FILTERS = [
    ("tags", ["growth", "infra"], lambda c: bool({"growth", "infra"} & set(c["tags"]))),
    (
        "creatorName",
        [MEDIUM.organisation.people[0].name],
        lambda c: c["creatorName"] == MEDIUM.organisation.people[0].name,
    ),
    (
        "releasePipelineID",
        [next(iter(MEDIUM.organisation.release_pipelines))],
        lambda c: c["releasePipelineID"] == next(iter(MEDIUM.organisation.release_pipelines)),
    ),
    (
        "creatorID",
        [MEDIUM.organisation.people[2].person_id],
        lambda c: c["creatorID"] == MEDIUM.organisation.people[2].person_id,
    ),
]


@pytest.mark.parametrize("name, values, matches", CONFIG_FILTERS, ids=[f[0] for f in CONFIG_FILTERS])
def test_dynamic_config_filters(medium_console, name, values, matches):
    expected = [c["id"] for c in MEDIUM.organisation.listed_dynamic_configs() if matches(c)]
    served = [c["id"] for c in read_all(medium_console, "/console/v1/dynamic_configs", {name: values}, limit=200)]
    assert served == expected
    assert expected
