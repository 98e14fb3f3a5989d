"""The analysis layer: staging views (`analytics.stg_*`), intermediate steps (`analytics.int_*`) and the marts,
on any dlt SQL destination.

Every view is one model file under `pipelines/models/` (`staging/`, `intermediate/`, `marts/<area>/`), named after
the view; `gatehouse.pipelines.models.graph` finds them, renders their `{{ ref('model') }}`s and macros, and derives the order
they are built in from what each reads. Each is applied as `create or replace view analytics.<name>`. A model holds
only the view's `select`, in DuckDB's dialect but kept to portable SQL (no DuckDB macros, no `qualify`, no
`ignore nulls`, none of the constructs `tests/warehouse` forbids), and starts with a line `-- grain: ...; key: col, col`
that the tests and `docs/data-model.md` rely on.

The SQL files are the one source of truth on every destination: this module translates each to the
destination's dialect with sqlglot (shipped with dlt), the dialect taken from the destination's
capabilities, and qualifies every name the destination's way through dlt's own SQL client
(`pipeline.sql_client()`): schema `analytics` sits next to the raw dataset, in the same database,
catalog or project. Nothing here knows a destination by its name.

Raw tables are read through `{{ source('table') }}`, which this module renders as a subquery with
exactly the columns declared in `SOURCE_COLUMNS`. dlt creates a nested table only once some record has
items in that list, and a column only once some record has a non-null value in it, so a column or a
table the views use may not exist yet: the subquery gives it as a typed null (or zero rows), and every
view compiles on any dataset, even an empty one. The information schema is read once per application.

The views read every console of the database at once (docs/decisions.md, "Several consoles"). The raw
dataset of dlt's SQL client is the base (`console`): it holds the single console, project `default`, and
each `console_<name>` beside it holds project `<name>` (never dlt's `*_staging` datasets); a dataset is a
console only once it holds `extraction_runs`. `{{ source('table') }}` is a `union all` of one subquery per
console dataset, each with `'<project>' as project` as its first column, so every view carries `project`
first and keys on it. The datasets are found in the information schema of the base dataset's database
(catalog); where it shows one dataset only (BigQuery), the caller names the configured projects
(`known_projects`) and each one's dataset is looked up on its own. `code_references`,
`code_reference_scans` and `code_reference_sightings`, written by `gatehouse code-refs`, `cleanup_branches`, by
`gatehouse cleanup`, and `gate_snoozes`, by `gatehouse gates snooze`, are no project's: they are read once, from the
base dataset, without a project column, and the code-reference marts match an id to every project that has it.

Parameters of the analysis views (target sample size, stall days, SRM threshold and weights, ...) live
in two small tables in the same schema, created with their defaults on first application and never
overwritten afterwards, so a value set with `apply_views(..., parameters=...)` or plain SQL persists:
`analytics.view_parameters(name, value, description)` and
`analytics.srm_expected_weights(experiment_id, group_id, weight)`. A third, `analytics.view_projects(project)`,
created empty, filters the views to projects: empty, they show every project; otherwise only the projects it
lists (the filter is in each source subquery, so every view agrees). `apply_views(..., projects=[...])` and
`gatehouse views --projects web,mobile` set it, `projects=[]` and `--projects all` empty it; a project neither
loaded nor configured is refused (`check_projects`).
"""

from __future__ import annotations

import difflib
import hashlib
import json
import logging
import math
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

import sqlglot
from dlt.destinations.sql_client import SqlClientBase
from sqlglot import exp
from sqlglot.errors import ErrorLevel, ParseError, UnsupportedError

from gatehouse.pipelines.errors import GatehouseError, first_line
from gatehouse.pipelines.models.graph import SCHEMA, ViewDefinition, view_definitions
from gatehouse.sources.console.settings import DEFAULT_LATE_EXPOSURE_DAYS

log = logging.getLogger("gatehouse.views")

