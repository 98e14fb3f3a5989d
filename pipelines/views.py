"""The analysis layer: staging views (`analytics.stg_*`) then analysis views, applied after every run.

Every view is one SQL file in `pipelines/views/NN_name.sql`, applied in file order as
`create or replace view analytics.<name>`. A file holds only the view's `select`, in DuckDB's dialect
but kept to portable SQL (no macros, no `qualify`, no `ignore nulls`), and starts with a line
`-- grain: ...; key: col, col` that the tests and `docs/data-model.md` rely on.

Raw tables are read through `{{ source('table') }}`, which this module renders as a subquery with
exactly the columns declared in `SOURCE_COLUMNS`. dlt creates a nested table only once some record has
items in that list, and a column only once some record has a non-null value in it, so a column or a
table the views use may not exist yet: the subquery gives it as a typed null (or zero rows), and every
view compiles on any dataset, even an empty one. The information schema is read once per application.

Parameters of the analysis views (target sample size, stall days, SRM threshold and weights, ...) live
in two small tables in the same schema, created with their defaults on first application and never
overwritten afterwards, so a value set with `apply_views(..., parameters=...)` or plain SQL persists:
`analytics.view_parameters(name, value, description)` and
`analytics.srm_expected_weights(experiment_id, group_id, weight)`.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Iterator, Mapping

import duckdb

from pipelines.errors import GatehouseError

SCHEMA = "analytics"
DEFAULT_DATASET = "console"

# name -> (default value, what it controls); the analysis views read them from analytics.view_parameters.
DEFAULT_PARAMETERS: dict[str, tuple[float, str]] = {
    "stale_after_days": (30, "the service's staleness window: a gate created or modified within it is never stale"),
    "stale_warning_days": (7, "a gate that meets the stale rules within this many days is listed as approaching"),
    "target_sample_size": (10000, "exposures (all groups together) an experiment should reach; exposure_growth.days_to_target"),
    "stall_days": (3, "days without any new exposure after which an experiment is stalled"),
    "trend_flat_band": (0.1, "a 7-day pace within this share of the previous 7 days' pace is a flat trend"),
    "srm_p_value_threshold": (0.001, "exposure_srm.srm_detected when the chi-square p-value is below this"),
}

# The raw columns the staging views read, with the type a missing column takes as a typed null.
# `__v_double` columns are dlt's variant columns: a number column first seen as an integer gets them
# when a fractional value arrives later (pass percentages like 12.5).
_DLT_ROOT = {"_dlt_id": "varchar", "_dlt_load_id": "varchar"}
_DLT_SCD2 = {**_DLT_ROOT, "_dlt_valid_from": "timestamptz", "_dlt_valid_to": "timestamptz"}
_DLT_NESTED = {"_dlt_id": "varchar", "_dlt_parent_id": "varchar", "_dlt_list_idx": "bigint"}
_VALUE_LIST = {**_DLT_NESTED, "value": "varchar"}
_TARGET_VALUES = {**_VALUE_LIST, "value__v_text": "varchar", "value__v_bigint": "bigint", "value__v_double": "double"}
_PASS_PERCENTAGE = {"pass_percentage": "double", "pass_percentage__v_double": "double"}
_AUDIT = {
    "created_time": "bigint",
    "creator_id": "varchar",
    "creator_name": "varchar",
    "creator_email": "varchar",
    "last_modified_time": "bigint",
    "last_modifier_id": "varchar",
    "last_modifier_name": "varchar",
    "last_modifier_email": "varchar",
}
_OWNER = {
    "owner__owner_id": "varchar",
    "owner__owner_name": "varchar",
    "owner__owner_type": "varchar",
    "owner__owner_email": "varchar",
}
_RULE = {**_DLT_NESTED, "id": "varchar", "base_id": "varchar", "name": "varchar", **_PASS_PERCENTAGE}
_CONDITION = {**_DLT_NESTED, "type": "varchar", "operator": "varchar", "field": "varchar", "custom_id": "varchar"}
_STATUS_ENTRY = {**_DLT_NESTED, "status": "varchar", "status_timestamp": "timestamptz"}

SOURCE_COLUMNS: dict[str, dict[str, str]] = {
    "extraction_runs": {
        "extraction_id": "varchar",
        "service_time": "timestamptz",
        "started_at": "timestamptz",
        "finished_at": "timestamptz",
    },
    "gates": {
        **_DLT_SCD2,
        "id": "varchar",
        "name": "varchar",
        "description": "varchar",
        "id_type": "varchar",
        "status": "varchar",
        "type": "varchar",
        "type_reason": "varchar",
        "is_enabled": "boolean",
        "checks_per_hour": "double",
        "checks_per_hour__v_double": "double",
        "team": "varchar",
        "version": "bigint",
        "measure_metric_lifts": "boolean",
        "review_settings__required_review": "boolean",
        **_AUDIT,
        **_OWNER,
    },
    "gates__rules": _RULE,
    "gates__rules__conditions": _CONDITION,
    "gates__rules__conditions__target_value": _TARGET_VALUES,
    "gates__holdout_i_ds": _VALUE_LIST,
    "dynamic_configs": {
        **_DLT_SCD2,
        "id": "varchar",
        "name": "varchar",
        "description": "varchar",
        "id_type": "varchar",
        "status": "varchar",
        "is_enabled": "boolean",
        "team": "varchar",
        "team_id": "varchar",
        "version": "bigint",
        "default_value": "json",
        "release_pipeline_id": "varchar",
        "is_template": "boolean",
        **_AUDIT,
        **_OWNER,
    },
    "dynamic_configs__rules": {**_RULE, "return_value": "json"},
    "dynamic_configs__rules__variants": {**_DLT_NESTED, "id": "varchar", "name": "varchar", **_PASS_PERCENTAGE, "return_value": "json"},
    "dynamic_configs__rules__conditions": _CONDITION,
    "dynamic_configs__rules__conditions__target_value": _TARGET_VALUES,
    "dynamic_configs__holdout_i_ds": _VALUE_LIST,
    "holdouts": {
        **_DLT_ROOT,
        "id": "varchar",
        "name": "varchar",
        "description": "varchar",
        "id_type": "varchar",
        "team": "varchar",
        "is_enabled": "boolean",
        "is_global": "boolean",
        "targeting_gate_id": "varchar",
        **_PASS_PERCENTAGE,
        **_AUDIT,
    },
    "holdouts__gate_i_ds": _VALUE_LIST,
    "holdouts__experiment_i_ds": _VALUE_LIST,
    "qualifying_events": {
        **_DLT_ROOT,
        "name": "varchar",
        "description": "varchar",
        "sql": "varchar",
        "table_name": "varchar",
        "timestamp_column": "varchar",
        "timestamp_as_day": "boolean",
    },
    "cumulative_exposures": {
        **_DLT_ROOT,
        "experiment_id": "varchar",
        "group_id": "varchar",
        "group_name": "varchar",
        "date": "varchar",
        "exposures": "bigint",
    },
    "ingestion_runs": {
        **_DLT_ROOT,
        "run_id": "varchar",
        "latest_status": "varchar",
        "trigger": "varchar",
        "created_at": "timestamptz",
        "last_updated_at": "timestamptz",
    },
    "ingestion_runs__sources": _VALUE_LIST,
    "ingestion_runs__run_history": _STATUS_ENTRY,
    "ingestion_runs__granular_history": {**_DLT_NESTED, "source": "varchar", "latest_source_status": "varchar"},
    "ingestion_runs__granular_history__status_by_date": {**_DLT_NESTED, "date_stamp": "varchar"},
    "ingestion_runs__granular_history__status_by_date__statuses": _STATUS_ENTRY,
    # written by `gatehouse code-refs` (pipelines/code_refs), not by the console source
    "code_references": {
        "entity_type": "varchar",
        "entity_id": "varchar",
        "repository": "varchar",
        "branch": "varchar",
        "commit": "varchar",
        "path": "varchar",
        "line": "bigint",
        "column": "bigint",
        "text": "varchar",
        "matched": "varchar",
        "match_kind": "varchar",
        "scanned_at": "timestamptz",
        "scan_id": "varchar",
    },
    "code_reference_scans": {
        "scan_id": "varchar",
        "repository": "varchar",
        "branch": "varchar",
        "commit": "varchar",
        "scanned_at": "timestamptz",
        "files_scanned": "bigint",
        "bytes_scanned": "bigint",
        "files_skipped_binary": "bigint",
        "files_skipped_large": "bigint",
        "files_excluded": "bigint",
        "reference_count": "bigint",
        "gate_count": "bigint",
        "dynamic_config_count": "bigint",
        "unknown_id_count": "bigint",
    },
}

_SQL_TYPES = {"timestamptz": "timestamp with time zone"}
_SOURCE_REFERENCE = re.compile(r"\{\{\s*source\(\s*'([a-z0-9_]+)'\s*\)\s*\}\}")
_HEADER = re.compile(r"^--\s*grain:\s*(?P<grain>.+?);\s*key:\s*(?P<key>.+?)\s*$")


@dataclass(frozen=True)
class ViewDefinition:
    name: str
    grain: str
    key: tuple[str, ...]
    sql: str  # the file's text: the header line, then the view's select

    @property
    def is_staging(self) -> bool:
        return self.name.startswith("stg_")


def view_definitions() -> list[ViewDefinition]:
    """The views in the order they are applied (file order: staging first, then analysis)."""
    folder = resources.files("pipelines") / "views"
    definitions = []
    for entry in sorted((e for e in folder.iterdir() if e.name.endswith(".sql")), key=lambda e: e.name):
        match = re.fullmatch(r"\d+_([a-z0-9_]+)\.sql", entry.name)
        if match is None:
            raise ValueError(f"view file {entry.name} is not named NN_view_name.sql")
        sql = entry.read_text(encoding="utf-8")
        header = _HEADER.match(sql.splitlines()[0] if sql else "")
        if header is None:
            raise ValueError(f"view file {entry.name} does not start with '-- grain: ...; key: ...'")
        key = tuple(column.strip() for column in header["key"].split(","))
        definitions.append(ViewDefinition(match[1], header["grain"], key, sql))
    return definitions


def apply_views(
    connection_or_path: duckdb.DuckDBPyConnection | str | Path,
    dataset: str = DEFAULT_DATASET,
    parameters: Mapping[str, float] | None = None,
) -> list[str]:
    """Creates (or replaces) every staging and analysis view in schema `analytics`; returns their names.

    `parameters` overrides entries of analytics.view_parameters (they persist). One transaction: a
    reader sees either the old views or the new ones.
    """
    unknown = sorted(set(parameters or {}) - set(DEFAULT_PARAMETERS))
    if unknown:
        raise GatehouseError(f"unknown view parameter(s): {', '.join(unknown)} (known: {', '.join(DEFAULT_PARAMETERS)})")
    definitions = view_definitions()
    with _connection(connection_or_path) as connection:
        connection.execute("begin transaction")
        try:
            connection.execute(f"create schema if not exists {SCHEMA}")
            _ensure_parameter_tables(connection, parameters or {})
            present = _present_columns(connection, dataset)
            # Dropped first so that a view renamed or removed in this version does not linger.
            for (name,) in connection.execute(
                "select table_name from information_schema.tables where table_schema = ? and table_type = 'VIEW'",
                [SCHEMA],
            ).fetchall():
                connection.execute(f'drop view if exists {SCHEMA}."{name}"')
            for definition in definitions:
                body = render_sources(definition.sql, dataset, present)
                connection.execute(f"create or replace view {SCHEMA}.{definition.name} as\n{body}")
            connection.execute("commit")
        except Exception:
            connection.execute("rollback")
            raise
    return [definition.name for definition in definitions]


def render_sources(sql: str, dataset: str, present: Mapping[str, set[str]]) -> str:
    """Replaces each `{{ source('table') }}` by a subquery with the table's declared columns."""

    def subquery(match: re.Match[str]) -> str:
        table = match[1]
        if table not in SOURCE_COLUMNS:
            raise ValueError(f"source('{table}') is not declared in SOURCE_COLUMNS")
        columns = SOURCE_COLUMNS[table]
        existing = present.get(table)
        selected = ", ".join(
            f'"{column}"' if existing is not None and column in existing else f'cast(null as {_SQL_TYPES.get(kind, kind)}) as "{column}"'
            for column, kind in columns.items()
        )
        if existing is None:
            return f"(select {selected} where 1 = 0)"
        return f'(select {selected} from "{dataset}"."{table}")'

    return _SOURCE_REFERENCE.sub(subquery, sql)


