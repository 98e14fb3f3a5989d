"""What a run did, as the lines `gatehouse run` prints: rows per table, SCD2 versions, requests, waits."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from dlt.destinations.exceptions import DatabaseUndefinedRelation

from gatehouse.pipelines.untrusted import for_terminal
from gatehouse.pipelines.wording import counted

if TYPE_CHECKING:
    from gatehouse.pipelines.alerts.dispatch import AlertOutcome
    from gatehouse.pipelines.warehouse.destination import Destination

SCD2_TABLES = ("gates", "dynamic_configs")
# dlt's load ids are a timestamp: digits and a dot, safe to write into SQL as a literal.
_LOAD_ID = re.compile(r"^[0-9.]+$")
# Where a statement lists the run's load ids (`Reader.rows`' values): translated once for every run.
_LOAD_IDS = "gatehouse_load_ids"
_FIRST_LOAD = "gatehouse_first_load"
# The semi-joins one counting statement holds at most in a DuckDB file (`count_batches`): a few MB of the run's 128 MB
# cap, which the projects loading into one file share.
DUCKDB_COUNT_JOINS = 2


@dataclass
class RunSummary:
    rows_loaded: dict[str, int]
    new_versions: dict[str, int]
    retired: dict[str, int]
    skipped: list[tuple[str, str, str]]
    schema_changes: list[str]
    requests: int
    retries: int
    throttled: int
    throttle_wait_s: float
    wall_time_s: float
    load_id: str | None
    # Time spent waiting for another run or for a program holding the DuckDB file (part of wall_time_s).
    waited_s: float = 0.0
    waited_for: list[str] = field(default_factory=list)
    # The read-only copy published for notebooks and BI tools (DuckDB only).
    snapshot: Path | None = None
    # Values the console sent that no column could hold, loaded as null while their records loaded:
    # (table, id, field, the value as shown, why).
    left_null: list[tuple[str, str, str, str, str]] = field(default_factory=list)
    # Seconds per step: sync, extract, normalize, load, views, snapshot.
    steps: dict[str, float] = field(default_factory=dict)
    # When each step began and the run ended (time.monotonic(): comparable with another process's on one machine).
    step_started: dict[str, float] = field(default_factory=dict)
    ended_at: float | None = None
    # Items read and found as last loaded, per table: not normalised nor loaded again. A list counted here
    # whole was left as it is (no SCD2 merge, nothing retired).
    unchanged: dict[str, int] = field(default_factory=dict)
    # What the run follows that the console cannot list (experiments, ingestion runs): how many, how found.
    followed: dict[str, str] = field(default_factory=dict)
    # The alerts step's outcome, when the run had one (`RunOptions.alerts`).
    alerted: AlertOutcome | None = None

    def lines(self) -> list[str]:
        # The wait is someone else's time: the load's own time is shown apart from it.
        out = [
            f"loaded in {self.wall_time_s - self.waited_s:.1f}s with {self.requests} requests"
            f" ({self.retries} retried, {self.throttled} throttled, {self.throttle_wait_s:.1f}s waiting on the rate limit)"
        ]
        if self.waited_s >= 0.05:
            out.append(f"  waited {self.waited_s:.1f}s before that for {', '.join(self.waited_for)} to let go of the database")
        # Nested tables (rules, histories...) are summed into their root table's line.
        roots: dict[str, list[int]] = {}
        for table, rows in self.rows_loaded.items():
            counts = roots.setdefault(table.split("__")[0], [0, 0])
            counts[0 if "__" not in table else 1] += rows
        width = max((len(t) for t in [*roots, *self.unchanged]), default=10)
        for table in sorted(roots.keys() | self.unchanged.keys()):
            rows, nested = roots.get(table, [0, 0])
            same = self.unchanged.get(table, 0)
            if table not in roots:
                out.append(f"  {table:<{width}}  unchanged: {counted(same, 'item')} read, each as last loaded; not loaded again")
                continue
            extra = f" (+{nested} nested)" if nested else ""
            if table in self.new_versions:
                extra += f", {self.new_versions[table]} new versions, {self.retired.get(table, 0)} retired"
            if same:
                extra += f", {same} unchanged"
            out.append(f"  {table:<{width}}  {rows:>7} rows{extra}")
        for table, id_, reason in self.skipped:
            out.append(f"  skipped {table} {id_}: {reason}")
        for table, id_, name, value, why in self.left_null:
            out.append(f"  left null {table} {id_}: {name} {value} {why}")
        if self.followed:
            out.append("  followed: " + "; ".join(f"{what} {how}" for what, how in self.followed.items()))
        for change in self.schema_changes:
            out.append(f"  schema: {change}")
        if self.snapshot is not None:
            out.append(snapshot_line(self.snapshot))
        # each a line: a line break in the console's ids or values is shown (\x0a), never a line of its own that
        # would read as gatehouse's (the terminal, a scheduler's log and mail show these lines)
        return [for_terminal(line) for line in out]


def snapshot_line(path: object) -> str:
    return f"readers' snapshot: {path} (open this one in notebooks and BI tools; a run never waits for it)"


def rows_in_database(
    destination: Destination, load_ids: Sequence[str], tables: Mapping[str, str | None], timeout_s: float | None = None
) -> dict[str, int]:
    """The rows this run's loads wrote that the database holds, per table: what the summary says was loaded.

    Read back from the destination, not taken from dlt's counters, so that "loaded" never names rows that are
    not there when the run ends. `tables`: each table the run normalised, with its parent table (None for a root
    table). A root row written by these loads carries their `_dlt_load_id`; a nested row hangs from one, through
    its `_dlt_parent_id` chain. An SCD2 table counts the versions written.
    """
    counts: dict[str, int] = {}
    load_ids = [load_id for load_id in load_ids if _LOAD_ID.match(load_id)]
    if not load_ids or not tables:
        return counts
    listed = {_LOAD_IDS: ", ".join(f"'{load_id}'" for load_id in load_ids)}
    with destination.reader(timeout_s) as reader:
        dataset = reader.dataset_name

        def written(table: str) -> str:
            parent = tables.get(table)
            if parent is None:
                return f"_dlt_load_id in ('{_LOAD_IDS}')"
            return f"_dlt_parent_id in (select _dlt_id from {dataset}.{parent} where {written(parent)})"

        # a local DuckDB file runs with our memory cap and its round trips cost nothing; a warehouse's round trips
        # cost, and its memory is its own: one statement
        for batch in count_batches(tables, DUCKDB_COUNT_JOINS if destination.is_duckdb_file else None):
            # in the tables' order by name, not the order dlt normalised them in (which varies), so the same tables
            # are the same texts and translations for every run of the process
            union = " union all ".join(
                f"select '{table}' as loaded_table, count(*) as loaded_rows from {dataset}.{table} where {written(table)}"
                for table in batch
            )
            try:
                counts.update({table: int(rows) for table, rows in reader.rows(union, listed)})
            except DatabaseUndefinedRelation:  # a table gone since (dropped by hand): counted one by one
                for table in batch:
                    try:
                        [(counts[table],)] = reader.rows(f"select count(*) from {dataset}.{table} where {written(table)}", listed)
                    except DatabaseUndefinedRelation:
                        counts[table] = 0
    return counts


def count_batches(tables: Mapping[str, str | None], joins_per_statement: int | None) -> list[list[str]]:
    """`tables` (each with its parent table, None for a root) in the statements `rows_in_database` counts them in, by
    name: with `joins_per_statement`, a new statement wherever the next table's semi-joins (a nested table's one per
    level) would take the statement's past it; else one. DuckDB holds a hash table of a megabyte or more for each
    semi-join until the statement ends, whatever the rows: the forty tables of a console in one statement took more
    than 60 MB of a run's 128 MB cap, and nine projects in one file, or a console with more nested tables, ran out
    of memory."""
    if joins_per_statement is None:
        return [sorted(tables)]

    def depth(table: str) -> int:
        parent = tables.get(table)
        return 0 if parent is None else 1 + depth(parent)

    batches: list[list[str]] = []
    joins = joins_per_statement
    for table in sorted(tables):
        cost = depth(table)
        if not batches or joins + cost > joins_per_statement:
            batches.append([])
            joins = 0
        batches[-1].append(table)
        joins += cost
    return batches


def scd2_counts(
    destination: Destination, load_ids: Sequence[str], timeout_s: float | None = None
) -> tuple[dict[str, int], dict[str, int]]:
    """New versions written by this run's loads and entities retired by them, per SCD2 table.

    DuckDB-dialect SQL, translated for the destination like every other read; a table not loaded yet (a
    run of other resources) has no counts, any other failure is the run's. dlt closes a retired version at
    its load package's creation time, the load id itself: a version closed since the run's first load was
    closed by this run (an earlier run's retirement, seconds before, is not counted again).
    """
    new_versions: dict[str, int] = {}
    retired: dict[str, int] = {}
    load_ids = [load_id for load_id in load_ids if _LOAD_ID.match(load_id)]
    if not load_ids:
        return new_versions, retired
    first = min(load_ids, key=float)
    listed = {_LOAD_IDS: ", ".join(f"'{load_id}'" for load_id in load_ids)}
    with destination.reader(timeout_s) as reader:
        for table in SCD2_TABLES:
            try:
                [(new_versions[table],)] = reader.rows(
                    f"select count(*) from {reader.dataset_name}.{table} where _dlt_load_id in ('{_LOAD_IDS}')", listed
                )
            except DatabaseUndefinedRelation:
                continue
            # A retired entity: a version closed by this load with no open version left.
            [(retired[table],)] = reader.rows(
                f"""
                select count(distinct closed.id)
                from {reader.dataset_name}.{table} as closed
                where closed._dlt_valid_to is not null
                    and closed._dlt_valid_to >= to_timestamp('{_FIRST_LOAD}')
                    and not exists (
                        select 1 from {reader.dataset_name}.{table} as open_version
                        where open_version.id = closed.id and open_version._dlt_valid_to is null
                    )
                """,
                {_FIRST_LOAD: f"{float(first) - 0.001:.6f}"},
            )
    return new_versions, retired