# name -> (default value, what it controls); the analysis views read them from analytics.view_parameters.
DEFAULT_PARAMETERS: dict[str, tuple[float, str]] = {
    "stale_after_days": (30, "the service's staleness window: a gate created or modified within it is never stale"),
    "stale_warning_days": (7, "a gate that meets the stale rules within this many days is listed as approaching"),
    "ready_after_days": (
        14,
        "gate_lifecycle: a gate that has given one answer to every user this many days is ready to remove from the code",
    ),
    "answer_change_window_days": (
        30,
        "gate_lifecycle.answer_changes_in_window counts the changes of a gate's answer"
        " (status, enabled, rules) within this many days",
    ),
    "answer_return_window_days": (
        90,
        "gate_lifecycle: a gate that came back to an answer after the opposite one within this many days (off, on, off again)"
        " is a switch or an undecided rollout: a person decides",
    ),
    "checks_trend_days": (14, "gate_lifecycle.checks_trend compares checks per hour now with this many days ago"),
    "code_scan_max_age_days": (
        7,
        "gate_lifecycle: a repository whose last scan is older than this is no evidence that"
        " the code no longer references a gate",
    ),
    "target_sample_size": (10000, "exposures (all groups together) an experiment should reach; exposure_growth.days_to_target"),
    "stall_days": (3, "days without any new exposure after which an experiment is stalled"),
    "late_days": (
        DEFAULT_LATE_EXPOSURE_DAYS,
        "a series lagging the service clock by 2 to this many days is late, beyond it concluded (sources.console"
        " late_exposure_days)",
    ),
    "trend_flat_band": (0.1, "a 7-day pace within this share of the previous 7 days' pace is a flat trend"),
    "srm_p_value_threshold": (
        0.001,
        "exposure_srm.srm_detected when the sequential p-value is below this: the"
        " false-alarm rate of an experiment's test, however often the views are read",
    ),
    "srm_prior_concentration": (
        1000,
        "the sequential SRM test's Dirichlet prior concentration (exposure_srm_daily):"
        " larger is more sensitive to small mismatches late, smaller to large ones early",
    ),
    "dip_ratio": (
        0.5,
        "a whole day's new exposures below this share of the lowest of the 7 days before is a dip"
        " (experiment_health_daily.is_dip)",
    ),
    "health_min_days": (7, "days of series (a weekly cycle) before an experiment's checks give a verdict"),
    "health_min_exposures": (1000, "exposures (all groups together) before an experiment's checks give a verdict"),
    "max_running_days": (42, "an experiment running more days than this is running long (experiment_health.duration_check)"),
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
        **_DLT_ROOT,
        "extraction_id": "varchar",
        "service_time": "timestamptz",
        "started_at": "timestamptz",
        "finished_at": "timestamptz",
        # null before gatehouse recorded what a run follows, and for a run that loads no exposures
        "followed_experiment_count": "bigint",
    },
    "extraction_runs__followed_experiment_ids": _VALUE_LIST,
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
    "dynamic_configs__rules__variants": {
        **_DLT_NESTED,
        "id": "varchar",
        "name": "varchar",
        **_PASS_PERCENTAGE,
        "return_value": "json",
    },
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
        "code_owners": "varchar",
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
        "is_complete": "boolean",
        "incomplete_reason": "varchar",
    },
    "code_reference_sightings": {
        "scan_id": "varchar",
        "repository": "varchar",
        "scanned_at": "timestamptz",
        "entity_type": "varchar",
        "entity_id": "varchar",
        "reference_count": "bigint",
        "code_owners": "varchar",
    },
    # written by `gatehouse cleanup` (pipelines/cleanup): one row per branch it made
    "cleanup_branches": {
        "cleanup_id": "varchar",
        "made_at": "timestamptz",
        "project": "varchar",
        "gate_id": "varchar",
        "repository": "varchar",
        "branch": "varchar",
        "base_commit": "varchar",
        "commit": "varchar",
        "cleanup_value": "boolean",
        "files_changed": "bigint",
        "checks_replaced": "bigint",
        "todos": "bigint",
    },
    # written by `gatehouse gates snooze` and `unsnooze` (sources/gate_snoozes.py): one row per snooze or its end
    "gate_snoozes": {
        "snooze_id": "varchar",
        "project": "varchar",
        "gate_id": "varchar",
        "snoozed_until": "date",
        "reason": "varchar",
        "snoozed_at": "timestamptz",
        "snoozed_by": "varchar",
    },
}

# Written by `gatehouse code-refs`, `gatehouse cleanup` and `gatehouse gates snooze` into the base dataset: no
# project's, read once and without a project column (a cleanup branch and a snooze name their gate's project in a
# column of their own).
SHARED_TABLES = ("code_references", "code_reference_scans", "code_reference_sightings", "cleanup_branches", "gate_snoozes")
# The project of the base dataset, the single console as it was loaded before there were projects.
DEFAULT_PROJECT = "default"
# A dataset is a console's once a run recorded an extraction in it.
CONSOLE_MARKER_TABLE = "extraction_runs"
# dlt's staging dataset of `<dataset>` is `<dataset>_staging`: never a console.
STAGING_SUFFIX = "_staging"


