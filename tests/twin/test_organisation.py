"""The synthetic organisation: deterministic, sized as promised, and consistent with the rules production
follows (staleness, exposure series, ingestion run histories)."""

from __future__ import annotations

import json
import re
from datetime import date, timedelta

import pytest

from gatehouse.console_twin import SIZES, ConsoleTwin
from gatehouse.console_twin.gates import pass_rate
from gatehouse.console_twin.organisation import INGESTION_STATUSES
from gatehouse.contract import CONDITION_TYPES
from tests.twin.conftest import SPEC_PATH

DAY_MS = 86_400_000
WINDOW_MS = 30 * DAY_MS
ISO_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
# A gate's members as the published interface describes them: the enums of its type and typeReason.
PUBLISHED_GATE = json.loads(SPEC_PATH.read_text())["components"]["schemas"]["ExternalGateDto"]["properties"]


def snapshot(twin: ConsoleTwin) -> str:
    """Everything the twin would answer, as one canonical text: equal text, equal organisation."""
    org = twin.organisation
    return json.dumps(
        {
            "now": org.now_ms,
            "gates": org.gates,
            "dynamic_configs": org.dynamic_configs,
            "holdouts": org.holdouts,
            "exposures": {e: org.cumulative_exposures(e) for e in org.experiments},
            "runs": {r: org.ingestion_run(r) for r in twin.ingestion_run_ids},
            "qualifying_events": org.qualifying_events,
            "release_pipelines": org.release_pipelines,
        },
        sort_keys=True,
    )


def is_everyone(rule: dict) -> bool:
    return [c["type"] for c in rule["conditions"]] == ["public"]


# --- determinism --------------------------------------------------------------------------------------
def test_same_size_and_seed_give_the_same_organisation():
    assert snapshot(ConsoleTwin("small", 7)) == snapshot(ConsoleTwin("small", 7))
    assert snapshot(ConsoleTwin("small", 7)) != snapshot(ConsoleTwin("small", 8))


def test_the_same_days_advanced_give_the_same_organisation_however_they_are_split():
    at_once, day_by_day = ConsoleTwin("small", 1), ConsoleTwin("small", 1)
    at_once.advance(days=3)
    for _ in range(3):
        day_by_day.advance(days=1)
    assert snapshot(at_once) == snapshot(day_by_day)
    assert at_once.days_advanced == 3


# --- sizes ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("size", ["small", "medium"])
def test_sizes(size):
    twin = ConsoleTwin(size, 0)
    org, expected = twin.organisation, SIZES[size]

    assert (len(org.gates), len(org.dynamic_configs), len(org.holdouts), len(org.experiments)) == (
        expected.gates,
        expected.dynamic_configs,
        expected.holdouts,
        expected.experiments,
    )
    assert (len(twin.ingestion_run_ids), len(org.qualifying_events)) == (
        expected.ingestion_runs,
        expected.qualifying_events,
    )


def test_a_large_organisation_serves_big_pages():
    # How fast is the bench's business (bench/RESULTS.md, the large organisation): a timed assertion here
    # failed on a busy shared machine, not on a slip.
    twin = ConsoleTwin("large", 0)
    headers = {"service-api-key": twin.settings.api_key}
    page = twin.answer("GET", "/console/v1/gates?limit=1000&page=3", headers, b"")
    everything = twin.answer("GET", "/console/v1/gates?limit=20000", headers, b"")

    assert len(twin.organisation.gates) == 20_000
    assert len(json.loads(page.body)["data"]) == 1000
    assert len(json.loads(everything.body)["data"]) == len(twin.organisation.listed_gates())


# --- gates: staleness -----------------------------------------------------------------------------------
def referenced_gates(twin: ConsoleTwin) -> set[str]:
    """Written from the rule text, apart from the twin's code: named by a live gate, config or experiment."""
    org = twin.organisation
    holders = org.listed_gates() + org.listed_dynamic_configs()
    named = {
        gate_id
        for holder in holders
        for rule in holder["rules"]
        for condition in rule["conditions"]
        if condition["type"] in ("passes_gate", "fails_gate")
        for gate_id in condition["targetValue"]
    }
    return named | {e.targeting_gate_id for e in org.experiments.values() if e.targeting_gate_id}


