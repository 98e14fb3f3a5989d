"""`analytics.alerts_sent`: what each channel was told, so that a condition is sent once.

One row per condition and channel each time it is sent, and one more when it has cleared (no longer
shown by the views, or a run succeeded after a failure), so that a condition that returns later is news
again. The table lives beside the views' parameter tables in schema `analytics` on the destination
itself: whichever machine or scheduler runs next, on DuckDB or a warehouse, reads the same ledger.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from dlt.destinations.exceptions import DatabaseUndefinedRelation

from gatehouse.pipelines.models.build import SCHEMA, qualified_view_name, render_query

TABLE = "alerts_sent"
SENT = "sent"
CLEARED = "cleared"
# Recorded by `gatehouse alerts --mark-known`: what already held when alerting started, as if told, never sent.
KNOWN = "known"
_DDL = (
    f"create table if not exists {SCHEMA}.{TABLE} ("
    "channel varchar not null, condition_key varchar not null, kind varchar not null, state varchar not null,"
    " message varchar, recorded_at timestamp with time zone not null)"
)


def ensure_ledger(client: Any) -> None:
    with client.with_alternative_dataset_name(SCHEMA):
        if not client.has_dataset():
            client.create_dataset()
    client.execute_sql(render_query(client, _DDL, what=f"table {SCHEMA}.{TABLE}"))


def open_keys(client: Any, channel: str) -> set[str]:
    """Keys of the conditions last sent (or marked known) on `channel` and not cleared since (none before the
    first alerting)."""
    try:
        rows = _latest_states(client, channel)
    except DatabaseUndefinedRelation:
        return set()
    return {key for key, state in rows if state in (SENT, KNOWN)}


def _latest_states(client: Any, channel: str) -> list:
    return (
        client.execute_sql(
            render_query(
                client,
                f"""
        select condition_key, state
        from (
            select
                condition_key,
                state,
                row_number() over (partition by condition_key order by recorded_at desc, state desc) as recency
            from {SCHEMA}.{TABLE}
            where channel = '{_literal(channel)}'
        ) as latest
        where recency = 1
        """,
                what=f"table {SCHEMA}.{TABLE}",
            )
        )
        or []
    )


def record(client: Any, channel: str, entries: Iterable[tuple[str, str, str, str | None]]) -> None:
    """Appends (condition_key, kind, state, message) rows for `channel`, in one transaction."""
    table = qualified_view_name(client, TABLE)
    now = datetime.now(UTC)
    with client.begin_transaction():
        for key, kind, state, message in entries:
            client.execute_sql(
                f"insert into {table} (channel, condition_key, kind, state, message, recorded_at)"
                " values (%s, %s, %s, %s, %s, %s)",
                channel,
                key,
                kind,
                state,
                message,
                now,
            )


def _literal(value: str) -> str:
    return value.replace("'", "''")
