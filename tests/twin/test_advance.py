"""Moving the twin's clock: gates change, appear and disappear, staleness follows age, exposures gain a
day, unsettled runs progress; and the drill helpers that change gates on demand."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest

from gatehouse.console_twin import ConsoleTwin, TwinSettings
from tests.twin.conftest import read_all

DAY_MS = 86_400_000


def test_advancing_moves_the_clock_and_the_date_header(twin, console):
    twin.advance(days=2)
    assert console.get("/console/v1/gates", params={"limit": 1}).headers["date"] == "Wed, 04 Nov 2026 06:00:00 GMT"


def test_a_day_changes_some_gates_creates_some_and_removes_some():
    twin = ConsoleTwin("medium", 0)
    before = {gate_id: dict(gate) for gate_id, gate in twin.organisation.gates.items()}
    listed_before = {gate["id"] for gate in twin.organisation.listed_gates()}
    start = twin.organisation.now_ms

    twin.advance(days=3)

    org = twin.organisation
    listed_after = {gate["id"] for gate in org.listed_gates()}
    created = listed_after - set(before)
    modified = [g for g_id, g in org.gates.items() if g_id in before and g["lastModifiedTime"] > before[g_id]["lastModifiedTime"]]
    gone = listed_before - listed_after
    assert created and all(start < org.gates[g]["createdTime"] <= org.now_ms for g in created)
    assert modified and all(g["version"] > before[g["id"]]["version"] and g["lastModifiedTime"] <= org.now_ms for g in modified)
    assert gone
    assert any(g not in org.gates for g in gone), "some gates were deleted"
    assert any(org.gates.get(g, {}).get("status") == "Archived" for g in gone), "some gates were archived"
    assert org.listed_gates()[0]["id"] in created  # new gates come first in the list


def test_fresh_gates_go_stale_as_they_age():
    twin = ConsoleTwin("small", 0)
    fresh = {
        g["id"]
        for g in twin.organisation.gates.values()
        if g["type"] == "TEMPORARY" and twin.organisation.now_ms - g["lastModifiedTime"] < 20 * DAY_MS
    }
    twin.advance(days=45)
    aged = {g_id for g_id in fresh if g_id in twin.organisation.gates and twin.organisation.gates[g_id]["type"] == "STALE"}
    assert aged


def test_a_day_completes_yesterdays_exposures_and_starts_today(twin):
    org = twin.organisation
    running = next(e for e in org.experiments.values() if e.stalled_on is None)
    stalled = next(e for e in org.experiments.values() if e.stalled_on is not None)
    before = org.cumulative_exposures(running.experiment_id)
    stalled_before = org.cumulative_exposures(stalled.experiment_id)

    twin.advance(days=1)

    after = org.cumulative_exposures(running.experiment_id)
    for group_before, group_after in zip(before, after, strict=True):
        assert len(group_after["results"]) == len(group_before["results"]) + 1
        assert group_after["results"][:-2] == group_before["results"][:-1]
        yesterday_partial, yesterday_full = group_before["results"][-1], group_after["results"][-2]
        assert yesterday_full["date"] == yesterday_partial["date"]
        assert yesterday_full["exposures"] >= yesterday_partial["exposures"]
        assert group_after["results"][-1]["exposures"] >= yesterday_full["exposures"]
    stalled_after = org.cumulative_exposures(stalled.experiment_id)
    assert [g["results"][-1]["exposures"] for g in stalled_after] == [g["results"][-1]["exposures"] for g in stalled_before]


def test_unsettled_runs_progress_and_new_runs_are_scheduled():
    twin = ConsoleTwin("medium", 0)
    org = twin.organisation
    before = {run_id: org.ingestion_run(run_id)["latestStatus"] for run_id in twin.ingestion_run_ids}
    unsettled = [run_id for run_id, status in before.items() if status != "pulse_complete"]

    twin.advance(days=2)

    after = {run_id: org.ingestion_run(run_id)["latestStatus"] for run_id in unsettled}
    assert any(after[r] == "pulse_complete" for r in unsettled), "some runs complete"
    assert any(before[r] != "download_error" and after[r] == "download_error" for r in unsettled), "some runs fail"
    assert any(before[r] == "download_error" and after[r] != "download_error" for r in unsettled), "some errors are retried"
    assert any(before[r] == after[r] == "download_error" for r in unsettled), "some runs stay in error"
    assert len(twin.ingestion_run_ids) > len(before)
    assert all(
        org.ingestion_run(r)["lastUpdatedAt"] <= twin.now.strftime("%Y-%m-%dT%H:%M:%S.999Z") for r in twin.ingestion_run_ids
    )


def test_the_admin_path_advances_the_clock_only_when_enabled():
    twin = ConsoleTwin("small", 0, TwinSettings(admin=True))
    with httpx.Client(transport=twin.transport(), base_url="http://console.test") as client:
        answer = client.post("/_twin/advance", params={"days": 2})
        bad = client.post("/_twin/advance", params={"days": "soon"})

    assert answer.status_code == 200
    assert answer.json()["data"] == {"now": "2026-11-04T06:00:00+00:00", "daysAdvanced": 2}
    assert bad.status_code == 400
    assert twin.days_advanced == 2


def test_create_gate_puts_a_new_gate_first_and_delete_gate_removes_it(twin, console):
    created = twin.create_gate("drill_gate", tags=["drill"])
    assert created["createdTime"] == twin.organisation.now_ms
    assert created["checksPerHour"] is None and created["type"] == "TEMPORARY"
    listed = read_all(console, "/console/v1/gates", limit=10)
    assert listed[0]["id"] == "drill_gate" and listed[0]["tags"] == ["drill"]

    twin.delete_gate("drill_gate")
    assert console.get("/console/v1/gates/drill_gate").status_code == 404
    assert "drill_gate" not in {g["id"] for g in read_all(console, "/console/v1/gates", limit=10)}


def test_deleting_the_only_reference_to_a_gate_lets_it_go_stale(twin):
    org = twin.organisation
    referencing = {
        gate["id"]: condition["targetValue"][0]
        for gate in org.listed_gates()
        for rule in gate["rules"]
        for condition in rule["conditions"]
        if condition["type"] in ("passes_gate", "fails_gate")
    }
    holder, target = next(iter(referencing.items()))
    assert org.gates[target]["type"] == "TEMPORARY"

    twin.delete_gate(holder)

    assert org.gates[target]["type"] == "STALE"


@pytest.mark.parametrize("created_time", [None, 1])
def test_create_dynamic_config_lists_it_by_created_time_and_delete_removes_it(twin, console, created_time):
    fields = {} if created_time is None else {"createdTime": created_time}
    created = twin.create_dynamic_config("drill_config", **fields)
    assert (created["status"], created["isEnabled"], created["holdoutIDs"]) == ("Enabled", True, [])
    listed = [c["id"] for c in read_all(console, "/console/v1/dynamic_configs", limit=5)]
    # newest first: now first, an old createdTime last
    assert listed.index("drill_config") == (0 if created_time is None else len(listed) - 1)
    with pytest.raises(ValueError):
        twin.create_dynamic_config("drill_config")

    twin.delete_dynamic_config("drill_config")
    assert "drill_config" not in {c["id"] for c in read_all(console, "/console/v1/dynamic_configs", limit=5)}
    with pytest.raises(KeyError):
        twin.delete_dynamic_config("drill_config")


@pytest.mark.parametrize("delay", [0, 1, 3])
def test_a_late_exposure_computation_ends_every_series_days_before_today(twin, console, delay):
    experiment_id = next(e for e, x in twin.organisation.experiments.items() if x.ended_on is None)
    on_time = console.get(f"/console/v1/experiments/{experiment_id}/cumulative_exposures").json()["data"]
    twin.settings.exposure_delay_days = delay
    late = console.get(f"/console/v1/experiments/{experiment_id}/cumulative_exposures").json()["data"]

    newest = {max(p["date"] for p in group["results"]) for group in late}
    assert newest == {(twin.organisation.today - timedelta(days=delay)).isoformat()}
    # the computed days are unchanged, the later ones are absent
    assert [g["results"] for g in late] == [g["results"][: len(g["results"]) - delay] for g in on_time]

    twin.settings.exposure_delay_days = 0
    assert console.get(f"/console/v1/experiments/{experiment_id}/cumulative_exposures").json()["data"] == on_time


def test_exposure_delay_cannot_be_negative():
    with pytest.raises(ValueError):
        TwinSettings(exposure_delay_days=-1)