def assert_staleness_rules_hold(twin: ConsoleTwin) -> None:
    org = twin.organisation
    now = org.now_ms
    referenced = referenced_gates(twin)
    for gate in org.gates.values():
        facts = org.gate_facts[gate["id"]]
        kind, reason = gate["type"], gate["typeReason"]
        untouched_for_30_days = now - max(gate["createdTime"], gate["lastModifiedTime"]) >= WINDOW_MS
        checked_recently = facts.still_checked or (facts.last_check_ms or 0) >= now - WINDOW_MS
        first_checked_long_ago = facts.first_check_ms is not None and facts.first_check_ms <= now - WINDOW_MS
        context = f"{gate['id']}: {kind}/{reason}"

        # checksPerHour is null for a gate never checked, 0 once checks stopped, positive while checked.
        if facts.first_check_ms is None:
            assert gate["checksPerHour"] is None, context
        elif facts.still_checked:
            assert gate["checksPerHour"] > 0, context
        else:
            assert gate["checksPerHour"] == 0, context

        assert (reason == "NONE") == (kind != "STALE"), context
        if kind != "STALE":
            assert kind == facts.lifetime, context
            exempt = (
                kind != "TEMPORARY"
                or gate["status"] == "Archived"
                or not untouched_for_30_days
                or gate["id"] in referenced
                or (checked_recently and not first_checked_long_ago)
            )
            assert exempt, f"{context} should be stale"
            continue

        assert facts.lifetime == "TEMPORARY" and gate["status"] != "Archived", context
        assert untouched_for_30_days and gate["id"] not in referenced, context
        everyone = {rule["passPercentage"] for rule in gate["rules"] if is_everyone(rule)}
        if reason == "STALE_PROBABLY_DEAD_CHECK":
            assert not checked_recently and gate["checksPerHour"] in (0, None), context
            continue
        assert checked_recently and first_checked_long_ago, context
        if reason == "STALE_NO_RULES":
            assert gate["rules"] == [], context
        elif reason == "STALE_PROBABLY_LAUNCHED":
            assert gate["status"] == "Launched" or 100 in everyone, context
        elif reason == "STALE_PROBABLY_UNLAUNCHED":
            assert gate["status"] == "Disabled" or 0 in everyone, context
        elif reason == "STALE_EMPTY_CHECKS":
            assert facts.returns_nothing, context
        else:
            expected_rate = {"STALE_ALL_TRUE": "100", "STALE_ALL_FALSE": "0", "STALE_PROBABLY_FORGOTTEN": "INBETWEEN"}
            assert pass_rate(gate, facts) == expected_rate[reason], context


@pytest.mark.parametrize(
    "size, seed, days", [("small", 0, 0), ("small", 5, 0), ("medium", 0, 0), ("small", 0, 45), ("medium", 2, 40)]
)
def test_every_gate_obeys_the_staleness_rules(size, seed, days):
    twin = ConsoleTwin(size, seed)
    twin.advance(days)
    assert_staleness_rules_hold(twin)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_small_organisation_shows_every_type_reason_and_status(seed):
    gates = ConsoleTwin("small", seed).organisation.gates.values()
    assert {g["type"] for g in gates} == set(PUBLISHED_GATE["type"]["enum"])
    assert {g["typeReason"] for g in gates} == set(PUBLISHED_GATE["typeReason"]["enum"])
    assert {g["status"] for g in gates} >= {"In Progress", "Launched", "Disabled"}
    assert {g["checksPerHour"] is None for g in gates} == {True, False}
    pass_percentages = {rule["passPercentage"] for g in gates for rule in g["rules"]}
    assert {0, 100} <= pass_percentages and pass_percentages - {0, 100}
    assert any(g["rules"] == [] for g in gates)


