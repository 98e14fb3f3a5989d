"""A run with its alerts step, as `gatehouse run --alerts` makes it (`RunOptions.alerts`)."""

from __future__ import annotations

import dataclasses

from gatehouse.pipelines.alerts.dispatch import AlertOutcome
from gatehouse.pipelines.run.consoles import ProjectOutcome, run_projects
from gatehouse.pipelines.run.steps import RunOptions, run_extraction
from gatehouse.pipelines.run.summary import RunSummary


def alerting_run(options: RunOptions) -> tuple[RunSummary, AlertOutcome]:
    summary = run_extraction(dataclasses.replace(options, alerts=True))
    assert summary.alerted is not None, "a run with alerts ends with the alerts step"
    return summary, summary.alerted


def alerting_projects(options: RunOptions, projects: list[str]) -> tuple[list[ProjectOutcome], AlertOutcome]:
    outcomes, alerted = run_projects(dataclasses.replace(options, alerts=True), projects)
    assert alerted is not None
    return outcomes, alerted
