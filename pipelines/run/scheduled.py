"""A run as a scheduler makes it (Dagster's asset, the Airflow DAG's task): what `gatehouse run` loads, every
configured project side by side or the single console, and alerts after it when asked; every outcome returned,
never raised, so that the caller records what loaded before it fails with the one line that names what did not."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gatehouse.pipelines.errors import DEMO_HINT
from gatehouse.pipelines.models.build import DEFAULT_PROJECT
from gatehouse.pipelines.projects import configured_projects
from gatehouse.pipelines.run.consoles import ProjectOutcome, run_consoles
from gatehouse.pipelines.run.options import RunOptions
from gatehouse.pipelines.settings import check_names
from gatehouse.pipelines.warehouse.destination import Destination


def run_scheduled(
    destination: Destination,
    *,
    lock_timeout_s: float | None = None,
    alerts: bool = False,
    projects: list[str] | None = None,
    source_args: Mapping[str, Any] | None = None,
    projects_args: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[ProjectOutcome]:
    """Each configured project's outcome (or the single console's, as project `default`), in the order named.

    `projects`: default the configured ones; `source_args`/`projects_args`: the source's arguments beyond dlt's
    configuration, for the single console and by project (the tests pass twins here)."""
    check_names()  # a mistyped setting is refused before anything is read
    projects = configured_projects() if projects is None else projects
    options = RunOptions(
        destination=destination,
        progress=False,
        lock_timeout_s=lock_timeout_s,
        alerts=alerts,
        source_args=dict(source_args or {}),
        projects_args={name: dict(args) for name, args in (projects_args or {}).items()},
    )
    outcomes, _ = run_consoles(options, projects)
    for outcome in outcomes:
        if outcome.error:
            outcome.error = outcome.error.replace(DEMO_HINT, "")  # no terminal to try it at
    return outcomes


def failure_line(outcomes: list[ProjectOutcome]) -> str | None:
    """The one line a run that loaded not everything fails with: the single console's error, or each failed
    project with its reason; None when everything loaded."""
    failed = [outcome for outcome in outcomes if outcome.error]
    if not failed:
        return None
    if [outcome.project for outcome in outcomes] == [DEFAULT_PROJECT]:
        return failed[0].error
    return f"{len(failed)} of {len(outcomes)} projects failed: " + "; ".join(f"{o.project}: {o.error}" for o in failed)