def test_gates_have_a_small_realistic_cast_and_valid_names():
    org = ConsoleTwin("medium", 0).organisation
    owners = {g["owner"]["ownerName"] for g in org.gates.values()}
    assert "CONSOLE API" in owners and len(owners) <= len(org.people) + 1
    assert {g["team"] for g in org.gates.values()} <= {t.name for t in org.teams} | {None}
    assert all(re.fullmatch(r"[a-zA-Z0-9_\-. ]{3,100}", g["name"]) for g in org.gates.values())
    assert len({g["id"] for g in org.gates.values()}) == len(org.gates)


def test_conditions_use_every_type_of_the_openapi_enum():
    org = ConsoleTwin("medium", 0).organisation
    used = {
        condition["type"]
        for holder in list(org.gates.values()) + list(org.dynamic_configs.values())
        for rule in holder["rules"]
        for condition in rule["conditions"]
    }
    assert used == set(CONDITION_TYPES)


# --- holdouts, configs ------------------------------------------------------------------------------------
def test_holdouts_and_gates_name_each_other(twin):
    org = twin.organisation
    for holdout in org.holdouts.values():
        assert 0 <= holdout["passPercentage"] <= 10
        for gate_id in holdout["gateIDs"]:
            assert holdout["id"] in org.gates[gate_id]["holdoutIDs"]
    for gate in org.gates.values():
        for holdout_id in gate["holdoutIDs"]:
            assert gate["id"] in org.holdouts[holdout_id]["gateIDs"]
    assert any(h["gateIDs"] for h in org.holdouts.values())


@pytest.mark.parametrize("size", ["small", "medium"])
def test_holdouts_reach_a_good_share_of_experiments_but_not_all(size):
    twin = ConsoleTwin(size, 0)
    held = [e for h in twin.organisation.holdouts.values() for e in h["experimentIDs"]]
    assert len(held) == len(set(held)) and set(held) <= set(twin.experiment_ids)
    assert 0.5 <= len(held) / len(twin.experiment_ids) < 0.9


def json5_to_json(text: str) -> object:
    """Enough JSON5 for what the twin writes: unquoted keys and trailing commas."""
    quoted = re.sub(r"^(\s*)([A-Za-z_$][\w$]*):", r'\1"\2":', text, flags=re.M)
    return json.loads(re.sub(r",(\s*[}\]])", r"\1", quoted))


def test_config_values_and_their_json5_agree():
    org = ConsoleTwin("medium", 0).organisation
    for config in org.dynamic_configs.values():
        assert json5_to_json(config["defaultValueJson5"]) == config["defaultValue"]
        if config["schema"] is not None:
            assert json.loads(config["schema"]) == json.loads(config["schemaJson5"])
        for rule in config["rules"]:
            assert json5_to_json(rule["returnValueJson5"]) == rule["returnValue"]
            if rule["variants"]:
                assert sum(v["passPercentage"] for v in rule["variants"]) == 100
    assert {c["status"] for c in org.dynamic_configs.values()} == {"Enabled", "Disabled", "Archived"}
    assert all(c["isEnabled"] == (c["status"] == "Enabled") for c in org.dynamic_configs.values())


# --- experiments -------------------------------------------------------------------------------------------
def assert_exposure_series_valid(twin: ConsoleTwin) -> None:
    org = twin.organisation
    for experiment in org.experiments.values():
        series = org.cumulative_exposures(experiment.experiment_id)
        assert 2 <= len(series) <= 4
        for group in series:
            dates = [date.fromisoformat(point["date"]) for point in group["results"]]
            counts = [point["exposures"] for point in group["results"]]
            assert dates == [experiment.start_date + timedelta(days=i) for i in range(len(dates))]
            # A running experiment's series ends today, a concluded one's on its last day.
            assert dates[-1] == (experiment.ended_on or org.today)
            assert counts == sorted(counts)
            if experiment.stalled_on is not None and experiment.stalled_on <= dates[-1]:
                stalled_from = (experiment.stalled_on - experiment.start_date).days
                assert len(set(counts[stalled_from - 1 :])) == 1


