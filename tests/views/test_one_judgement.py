"""One judgement per gate: every surface that speaks of a gate says what `analytics.gate_lifecycle` says.

Driven from one console (tests/views/lifecycle_dataset.py: gates at every stage, a snooze): the worklist view, the
CSV, the terminal summary, the alerts, `gatehouse cleanup`'s choices, the report's HTML and the Dagster assets.
The dbt package's models are compared with the views, row for row, in tests/dbt.
"""

from __future__ import annotations

import csv
import html
from datetime import UTC, datetime
from pathlib import Path

import dlt
import pytest

from gatehouse.pipelines.alerts.conditions import stale_gate_conditions
from gatehouse.pipelines.cleanup.decisions import choose, read_decisions
from gatehouse.pipelines.reports.report import summarise, write_worklist_csv
from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.pipelines.warehouse.views import apply_views
from gatehouse.sources.gate_snoozes import gate_snoozes_source
from tests.code_refs.test_report import executed_text
from tests.views.conftest import query
from tests.views.console_dataset import console_pipeline
from tests.views.lifecycle_dataset import made_lifecycle

# launched_long is snoozed until after the "as of" (2026-11-01): off the worklist, the CSV and the alerts until then
SNOOZE = {
    "snooze_id": "s1",
    "project": None,
    "gate_id": "launched_long",
    "snoozed_until": "2026-11-20",
    "reason": "waiting for the mobile release",
    "snoozed_at": datetime(2026, 10, 31, 9, 0, tzinfo=UTC),
    "snoozed_by": "ana",
}


@pytest.fixture(scope="module")
def judged(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("one_judgement")
    database = made_lifecycle(tmp_path_factory, work)
    console_pipeline(database, work).run(gate_snoozes_source([SNOOZE]))
    apply_views(database)
    return database


def lifecycle(database: Path) -> dict[str, tuple]:
    rows = query(
        database,
        "select gate_id, stage, action, decision, cleanup_value, on_worklist, is_snoozed"
        " from analytics.gate_lifecycle order by gate_id",
    )
    return {gate: tuple(rest) for gate, *rest in rows}


def test_the_worklist_the_csv_and_the_alerts_say_the_stage_and_action_of_the_lifecycle(judged, tmp_path):
    judgement = lifecycle(judged)
    on_worklist = {gate for gate, (*_, listed, _) in judgement.items() if listed}
    assert judgement["launched_long"][-2:] == (False, True), "snoozed: off the worklist"
    listed = query(judged, "select gate_id, stage, recommended_action from analytics.stale_gates order by gate_id")
    assert {gate for gate, _, _ in listed} == on_worklist
    assert all((stage, action) == judgement[gate][:2] for gate, stage, action in listed)

    with (write_worklist_csv(Destination(duckdb_path=judged).for_reading(), tmp_path)).open(newline="", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    assert {row["gate_id"]: (row["stage"], row["recommended_action"]) for row in rows} == {
        gate: judgement[gate][:2] for gate in on_worklist
    }

    with Destination(duckdb_path=judged).reader() as reader:
        conditions = stale_gate_conditions(reader)
    alerted = {condition.key.split(":")[-1]: condition.text for condition in conditions}
    news = {gate for gate in on_worklist if judgement[gate][0] != "approaching"}
    assert set(alerted) == news
    for gate, text in alerted.items():
        stage, action = judgement[gate][:2]
        assert text.startswith(f"{gate} ({stage}, ") and f"): {action}" in text, text


def test_the_summary_lists_each_gate_with_its_stage_and_action(judged):
    judgement = lifecycle(judged)
    with Destination(duckdb_path=judged).reader() as reader:
        lines = summarise(reader, "lifecycle.duckdb").splitlines()
    shown = [line for line in lines if line.startswith("  ") and line.split()[0] in judgement]
    assert shown
    for line in shown:
        gate = line.split()[0]
        stage, action = judgement[gate][:2]
        assert f" {stage} " in line and line.endswith(f"  {action}"), line


def test_cleanup_rewrites_exactly_the_gates_the_lifecycle_calls_ready_with_its_value(judged):
    judgement = lifecycle(judged)
    with Destination(duckdb_path=judged).reader() as reader:
        choices = choose(read_decisions(reader), [], every_decided=True)
    chosen = {choice.gate_id: (choice.value, choice.reason) for choice in choices}
    ready = {
        gate: (value, decision)
        for gate, (stage, _, decision, value, *_) in judgement.items()
        if stage == "ready: remove from code" and gate in chosen
    }
    assert ready == {gate: chosen[gate] for gate, (value, _) in chosen.items() if value is not None}
    # every other gate cleanup lists is left to a person with the lifecycle's own reason
    for gate, (value, reason) in chosen.items():
        if value is None:
            assert reason == judgement[gate][2], gate


def test_the_report_shows_each_gate_s_action_and_the_snoozed_one(judged):
    judgement = lifecycle(judged)
    page = executed_text(judged)
    for gate, (_stage, action, _, _, on_worklist, _) in judgement.items():
        if on_worklist:
            assert html.escape(action, quote=False) in page or html.escape(action) in page, gate
    # the snoozed section's table: the gate, why, and until when
    snoozed = page[page.rindex("<table", 0, page.index("waiting for the mobile release")) :]
    snoozed = snoozed[: snoozed.index("</table>")]
    assert "launched_long" in snoozed and "2026-11-20" in snoozed


def test_the_dagster_assets_carry_the_lifecycle_between_the_tables_and_the_worklist():
    from gatehouse.pipelines.schedule.dagster import view_key, view_specs

    specs = {spec.key: spec for spec in view_specs(["default"])}
    lifecycle_spec = specs[view_key("gate_lifecycle")]
    assert view_key("gate_staleness") in {dep.asset_key for dep in lifecycle_spec.deps}
    assert view_key("gate_lifecycle") in {dep.asset_key for dep in specs[view_key("stale_gates")].deps}
    assert view_key("stale_gates") in {dep.asset_key for dep in specs[view_key("cleanup_decisions")].deps}


def test_the_snooze_ends_on_its_day(judged, tmp_path):
    # the same console a day after the snooze's end: launched_long is back, on the worklist and in the alerts
    import shutil

    later = tmp_path / "later.duckdb"
    shutil.copy(judged, later)
    pipeline = dlt.pipeline(
        pipeline_name="one_judgement_later",
        destination=dlt.destinations.duckdb(str(later)),
        dataset_name="console",
        pipelines_dir=str(tmp_path / "pipelines"),
    )
    pipeline.run(
        [
            {
                "extraction_id": "extraction_late",
                "service_time": "2026-11-21T12:00:00Z",
                "started_at": "2026-11-21T12:00:00Z",
                "finished_at": "2026-11-21T12:00:00Z",
                "followed_experiment_count": 0,
                "followed_experiment_ids": [],
            }
        ],
        table_name="extraction_runs",
        write_disposition="append",
    )
    apply_views(later)
    assert lifecycle(later)["launched_long"][-2:] == (True, False)
    with Destination(duckdb_path=later).reader() as reader:
        assert any(c.key.endswith(":launched_long") for c in stale_gate_conditions(reader))
