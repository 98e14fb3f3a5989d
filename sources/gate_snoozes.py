"""The `gate_snoozes` dlt source: the snoozes `gatehouse gates snooze` and `gatehouse gates unsnooze` wrote.

A snooze is the warehouse's, never the console's: a person's decision to keep a gate out of the worklist and the
alerts until a date. Its one table, `gate_snoozes` (history, append-only), lands in the console data's dataset
(`console`) beside the code's tables, under its own dlt schema `gate_snoozes`, so that neither a `gatehouse run` nor
a scan rewrites it. The rows come in as dicts of its columns; the latest row of a (project, gate id) is in force.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import dlt

SCHEMA_NAME = "gate_snoozes"


@dlt.resource(
    name="gate_snoozes",
    write_disposition="append",
    primary_key="snooze_id",
    columns={
        "snooze_id": {"data_type": "text", "nullable": False},
        "project": {"data_type": "text"},
        "gate_id": {"data_type": "text", "nullable": False},
        "snoozed_until": {"data_type": "date", "nullable": False},
        "reason": {"data_type": "text", "nullable": False},
        "snoozed_at": {"data_type": "timestamp", "nullable": False},
        "snoozed_by": {"data_type": "text"},
    },
)
def gate_snoozes(snoozes: Sequence[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Table `gate_snoozes`: one row per snooze written (append), key `snooze_id`; `project` null: every project that
    holds the gate id. An ended snooze is a later row whose `snoozed_until` is the day it ended."""
    yield from snoozes


@dlt.source(name=SCHEMA_NAME, max_table_nesting=0)
def gate_snoozes_source(snoozes: Sequence[dict[str, Any]]) -> Any:
    """The rows one `gatehouse gates snooze` or `unsnooze` wrote."""
    return (gate_snoozes(snoozes),)
