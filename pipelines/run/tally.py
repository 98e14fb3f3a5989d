"""What one run's steps add up as they go (`RunTally`): seconds per step, the tables and load ids of each phase,
whether it holds data and whether the views were dropped."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import dlt


@dataclass
class RunTally:
    """What one run's steps add up as they go: seconds per step and when each began, the tables and load ids per phase,
    the tables of the phases loaded, the pipeline once dlt holds data it extracted, and whether the views were
    dropped."""

    steps: dict[str, float] = field(default_factory=dict)
    step_started: dict[str, float] = field(default_factory=dict)
    # each table a phase normalised rows into, with its parent table (None for a root table): where the summary
    # counts what the database holds of this run (`rows_in_database`)
    parents: dict[str, str | None] = field(default_factory=dict)
    load_ids: list[str] = field(default_factory=list)
    loaded: list[str] = field(default_factory=list)
    # the tables of every phase of the run, in load order
    planned: list[str] = field(default_factory=list)
    pending: dlt.Pipeline | None = None
    # The analysis views were dropped for a load that drops tables: applied again whatever happens next.
    views_dropped: bool = False

    def count_rows(self, schema: Any, row_counts: dict[str, int]) -> None:
        """The tables a phase normalised rows into, and how their rows are found again in the database (`schema`: the
        pipeline's, as the phase left it)."""
        for table in counted_tables(row_counts):
            self.parents[table] = schema.tables.get(table, {}).get("parent")

    @staticmethod
    def counts_rows(row_counts: dict[str, int]) -> bool:
        """Whether a phase normalised rows into any table the summary counts (`count_rows` has any to keep)."""
        return bool(counted_tables(row_counts))

    @property
    def holds_data(self) -> bool:
        """Whether the run loaded a phase, or left one for the next run to complete."""
        return bool(self.loaded) or (self.pending is not None and self.pending.has_pending_data)

    def timed(self, name: str) -> contextlib.AbstractContextManager[None]:
        return timed(self.steps, name, self.step_started)


def counted_tables(row_counts: dict[str, int]) -> list[str]:
    """The tables of a phase's rows the summary counts: dlt's own (its state, its loads) are not."""
    return [table for table, rows in row_counts.items() if not table.startswith("_dlt") and rows]


@contextlib.contextmanager
def timed(steps: dict[str, float], name: str, started_at: dict[str, float] | None = None) -> Iterator[None]:
    started = time.monotonic()
    if started_at is not None:
        started_at.setdefault(name, started)
    try:
        yield
    finally:
        steps[name] = steps.get(name, 0.0) + time.monotonic() - started
