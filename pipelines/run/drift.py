"""Schema drift between two runs: new tables and columns, type changes, fields the console stopped sending."""

from __future__ import annotations

from typing import Any

import dlt


def current_schema(pipeline: dlt.Pipeline) -> Any:
    """The pipeline's schema as stored now, None before the first run. dlt reads it from its storage again on every
    ask (`default_schema`): a step asks once and passes it on."""
    try:
        return pipeline.default_schema
    except Exception:  # no schema before the first run
        return None


def schema_columns(schema: Any) -> dict[str, dict[str, str]]:
    if schema is None:
        return {}
    return {
        name: {col: str(spec.get("data_type")) for col, spec in table.get("columns", {}).items()}
        for name, table in schema.tables.items()
        if not name.startswith("_dlt")
    }


def fields_gone(schema: Any, fields_seen: dict[str, set[str]]) -> list[str]:
    """Columns of a table whose field the console did not send at all this run.

    dlt keeps such columns (filled with nulls from now on), so without this a field the console
    dropped would go unnoticed. Nested objects count by their top-level field (owner__owner_id: owner).
    """
    if schema is None:
        return []
    gone = []
    for table, seen in sorted(fields_seen.items()):
        if not seen or table not in schema.tables:
            continue
        sent = {schema.naming.normalize_identifier(key) for key in seen}
        for column, spec in schema.tables[table]["columns"].items():
            if column.startswith("_dlt") or "__v_" in column or (spec.get("x-normalizer") or {}).get("seen-null-first"):
                continue
            if column.split("__")[0] not in sent:
                gone.append(f"field no longer sent {table}.{column} (kept, null from now on)")
    return gone


def schema_changes(before: dict[str, dict[str, str]], after: dict[str, dict[str, str]]) -> list[str]:
    if not before:
        return []
    changes = []
    for table, columns in sorted(after.items()):
        if table not in before:
            changes.append(f"new table {table}")
            continue
        for column, data_type in columns.items():
            if column not in before[table]:
                variant = "__v_" in column
                what = "type change (variant column)" if variant else "new column"
                changes.append(f"{what} {table}.{column} ({data_type})")
    for table, columns in sorted(before.items()):
        if table in after:
            for column in columns:
                if column not in after[table]:
                    changes.append(f"column gone {table}.{column}")
    return changes
