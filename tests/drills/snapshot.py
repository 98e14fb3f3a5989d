"""Every table of a gatehouse DuckDB file, row for row, in a form two databases can be compared by.

Two loads of the same organisation must hold the same rows. They legitimately differ only in dlt's
bookkeeping and in when and under which id each run happened, so a snapshot leaves out:

- `_dlt_load_id` (one per load), `_dlt_root_id` (redundant with the parent chain);
- `_dlt_id` and `_dlt_parent_id`: random for some tables, so each row's identity is rebuilt from what
  it holds instead. A root row is identified by its own content; a nested row by its parent's identity,
  its `_dlt_list_idx` and its content. A rule attached to the wrong gate therefore still differs;
- `_dlt_valid_from` / `_dlt_valid_to` (load timestamps): an SCD2 row keeps only whether it is open
  (`_dlt_valid_to` is null) or closed, so versions are compared by their business columns and state;
- `extraction_runs.extraction_id`, `started_at` and `console_base_url` (a uuid, the wall clock of each
  run, and the loopback port its twin was served on);
  its `service_time` is the console's clock and must match;
- the `_dlt_*` system tables, the `<dataset>_staging` datasets (dlt's scratch space for merges) and
  views (derived from the tables compared here).

A snapshot is, per table, its column names and the sorted list of its rows as canonical JSON text, so
duplicates count.
"""

from __future__ import annotations

import collections
import hashlib
import json
from dataclasses import dataclass
from datetime import date, datetime, time
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb

DLT_ID, PARENT_ID, ROOT_ID, LOAD_ID = "_dlt_id", "_dlt_parent_id", "_dlt_root_id", "_dlt_load_id"
VALID_FROM, VALID_TO = "_dlt_valid_from", "_dlt_valid_to"
ALWAYS_IGNORED = {DLT_ID, PARENT_ID, ROOT_ID, LOAD_ID, VALID_FROM, VALID_TO}
# Per table: columns that differ between two runs of the same organisation by design.
# The console's address is per run too: each drill serves its twin on a free loopback port.
PER_RUN_COLUMNS = {"extraction_runs": {"extraction_id", "started_at", "console_base_url"}}
OPEN_STATE = "_open"  # replaces _dlt_valid_from/_dlt_valid_to: true for the current version


@dataclass(frozen=True)
class TableSnapshot:
    columns: tuple[str, ...]
    rows: tuple[str, ...]  # canonical JSON of each row, sorted

    def counts(self) -> collections.Counter:
        return collections.Counter(self.rows)


Snapshot = dict[str, TableSnapshot]  # "schema.table" -> its snapshot


def _plain(value: Any) -> Any:
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, float) and value != value:
        return "NaN"
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _canonical(row: dict[str, Any]) -> str:
    return json.dumps({k: _plain(v) for k, v in sorted(row.items())}, sort_keys=True, ensure_ascii=False)


def _identity(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def base_tables(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str]]:
    rows = con.execute(
        "select table_schema, table_name from information_schema.tables where table_type = 'BASE TABLE' order by 1, 2"
    ).fetchall()
    return [(schema, table) for schema, table in rows if not table.startswith("_dlt") and not schema.endswith("_staging")]


def snapshot(duckdb_path: Path | str, dataset: str | None = None) -> Snapshot:
    """Every table of the file, each row reduced as the module docstring says.

    `dataset`: only that schema's tables, named as the single console's `console.<table>`, so that one
    project's dataset (`console_<project>`) compares with a single-console load of the same organisation.
    """
    with duckdb.connect(str(duckdb_path), read_only=True) as con:
        raw: dict[str, tuple[list[str], list[dict[str, Any]]]] = {}
        for schema, table in base_tables(con):
            if dataset is not None and schema != dataset:
                continue
            cursor = con.execute(f'select * from "{schema}"."{table}"')
            names = [d[0] for d in cursor.description]
            raw[f"{'console' if dataset else schema}.{table}"] = (names, [dict(zip(names, row)) for row in cursor.fetchall()])

    identities: dict[str, str] = {}  # _dlt_id -> identity, filled parents first
    result: Snapshot = {}
    pending = dict(raw)
    while pending:
        progressed = False
        for name, (names, rows) in list(pending.items()):
            nested = PARENT_ID in names
            if nested and any(row[PARENT_ID] not in identities for row in rows):
                continue  # its parent table is not resolved yet
            table = name.split(".", 1)[1]
            ignored = ALWAYS_IGNORED | PER_RUN_COLUMNS.get(table, set())
            scd2 = VALID_TO in names
            canonical_rows = []
            for row in rows:
                kept = {k: v for k, v in row.items() if k not in ignored}
                if scd2:
                    kept[OPEN_STATE] = row[VALID_TO] is None
                if nested:
                    kept["_parent"] = identities[row[PARENT_ID]]
                text = _canonical(kept)
                if DLT_ID in row:
                    identities[row[DLT_ID]] = _identity(f"{name}:{text}")
                canonical_rows.append(text)
            columns = sorted(set(names) - ignored | ({OPEN_STATE} if scd2 else set()))
            result[name] = TableSnapshot(tuple(columns), tuple(sorted(canonical_rows)))
            del pending[name]
            progressed = True
        if not progressed:
            orphans = ", ".join(sorted(pending))
            raise AssertionError(f"rows whose _dlt_parent_id matches no row of any table: {orphans}")
    return result


def differences(actual: Snapshot, expected: Snapshot, *, limit: int = 3) -> list[str]:
    """Readable differences, empty when the two snapshots are identical."""
    out = []
    for name in sorted(expected.keys() - actual.keys()):
        out.append(f"{name}: missing ({len(expected[name].rows)} rows expected)")
    for name in sorted(actual.keys() - expected.keys()):
        out.append(f"{name}: unexpected table ({len(actual[name].rows)} rows)")
    for name in sorted(actual.keys() & expected.keys()):
        got, want = actual[name], expected[name]
        if got.columns != want.columns:
            out.append(
                f"{name}: columns differ: extra {sorted(set(got.columns) - set(want.columns))},"
                f" missing {sorted(set(want.columns) - set(got.columns))}"
            )
            continue
        if got.rows == want.rows:
            continue
        extra = got.counts() - want.counts()
        missing = want.counts() - got.counts()
        out.append(
            f"{name}: {len(got.rows)} rows, expected {len(want.rows)}:"
            f" {sum(extra.values())} unexpected, {sum(missing.values())} missing"
        )
        out += [f"    unexpected {row[:300]}" for row in list(extra.elements())[:limit]]
        out += [f"    missing    {row[:300]}" for row in list(missing.elements())[:limit]]
    return out


def assert_same_tables(actual: Snapshot, expected: Snapshot, what: str = "the database") -> None:
    found = differences(actual, expected)
    assert not found, f"{what} differs from the fault-free run:\n" + "\n".join(found)


def repeated(snap: Snapshot, table: str, times: int) -> Snapshot:
    """`snap` with each row of `table` `times` over: the reference for `times` runs at each state of the
    console (an append table such as extraction_runs gains a row per run; the other tables do not change)."""
    out = dict(snap)
    one = snap[table]
    out[table] = TableSnapshot(one.columns, tuple(sorted(one.rows * times)))
    return out