@pytest.mark.parametrize("days", [0, 3])
def test_exposure_series_are_cumulative_daily_and_end_today(days):
    twin = ConsoleTwin("medium", 0)
    twin.advance(days)
    assert_exposure_series_valid(twin)


def test_most_experiments_have_concluded_and_their_series_stay_put():
    twin = ConsoleTwin("medium", 0)
    org = twin.organisation
    concluded = [e for e in org.experiments.values() if e.ended_on is not None]
    assert 0.4 < len(concluded) / len(org.experiments) < 0.7
    assert all(e.ended_on < org.today - timedelta(days=1) for e in concluded)
    before = {e.experiment_id: org.cumulative_exposures(e.experiment_id) for e in concluded}
    twin.advance(2)
    assert {e.experiment_id: org.cumulative_exposures(e.experiment_id) for e in concluded} == before


def test_todays_count_is_partial():
    org = ConsoleTwin("small", 0).organisation
    experiment = next(e for e in org.experiments.values() if e.stalled_on is None)
    group = experiment.groups[0]
    results = org.cumulative_exposures(experiment.experiment_id)[0]["results"]
    assert results[-1]["exposures"] - results[-2]["exposures"] == int(group.daily_new[-1] * 0.25) < group.daily_new[-1]


def test_some_experiments_show_a_sample_ratio_mismatch_and_others_do_not():
    org = ConsoleTwin("medium", 0).organisation
    for experiment in org.experiments.values():
        totals = [g["results"][-1]["exposures"] for g in org.cumulative_exposures(experiment.experiment_id)]
        if totals[0] < 1000:
            continue
        ratio = min(totals) / max(totals)
        assert (ratio < 0.95) == experiment.imbalanced, (experiment.experiment_id, totals)
    assert any(e.imbalanced for e in org.experiments.values())
    assert any(e.stalled_on for e in org.experiments.values())


# --- ingestion runs ------------------------------------------------------------------------------------------
def assert_run_views_valid(twin: ConsoleTwin) -> None:
    org = twin.organisation
    for run_id in twin.ingestion_run_ids:
        run = org.ingestion_run(run_id)
        assert UUID.match(run["runID"])
        assert run["trigger"] == "scheduled"
        history = run["runHistory"]
        stamps = [entry["statusTimestamp"] for entry in history]
        assert all(ISO_MS.match(stamp) for stamp in stamps + [run["createdAt"], run["lastUpdatedAt"]])
        assert stamps == sorted(stamps, reverse=True), "runHistory is newest first"
        assert history[-1] == {"statusTimestamp": run["createdAt"], "status": "enqueued"}
        assert (run["latestStatus"], run["lastUpdatedAt"]) == (history[0]["status"], history[0]["statusTimestamp"])
        assert all(entry["status"] in INGESTION_STATUSES for entry in history)
        assert [g["source"] for g in run["granularHistory"]] == run["sources"]
        for source in run["granularHistory"]:
            dates = [by_date["dateStamp"] for by_date in source["statusByDate"]]
            assert dates == sorted(run["dateStamps"], reverse=True)
            newest = source["statusByDate"][0]["statuses"]
            assert source["latestSourceStatus"] == newest[0]["status"]
            assert [s["statusTimestamp"] for s in newest] == sorted((s["statusTimestamp"] for s in newest), reverse=True)


@pytest.mark.parametrize("seed", [0, 1])
def test_ingestion_runs_show_every_status_and_retried_errors(seed):
    twin = ConsoleTwin("small", seed)
    assert_run_views_valid(twin)
    runs = [twin.organisation.ingestion_run(run_id) for run_id in twin.ingestion_run_ids]
    assert {run["latestStatus"] for run in runs} == set(INGESTION_STATUSES)

    def retried(run: dict) -> bool:
        statuses = [entry["status"] for entry in reversed(run["runHistory"])]
        return any(a == "download_error" and "download_started" in statuses[i:] for i, a in enumerate(statuses))

    assert any(retried(run) for run in runs)
    assert any(r.history[-1][1] == "download_error" for r in twin.organisation.ingestion_runs.values())  # gives up