def _present_columns(connection: duckdb.DuckDBPyConnection, dataset: str) -> dict[str, set[str]]:
    present: dict[str, set[str]] = {}
    for table, column in connection.execute(
        "select table_name, column_name from information_schema.columns where table_schema = ?", [dataset]
    ).fetchall():
        present.setdefault(table, set()).add(column)
    return present


def _ensure_parameter_tables(connection: duckdb.DuckDBPyConnection, overrides: Mapping[str, float]) -> None:
    connection.execute(
        f"create table if not exists {SCHEMA}.view_parameters ("
        "name varchar primary key, value double not null, description varchar)"
    )
    connection.execute(
        f"create table if not exists {SCHEMA}.srm_expected_weights ("
        "experiment_id varchar not null, group_id varchar not null, weight double not null, "
        "primary key (experiment_id, group_id))"
    )
    existing = {name for (name,) in connection.execute(f"select name from {SCHEMA}.view_parameters").fetchall()}
    for name, (default, description) in DEFAULT_PARAMETERS.items():
        if name not in existing:
            connection.execute(f"insert into {SCHEMA}.view_parameters values (?, ?, ?)", [name, default, description])
    for name, value in overrides.items():
        connection.execute(f"update {SCHEMA}.view_parameters set value = ? where name = ?", [float(value), name])


@contextmanager
def _connection(connection_or_path: Any) -> Iterator[duckdb.DuckDBPyConnection]:
    if isinstance(connection_or_path, (str, Path)):
        connection = duckdb.connect(str(connection_or_path))
        try:
            yield connection
        finally:
            connection.close()
    else:
        yield connection_or_path
