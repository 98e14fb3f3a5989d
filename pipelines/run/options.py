"""What a run is asked to do: `RunOptions`, as `gatehouse run`, Dagster and Airflow give them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.sources.console import constants

# The tables a user can pick with --resources (the id resources feed them and are not tables).
SELECTABLE = constants.TABLES


@dataclass
class RunOptions:
    destination: Destination = field(default_factory=Destination)
    resources: list[str] | None = None
    full_refresh: bool = False
    progress: bool = True
    # Seconds to wait for another run, or for a DuckDB file another program holds (None: the setting).
    lock_timeout_s: float | None = None
    # Load into a dataset that holds another console (a rotated key, a moved URL): never implied.
    repoint: bool = False
    # The demo's console twin: it never loads into a dataset that holds a real console, flag or no flag.
    demo: bool = False
    # Passed to the source instead of dlt's config lookup (the demo and tests use them).
    source_args: dict[str, Any] = field(default_factory=dict)
    # One of several configured projects ([sources.console.projects.<name>]): its section's settings, its own
    # pipeline `gatehouse_<name>` and dataset `console_<name>`. None: the single console of [sources.console].
    project: str | None = None
    # Per project, passed to the source over its section's settings (the demo and tests use them).
    projects_args: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Refresh the views and publish the snapshot after the load (several projects do it once, after all).
    publish: bool = True
    # Then the alerts step: what is new to each channel, or the run's failure (several projects: once, after all).
    alerts: bool = False