@dataclass(frozen=True)
class RawDataset:
    """One dataset the views read: its project (None for the base dataset's shared tables), its name, and the
    declared columns each declared table of it has (a table it lacks is absent)."""

    project: str | None
    dataset: str
    columns: Mapping[str, frozenset[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class RawTables:
    """What the views read: the console datasets, by project, and the base dataset's shared tables."""

    projects: tuple[RawDataset, ...]
    shared: RawDataset

    @classmethod
    def single(cls, columns: Mapping[str, Iterable[str]], dataset: str, project: str = DEFAULT_PROJECT) -> RawTables:
        """One console dataset that also holds the shared tables (as a single console's load and code-refs leave it)."""
        present = {table: frozenset(names) for table, names in columns.items()}
        console = {table: names for table, names in present.items() if table not in SHARED_TABLES}
        projects = (RawDataset(project, dataset, console),) if CONSOLE_MARKER_TABLE in console else ()
        return cls(projects, RawDataset(None, dataset, {t: c for t, c in present.items() if t in SHARED_TABLES}))

    def fingerprint(self) -> list:
        return [
            [d.project, d.dataset, {t: sorted(c) for t, c in sorted(d.columns.items())}] for d in (*self.projects, self.shared)
        ]


K = TypeVar("K")
V = TypeVar("V")


class Kept(Generic[K, V]):
    """What this process worked out last, at most `size` entries (the oldest go first), shared by its threads: the
    views' translations and bindings and the run's queries, the same few over and over in a scheduler's worker."""

    def __init__(self, size: int) -> None:
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._size = size
        self._guard = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._guard:
            return self._entries.get(key)

    def keep(self, key: K, value: V) -> None:
        with self._guard:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)


def apply_views(
    target: SqlClientBase[Any] | str | Path | Any,
    *,
    parameters: Mapping[str, float] | None = None,
    projects: Sequence[str] | None = None,
    known_projects: Sequence[str] = (),
    destination_name: str | None = None,
    rendered_cache: Path | None = None,
    unless_current: bool = False,
) -> list[str]:
    """Creates (or replaces) every view of the models in schema `analytics`, in build order; returns their names.

    `target` is dlt's SQL client of the destination (what `pipeline.sql_client()` yields; its dataset is
    the raw one), or, as a convenience, a DuckDB file path or connection (raw dataset `console`).
    `parameters` overrides entries of analytics.view_parameters (they persist); `projects` replaces the
    projects of analytics.view_projects (`[]`: every project; None leaves it as it is). `known_projects`: the
    configured projects, whose datasets are looked up one by one where the information schema shows a single
    dataset (BigQuery); elsewhere every `<dataset>_<project>` is found anyway. Every view is translated
    before anything changes, and the views are replaced in one transaction where the destination has
    transactional DDL: a reader sees either the old views or the new ones. A view the destination refuses
    raises a `GatehouseError` naming the view and the destination; the raw tables are never touched.
    `rendered_cache`: a folder where the translated statements are kept, keyed by everything they are
    made from (the view files, the raw datasets and columns present, the destination's dialect and names, sqlglot's
    version): translating is most of the time of a refresh, and a run after which nothing of that
    changed translates nothing.
    `unless_current`: change nothing when the destination holds every view as these statements make it
    (`analytics.applied_views` records a digest of the statements last applied; an older gatehouse drops it
    with its other leftovers) and no parameter is given.
    """
    check_parameters(parameters or {})
    definitions = view_definitions()
    with _open(target) as client:
        destination = destination_name or destination_label(client)
        raw = _run(client, lambda c: raw_tables(c, known_projects), "reading the raw tables' columns", destination)
        check_projects(projects or (), raw, known_projects)
        statements = _rendered(client, definitions, raw, rendered_cache)
        digest = _digest(statements)
        if unless_current and not parameters and projects is None and _applied_digest(client, definitions) == digest:
            log.info("the %d views on %s are current", len(statements), destination)
            return [definition.name for definition in definitions]
        _run(client, _ensure_analytics_dataset, f"creating schema {SCHEMA}", destination)
        replacing = ViewsReplaced(client, definitions, statements, destination, raw)
        try:
            replacing.apply(parameters or {}, projects, digest, unbound=True)
        except NotBound:
            log.debug("the views did not bind together: made again one by one", exc_info=True)
            replacing.apply(parameters or {}, projects, digest, unbound=False)
    log.info(
        "applied %d views on %s over %d project(s): %s",
        len(statements),
        destination,
        len(raw.projects),
        ", ".join(dataset.project or "" for dataset in raw.projects) or "none loaded",
    )
    return [definition.name for definition in definitions]


@dataclass(frozen=True)
class UnboundViews:
    """How a destination creates a view without binding it, binds one, and lists its tables' definitions (columns and
    types) without binding a view."""

    clause: str
    bind: str
    tables: str


# By sqlglot dialect. DuckDB binds a view when it is created, and binds again every view it reads, so the views over
# views were bound over and over; its information schema binds every view to list their columns.
_UNBOUND = {
    "duckdb": UnboundViews(
        "WITH (DEFER_BINDING)",
        "describe select * from {}",
        "select schema_name, table_name, sql from duckdb_tables() where schema_name in ({})",
    )
}


class NotBound(Exception):
    """The views created unbound did not all bind (or the destination made none unbound)."""


@dataclass(frozen=True)
class ViewsReplaced:
    """Every view replaced in one transaction: the parameter tables, the old views dropped, the views created, the
    digest of what was applied. Where the destination can (`_UNBOUND`), the views are created unbound and then bound
    together, by reading those no other view reads, before the transaction commits: should any of that fail, the
    transaction is rolled back (`NotBound`) and the caller applies them again bound, one by one, which names the
    view the destination refuses."""

    client: SqlClientBase[Any]
    definitions: list[ViewDefinition]
    statements: list[tuple[str, str]]
    destination: str
    raw: RawTables

    def apply(self, parameters: Mapping[str, float], projects: Sequence[str] | None, digest: str, unbound: bool) -> None:
        client, destination = self.client, self.destination
        how = _UNBOUND.get(destination_dialect(client)) if unbound else None
        with client.begin_transaction():
            _run(client, lambda c: _ensure_parameter_tables(c, parameters, projects), "the view parameter tables", destination)
            _run(client, lambda c: _drop_views(c, [d.name for d in self.definitions]), "dropping the old views", destination)
            if how is None:
                for name, statement in self.statements:
                    _run(client, lambda c, statement=statement: c.execute_sql(statement), f"view {name}", destination)
            else:
                self.create_unbound(how)
            _run(client, lambda c: c.execute_sql(_applied_statement(c, digest)), f"view {APPLIED_VIEWS}", destination)

    def create_unbound(self, how: UnboundViews) -> None:
        read = {name for definition in self.definitions for name in definition.depends_on}
        try:
            for name, statement in self.statements:
                created = f"CREATE OR REPLACE VIEW {qualified_view_name(self.client, name)} AS"
                if not statement.startswith(created):
                    raise NotBound(f"view {name} is not made as {created}")
                self.client.execute_sql(f"{created[: -len(' AS')]} {how.clause} AS{statement[len(created) :]}")
            bound = self.bound_key(how.tables)
            if _bound.get(bound):
                return
            self.bind(how.bind, [definition.name for definition in self.definitions if definition.name not in read])
            _bound.keep(bound, True)
        except NotBound:
            raise
        except Exception as error:
            raise NotBound(first_line(error)) from error

    def bind(self, bind: str, names: list[str]) -> None:
        """The views `names` bound, and with them every view they read."""
        for name in names:
            self.client.execute_sql(bind.format(qualified_view_name(self.client, name)))

    def bound_key(self, tables: str) -> str:
        """What binding the views depends on: their statements and the definitions (columns and types) of the tables
        they read, the raw datasets' and the parameter tables (`tables`: listed without binding a view)."""
        fold = self.client.capabilities.casefold_identifier
        schemas = sorted({fold(dataset.dataset) for dataset in (*self.raw.projects, self.raw.shared)} | {fold(SCHEMA)})
        rows = self.client.execute_sql(tables.format(", ".join(["%s"] * len(schemas))), *schemas) or []
        return hashlib.sha256(
            json.dumps([self.statements, sorted([str(value) for value in row] for row in rows)]).encode()
        ).hexdigest()


# The views this process bound (`ViewsReplaced.bound_key`): the same statements over tables of the same columns and
# types bind the same, so a worker that loads one new database after another binds them once.
_bound: Kept[str, bool] = Kept(8)


def views_are_current(
    target: SqlClientBase[Any], *, known_projects: Sequence[str] = (), rendered_cache: Path | None = None
) -> bool:
    """The destination holds every view as `apply_views` would make them now, so applying them would change nothing.
    Only reads (`rendered_cache` is read, and kept where it can be): it can be asked of a database opened read-only."""
    definitions = view_definitions()
    with _open(target) as client:
        raw = raw_tables(client, known_projects)
        return _applied_digest(client, definitions) == _digest(_rendered(client, definitions, raw, rendered_cache))


# What each parameter may be: (lowest, highest, whether the lowest itself is allowed); days and counts are 0 or more.
# Kept for good in analytics.view_parameters, a value out of its range would break every later report and view.
PARAMETER_RANGES: dict[str, tuple[float, float, bool]] = {
    "srm_p_value_threshold": (0.0, 1.0, False),
    "srm_prior_concentration": (0.0, math.inf, False),
    "dip_ratio": (0.0, 1.0, True),
    "trend_flat_band": (0.0, math.inf, True),
}


def check_parameters(parameters: Mapping[str, float]) -> None:
    """A parameter the views do not know, or a value out of its range (not a finite number, a negative count of days,
    a p-value threshold past 1), is refused in one line: the value would be kept for every later refresh."""
    unknown = sorted(set(parameters) - set(DEFAULT_PARAMETERS))
    if unknown:
        raise GatehouseError(f"unknown view parameter(s): {', '.join(unknown)} (known: {', '.join(DEFAULT_PARAMETERS)})")
    for name, value in parameters.items():
        low, high, low_allowed = PARAMETER_RANGES.get(name, (0.0, math.inf, True))
        if not (math.isfinite(value) and (value >= low if low_allowed else value > low) and value <= high):
            allowed = f"{'from' if low_allowed else 'more than'} {low:g}" + (f" to {high:g}" if math.isfinite(high) else " up")
            raise GatehouseError(f"view parameter {name}={value:g}: it must be a number {allowed}; nothing was changed")


def check_projects(projects: Sequence[str], raw: RawTables, known_projects: Sequence[str]) -> None:
    """A project the views are limited to must be loaded here or configured: the filter is kept in
    `analytics.view_projects` for every later refresh, and a mistyped name would empty every view for good,
    reports and alerts reading nothing as all clear. A configured project not loaded yet is a warning."""
    loaded = {str(dataset.project) for dataset in raw.projects}
    known = sorted(loaded | set(known_projects))
    unknown = [name for name in dict.fromkeys(projects) if name not in known]
    if unknown:
        named = []
        for name in unknown:
            close = difflib.get_close_matches(name, known, n=1)
            named.append(name + (f" (did you mean {close[0]}?)" if close else ""))
        raise GatehouseError(
            f"unknown project{'s' if len(unknown) > 1 else ''} {', '.join(named)}: the views show the projects loaded or"
            f" configured here ({', '.join(known) or 'none'}); nothing was changed"
        )
    unloaded = sorted(set(projects) - loaded)
    if unloaded:
        log.warning(
            "no loaded dataset for project(s) %s yet: the views show none of their rows until a run loads them",
            ", ".join(unloaded),
        )


def render_views_ahead(client: SqlClientBase[Any], raw: RawTables, rendered_cache: Path) -> None:
    """Translates every view for the raw tables `raw` into `rendered_cache`, where `apply_views` looks first, unless
    they are there already: a run translates them while its last load runs, for the columns it will add. The
    cache is keyed by the columns found when the views are applied, so a wrong guess only costs the work."""
    _rendered(client, view_definitions(), raw, rendered_cache)


def _rendered(
    client: SqlClientBase[Any], definitions: list[ViewDefinition], raw: RawTables, cache: Path | None
) -> list[tuple[str, str]]:
    """(name, statement) of every view in the destination's dialect, from `cache` when made from the same inputs."""
    key = hashlib.sha256(
        json.dumps(
            [
                sqlglot.__version__,
                _naming(client),
                raw.fingerprint(),
                [(definition.name, definition.sql) for definition in definitions],
            ]
        ).encode()
    ).hexdigest()
    path = cache / f"views-{key[:32]}.json" if cache is not None else None
    statements = _translated.get(key)
    kept = statements is not None and (path is None or path.is_file())
    if statements is None and path is not None and path.is_file():
        try:
            statements = [(name, statement) for name, statement in json.loads(path.read_text(encoding="utf-8"))]
            kept = True
        except (OSError, ValueError, TypeError):
            log.debug("unreadable rendered views %s: translating again", path, exc_info=True)
    if statements is None:
        statements = [(definition.name, render_view(client, definition, raw)) for definition in definitions]
    _translated.keep(key, list(statements))
    if path is not None and not kept:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            for stale in path.parent.glob("views-*.json"):
                stale.unlink(missing_ok=True)
            temporary = path.with_suffix(".tmp")
            temporary.write_text(json.dumps(statements), encoding="utf-8")
            temporary.replace(path)
        except OSError:
            log.debug("cannot keep rendered views in %s", path.parent, exc_info=True)
    return list(statements)


# The statements of the last inputs this process translated, beside the file cache: a process that loads one new
# database after another (a scheduler's worker, Dagster's or Airflow's, running project after project) finds each
# new database's file cache empty, and translating every view again was most of the CPU its views cost.
_translated: Kept[str, list[tuple[str, str]]] = Kept(8)


def _digest(statements: list[tuple[str, str]]) -> str:
    """What the views are made from: their statements (raw columns and destination included), the parameters."""
    return hashlib.sha256(
        json.dumps([SCHEMA, APPLIED_VIEWS, _PARAMETER_TABLES, sorted(DEFAULT_PARAMETERS), statements]).encode()
    ).hexdigest()


def _applied_statement(client: SqlClientBase[Any], digest: str) -> str:
    return render_query(
        client, f"create or replace view {SCHEMA}.{APPLIED_VIEWS} as select '{digest}' as digest", what=f"view {APPLIED_VIEWS}"
    )


def _applied_digest(client: SqlClientBase[Any], definitions: list[ViewDefinition]) -> str | None:
    """The digest of the views last applied, when every view and parameter table is there; else None."""
    fold = client.capabilities.casefold_identifier
    needed = {fold(name) for name in [*(d.name for d in definitions), *PARAMETER_TABLE_NAMES, APPLIED_VIEWS]}
    try:
        existing = {name for (name,) in _information_schema(client, "TABLES", ("table_name",), SCHEMA)}
        if not needed <= existing:
            return None
        rows = client.execute_sql(f"select digest from {qualified_view_name(client, APPLIED_VIEWS)}") or []
    except Exception:  # whatever keeps it from being read, the views are applied again
        log.debug("cannot read %s.%s: applying the views", SCHEMA, APPLIED_VIEWS, exc_info=True)
        return None
    return str(rows[0][0]) if len(rows) == 1 else None


def render_view(client: SqlClientBase[Any], definition: ViewDefinition, raw: RawTables) -> str:
    """The `create or replace view` statement of one view in the destination's dialect, names qualified."""
    body = render_sources(definition.sql, raw)
    return render_query(
        client,
        f"create or replace view {SCHEMA}.{definition.name} as\n{body}",
        what=f"view {definition.name}",
        rewrite=without_project_joins if len(raw.projects) <= 1 else None,
    )


def without_project_joins(expression: exp.Expr) -> exp.Expr:
    """`expression` without the `a.project = b.project` terms of its join conditions, for a database of one
    console (changed in place).

    Every row of one console dataset has the same project, so such a term holds for every pair a join
    compares. PostgreSQL cannot see that through a subquery (a computed column has no statistics): it took
    each term for a small share of the pairs and planned `stale_gates` as a merge join on project alone, filtering
    every pair of the large organisation afterwards (a good part of the report's time). With several projects the
    terms stay.
    """
    for join in list(expression.find_all(exp.Join)):
        on = join.args.get("on")
        if on is None:
            continue
        terms = list(on.flatten()) if isinstance(on, exp.And) else [on]
        kept = [term for term in terms if not _same_project(term)]
        if len(kept) < len(terms):
            join.set("on", exp.and_(*kept) if kept else exp.true())
    return expression


def _same_project(term: exp.Expr) -> bool:
    # `join_on` writes the term `is not distinct from`, which PostgreSQL cannot sort or hash a join on
    return isinstance(term, (exp.EQ, exp.NullSafeEQ)) and all(
        isinstance(side, exp.Column) and side.name == "project" for side in (term.this, term.expression)
    )


def render_query(
    client: SqlClientBase[Any], sql: str, *, what: str = "query", rewrite: Callable[[exp.Expr], exp.Expr] | None = None
) -> str:
    """Translates one statement written in DuckDB's dialect (as the view files and reports are) for the
    destination of `client`: `analytics.<name>` becomes the destination's qualified name of the view or
    table, quoted identifiers take the destination's case, and the dialect is the destination's own.
    `rewrite`: applied to the parsed statement first (one parse and one generation per statement: they are
    most of the time a first run's views take)."""
    key = (sql, rewrite, _naming(client))
    statement = _queries.get(key)
    if statement is None:
        statement = translate(sql, key[2][0], what=what, rewrite=rewrite, transform=lambda node: _qualify(node, client))
        _queries.keep(key, statement)
    return statement


def _naming(client: SqlClientBase[Any]) -> tuple[str, ...]:
    """What a translation depends on besides the statement: the dialect, and how the destination of `client` names
    and cases a view and a raw table."""
    return (
        destination_dialect(client),
        qualified_view_name(client, "x"),
        ".".join(client.make_qualified_table_name_path("x")),
        client.capabilities.casefold_identifier("Case"),
    )


# The last statements a process translated (the run's counts, the alerts' and the reports' queries: the same few
# every run), as `_translated` keeps the views'.
_queries: Kept[tuple[Any, ...], str] = Kept(512)


def translate(
    sql: str,
    dialect: str,
    *,
    what: str,
    transform: Callable[[exp.Expr], exp.Expr],
    rewrite: Callable[[exp.Expr], exp.Expr] | None = None,
) -> str:
    """One statement in DuckDB's dialect, in sqlglot's `dialect`: `rewrite` applied to the whole statement, then
    `transform` to each node (`as_duckdb_means` is left to it). The one translation of the views, whoever
    applies them (`apply_views`, and the dbt package that `gatehouse.pipelines.models.dbt_package` writes)."""
    try:
        expression = sqlglot.parse_one(sql, read=READ_DIALECT)
    except ParseError as error:
        raise GatehouseError(f"{what} is not valid DuckDB SQL: {first_line(error)}") from error
    if rewrite is not None:
        expression = rewrite(expression)
    # the statement was parsed for this call alone: changed in place, not copied node by node
    expression = expression.transform(transform, copy=False)
    try:
        return expression.sql(dialect=dialect, unsupported_level=ErrorLevel.RAISE, pretty=True)
    except UnsupportedError:
        pass
    # Aggregate and window orderings carry DuckDB's "nulls last" explicitly; a dialect that cannot say it
    # (BigQuery's string_agg, window frames) sorts nulls its own way. The views never order those by a key
    # that can be null, so its default gives the same rows.
    relaxed = _default_null_ordering(expression, dialect)
    try:
        return relaxed.sql(dialect=dialect, unsupported_level=ErrorLevel.RAISE, pretty=True)
    except UnsupportedError as error:
        raise GatehouseError(f"{what} cannot be translated to {dialect}: {first_line(error)}") from error


def qualified_view_name(client: SqlClientBase[Any], name: str) -> str:
    """`analytics.<name>` as the destination writes it (catalog or project included, quoted)."""
    return ".".join(client.make_qualified_table_name_path(name, dataset_name=SCHEMA))


def destination_dialect(client: SqlClientBase[Any]) -> str:
    """The sqlglot dialect of the destination, from its capabilities."""
    dialect = client.capabilities.sqlglot_dialect
    if not dialect:
        raise GatehouseError(
            f"destination {destination_label(client)} declares no SQL dialect: the analysis views cannot be translated for it"
        )
    return dialect


def destination_label(client: SqlClientBase[Any]) -> str:
    """The destination's name for messages, from dlt's module of its SQL client (dlt.destinations.impl.<name>)."""
    match = re.search(r"\.impl\.([a-z0-9_]+)\.", type(client).__module__)
    return match[1] if match else type(client).__name__


def render_sources(sql: str, raw: RawTables) -> str:
    """Replaces each `{{ source('table') }}` by a subquery with the table's declared columns: the `union all`
    of every console dataset's rows, `project` first (a shared table: the base dataset's, no project); a
    column or table a dataset lacks is a typed null (no rows)."""

    def subquery(match: re.Match[str]) -> str:
        table = match[1]
        if table not in SOURCE_COLUMNS:
            raise ValueError(f"source('{table}') is not declared in SOURCE_COLUMNS")
        if table in SHARED_TABLES:
            return f"({_dataset_select(table, raw.shared, cast=False)})"
        holding = [dataset for dataset in raw.projects if table in dataset.columns]
        if not holding:
            return f"({_dataset_select(table, None, cast=False)})"
        # each dataset typed its columns by the values it saw first: the same type in every branch
        return "(" + "\n    union all\n    ".join(_dataset_select(table, d, cast=len(holding) > 1) for d in holding) + ")"

    return SOURCE_REFERENCE.sub(subquery, sql)


def _dataset_select(table: str, dataset: RawDataset | None, cast: bool) -> str:
    """One dataset's rows of a raw table (None: no rows, every column a typed null)."""
    existing = dataset.columns.get(table) if dataset is not None else None
    columns = []
    for column, kind in SOURCE_COLUMNS[table].items():
        sql_type = source_type(kind, in_union=cast)
        if existing is not None and column in existing:
            columns.append(f'cast("{column}" as {sql_type}) as "{column}"' if cast else f'"{column}"')
        else:
            columns.append(f'cast(null as {sql_type}) as "{column}"')
    if table not in SHARED_TABLES:
        project = f"'{dataset.project}'" if dataset is not None else "cast(null as varchar)"
        columns.insert(0, f"{project} as project")
    selected = ", ".join(columns)
    if existing is None:
        # a from clause even for no rows: BigQuery allows no where without one
        return f"select {selected} from (select 1 as no_rows) as no_rows where 1 = 0"
    assert dataset is not None  # a table exists only in a dataset
    rows = f'select {selected} from {_RAW_DATASET}{dataset.dataset}."{table}"'
    if table in SHARED_TABLES:
        return rows
    # analytics.view_projects: empty for every project, else the projects to show
    return (
        f"{rows} where not exists (select 1 from {SCHEMA}.view_projects)"
        f" or exists (select 1 from {SCHEMA}.view_projects where project = '{dataset.project}')"
    )


def source_type(kind: str, in_union: bool = False) -> str:
    """The DuckDB type of a declared column kind (`SOURCE_COLUMNS`): as a typed null, and in a union of several
    datasets, where every branch is cast to it."""
    return _UNION_TYPES.get(kind, _SQL_TYPES.get(kind, kind)) if in_union else _SQL_TYPES.get(kind, kind)


READ_DIALECT = "duckdb"
# A one-row view beside the others: the digest of the statements last applied (`apply_views(unless_current=True)`).
APPLIED_VIEWS = "applied_views"
# The prefix of the schema name a raw table carries in the rendered SQL (then its dataset's name) until it is
# qualified the destination's way.
_RAW_DATASET = "__gatehouse_raw__"
_PROJECT_NAME = re.compile(r"[a-z0-9_]+")
SOURCE_REFERENCE = re.compile(r"\{\{\s*source\(\s*'([a-z0-9_]+)'\s*\)\s*\}\}")
_SQL_TYPES = {"timestamptz": "timestamp with time zone"}
# In a union of several datasets JSON is text: the staging models read it as text anyway, and a cast to JSON
# is not the same on every destination (Databricks' TO_JSON would encode a string column's text again).
_UNION_TYPES = {"json": "varchar"}
# No primary keys: BigQuery and Databricks refuse an enforced one; gatehouse itself inserts a parameter
# only when its name is missing.
_PARAMETER_TABLES = (
    f"create table if not exists {SCHEMA}.view_parameters (name varchar not null, value double not null, description varchar)",
    f"create table if not exists {SCHEMA}.srm_expected_weights ("
    "experiment_id varchar not null, group_id varchar not null, weight double not null)",
    f"create table if not exists {SCHEMA}.view_projects (project varchar not null)",
)
PARAMETER_TABLE_NAMES = ("view_parameters", "srm_expected_weights", "view_projects")


@contextmanager
def _open(target: Any) -> Iterator[SqlClientBase[Any]]:
    if isinstance(target, SqlClientBase):
        if target.native_connection is not None:
            yield target
        else:
            with target:
                yield target
        return
    raise TypeError(
        f"apply_views takes dlt's SQL client of the destination, not {type(target).__name__}:"
        " a DuckDB file or connection goes through gatehouse.pipelines.warehouse.destination.apply_views"
    )


def _run(client: SqlClientBase[Any], step: Any, what: str, destination: str) -> Any:
    """One step against the destination; its failure is one line naming what failed and where."""
    try:
        return step(client)
    except GatehouseError:
        raise
    except Exception as error:
        raise GatehouseError(f"{what} failed on {destination}: {first_line(error)}") from error


def _qualify(node: exp.Expr, client: SqlClientBase[Any]) -> exp.Expr:
    if (
        isinstance(node, exp.Table)
        and node.args.get("db") is not None
        and (node.db == SCHEMA or node.db.startswith(_RAW_DATASET))
    ):
        dataset = SCHEMA if node.db == SCHEMA else node.db[len(_RAW_DATASET) :]
        path = client.make_qualified_table_name_path(node.name, quote=False, dataset_name=dataset)
        parts = [exp.to_identifier(part, quoted=True) for part in path]
        qualified = exp.Table(this=parts[-1], db=parts[-2], catalog=parts[-3] if len(parts) > 2 else None)
        if node.args.get("alias") is not None:
            qualified.set("alias", node.args["alias"])
        return qualified
    if isinstance(node, exp.Identifier) and node.quoted:
        # a quoted name keeps its case: it must be the case the destination stored (Snowflake folds to upper)
        node.set("this", client.capabilities.casefold_identifier(node.this))
    return as_duckdb_means(node)


def as_duckdb_means(node: exp.Expr) -> exp.Expr:
    """`node`, made to mean in every dialect what it means in DuckDB's, where sqlglot's translation alone differs."""
    if isinstance(node, exp.Extract) and node.name.lower() == "epoch" and not isinstance(node.parent, exp.Cast):
        # DuckDB's epoch is a double; PostgreSQL's a numeric, which would make every duration a decimal
        return exp.cast(node, exp.DataType.build("double"))
    return node


def _default_null_ordering(expression: exp.Expr, dialect: str) -> exp.Expr:
    null_ordering = sqlglot.Dialect.get_or_raise(dialect).NULL_ORDERING
    relaxed = expression.copy()
    for ordered in relaxed.find_all(exp.Ordered):
        if ordered.find_ancestor(exp.AggFunc, exp.Window) is None:
            continue
        descending = bool(ordered.args.get("desc"))
        default_nulls_first = null_ordering == ("nulls_are_large" if descending else "nulls_are_small")
        ordered.set("nulls_first", default_nulls_first)
    return relaxed


def raw_tables(
    client: SqlClientBase[Any], known_projects: Sequence[str] = (), loading: Mapping[str, Iterable[str]] | None = None
) -> RawTables:
    """The console datasets beside the client's (base) dataset and their declared columns that exist, read
    from the information schema once (and once more per configured project it did not show). `loading`: the
    tables (and their columns) a load under way adds to the client's dataset, counted as there already."""
    if hasattr(client, "create_views_for_all_tables"):
        # dlt's DuckDB over files (the filesystem destination's dataset access) shows a table in its
        # information schema only once something asked for it
        client.create_views_for_all_tables()
    fold = client.capabilities.casefold_identifier
    base = client.dataset_name
    stored: dict[str, dict[str, set[str]]] = {}

    def keep(rows: Iterable[Sequence[Any]]) -> None:
        for schema, table, column in rows:
            stored.setdefault(schema, {}).setdefault(table, set()).add(column)

    # `like` also matches other names (`_` is any character): the datasets are told apart below
    keep(
        _information_schema(
            client, "COLUMNS", ("table_schema", "table_name", "column_name"), dataset=None, schema_pattern=fold(base) + "%"
        )
    )
    for project in known_projects:
        dataset = f"{base}_{project}"
        if fold(dataset) not in stored:
            with client.with_alternative_dataset_name(dataset):
                exists = client.has_dataset()
            if exists:
                keep(_information_schema(client, "COLUMNS", ("table_schema", "table_name", "column_name"), dataset=dataset))

    for table, columns in (loading or {}).items():
        stored.setdefault(fold(base), {}).setdefault(fold(table), set()).update(fold(column) for column in columns)

    def declared(tables: Mapping[str, set[str]], names: Iterable[str]) -> dict[str, frozenset[str]]:
        return {
            table: frozenset(column for column in SOURCE_COLUMNS[table] if fold(column) in tables[fold(table)])
            for table in names
            if fold(table) in tables
        }

    console_tables = [table for table in SOURCE_COLUMNS if table not in SHARED_TABLES]
    projects = []
    shared = RawDataset(None, base)
    for schema, tables in stored.items():
        # the name dlt gave the dataset: the stored one is folded to the destination's case
        dataset = next((name for name in (schema.lower(), schema) if fold(name) == schema), schema)
        if dataset == base:
            project = DEFAULT_PROJECT
            shared = RawDataset(None, base, declared(tables, SHARED_TABLES))
        elif dataset.startswith(f"{base}_") and not dataset.endswith(STAGING_SUFFIX):
            project = dataset[len(base) + 1 :]
        else:
            continue
        if not _PROJECT_NAME.fullmatch(project):
            continue  # not a name gatehouse gives a project (it is written into the views as a literal)
        if fold(CONSOLE_MARKER_TABLE) in tables:
            projects.append(RawDataset(project, dataset, declared(tables, console_tables)))
    return RawTables(tuple(sorted(projects, key=lambda d: (d.project != DEFAULT_PROJECT, d.project))), shared)


def dataset_tables(client: SqlClientBase[Any]) -> list[str]:
    """The base tables of the client's dataset, by the names the destination stored."""
    return [name for (name,) in _information_schema(client, "TABLES", ("table_name",), None, " and table_type = 'BASE TABLE'")]


def _information_schema(
    client: SqlClientBase[Any],
    view: str,
    columns: tuple[str, ...],
    dataset: str | None,
    where: str = "",
    schema_pattern: str | None = None,
) -> list:
    """Rows of the information schema of `dataset` (the client's by default), or of every schema of its
    database (catalog) whose name is like `schema_pattern`."""
    with client.with_alternative_dataset_name(dataset or client.dataset_name):
        catalog, schema, table = _information_schema_place(client, view)
        query = f"select {', '.join(columns)} from {table} where "
        arguments = []
        if catalog:
            query += "table_catalog = %s and "
            arguments.append(catalog)
        query += f"table_schema {'like' if schema_pattern is not None else '='} %s{where}"
        arguments.append(schema_pattern if schema_pattern is not None else schema)
        return list(client.execute_sql(query, *arguments) or [])


def _information_schema_place(client: SqlClientBase[Any], view: str) -> tuple[str | None, str, str]:
    """The catalog and schema that name the client's dataset in the information schema, and the view's qualified name,
    as dlt's SQL clients place them when they read a dataset's tables (kept here: dlt's are private members). Most
    destinations name the database as catalog and the dataset as schema; ClickHouse has no schemas (its database is
    what the schema column holds), Dremio's catalog is always DREMIO, Athena reads the view through its catalog."""
    catalog = client.catalog_name(quote=False)
    schema = client.make_qualified_table_name_path(None, quote=False)[-1]
    table = f"INFORMATION_SCHEMA.{view}"
    name = destination_label(client)
    if name == "clickhouse":
        return None, catalog or schema, table
    if name == "dremio":
        return "DREMIO", client.fully_qualified_dataset_name(quote=False), table
    if name == "athena":
        return catalog, schema, f"{client.catalog_name()}.{table}"
    return catalog, schema, table


def _ensure_analytics_dataset(client: SqlClientBase[Any]) -> None:
    with client.with_alternative_dataset_name(SCHEMA):
        if not client.has_dataset():
            client.create_dataset()


def _ensure_parameter_tables(
    client: SqlClientBase[Any], overrides: Mapping[str, float], projects: Sequence[str] | None = None
) -> None:
    for ddl in _PARAMETER_TABLES:
        client.execute_sql(render_query(client, ddl, what="the view parameter tables"))
    parameters_table = qualified_view_name(client, "view_parameters")
    existing = {name for (name,) in client.execute_sql(f"select name from {parameters_table}") or []}
    for name, (default, description) in DEFAULT_PARAMETERS.items():
        if name not in existing:
            client.execute_sql(
                f"insert into {parameters_table} (name, value, description) values (%s, %s, %s)",
                name,
                float(default),
                description,
            )
    for name, value in overrides.items():
        client.execute_sql(f"update {parameters_table} set value = %s where name = %s", float(value), name)
    if projects is not None:
        projects_table = qualified_view_name(client, "view_projects")
        client.execute_sql(f"delete from {projects_table} where 1 = 1")
        for project in dict.fromkeys(projects):
            client.execute_sql(f"insert into {projects_table} (project) values (%s)", project)


def drop_views(client: SqlClientBase[Any]) -> None:
    """Every view gatehouse owns in `analytics`, dependants first, and the record of what was applied (so the next
    refresh applies them again): before a load that drops the raw tables they read (`--full-refresh`, or the rest
    of one a failed run left), which PostgreSQL refuses while a view reads them."""
    _drop_views(client, [definition.name for definition in view_definitions()])


def _drop_views(client: SqlClientBase[Any], names: list[str]) -> None:
    """Drops this version's views and any a previous version left, so none lingers renamed or removed."""
    fold = client.capabilities.casefold_identifier
    known = {fold(name): name for name in names}
    existing = [name for (name,) in _information_schema(client, "TABLES", ("table_name",), SCHEMA, " and table_type = 'VIEW'")]
    # a view can only be dropped before the views that read it (PostgreSQL checks): a previous version's
    # own views first, then this version's in reverse build order, dependants before what they read
    leftovers = sorted(name for name in existing if name not in known)
    ours = [fold(name) for name in reversed(names) if fold(name) in set(existing)]
    for name in leftovers + ours:
        path = client.make_qualified_table_name_path(name, dataset_name=SCHEMA)
        client.execute_sql(f"drop view if exists {'.'.join(path)}")
