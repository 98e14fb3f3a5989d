"""What a run did, as the lines `gatehouse run` prints: rows per table, SCD2 versions, requests."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Optional

import dlt

SCD2_TABLES = ("gates", "dynamic_configs")


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
    load_id: Optional[str]

    def lines(self) -> list[str]:
        out = [f"loaded in {self.wall_time_s:.1f}s with {self.requests} requests"
               f" ({self.retries} retried, {self.throttled} throttled, {self.throttle_wait_s:.1f}s waiting on the rate limit)"]
        # Nested tables (rules, histories...) are summed into their root table's line.
        roots: dict[str, list[int]] = {}
        for table, rows in self.rows_loaded.items():
            counts = roots.setdefault(table.split("__")[0], [0, 0])
            counts[0 if "__" not in table else 1] += rows
        width = max((len(t) for t in roots), default=10)
        for table, (rows, nested) in sorted(roots.items()):
            extra = f" (+{nested} nested)" if nested else ""
            if table in self.new_versions:
                extra += f", {self.new_versions[table]} new versions, {self.retired.get(table, 0)} retired"
            out.append(f"  {table:<{width}}  {rows:>7} rows{extra}")
        for table, id_, reason in self.skipped:
            out.append(f"  skipped {table} {id_}: {reason}")
        for change in self.schema_changes:
            out.append(f"  schema: {change}")
        return out



def scd2_counts(pipeline: dlt.Pipeline, load_id: Optional[str], started_at: float) -> tuple[dict[str, int], dict[str, int]]:
    """New versions written by this load and entities retired by it, per SCD2 table."""
    new_versions: dict[str, int] = {}
    retired: dict[str, int] = {}
    if load_id is None:
        return new_versions, retired
    with contextlib.suppress(Exception), pipeline.sql_client() as client:
        for table in SCD2_TABLES:
            name = client.make_qualified_table_name(table)
            rows = client.execute_sql(f"select count(*) from {name} where _dlt_load_id = %s", load_id)
            new_versions[table] = rows[0][0]
            # A retired entity: a version closed by this load with no open version left.
            rows = client.execute_sql(
                f"select count(distinct g.id) from {name} g where g._dlt_valid_to is not null"
                f" and g._dlt_valid_to >= to_timestamp(%s)"
                f" and not exists (select 1 from {name} a where a.id = g.id and a._dlt_valid_to is null)",
                started_at - 1,
            )
            retired[table] = rows[0][0]
    return new_versions, retired


