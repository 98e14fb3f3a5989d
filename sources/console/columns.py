"""How the console's fields become columns: the arrays the contract declares (a scalar sent in an
array's place becomes a one-item list), the columns it types `number` (declared double), the
free-form JSON values, and the table hints built from them."""

from __future__ import annotations

import logging
from typing import Any, Sequence

from dlt.common.schema.typing import TColumnSchema
from dlt.extract.hints import TResourceNestedHints

from gatehouse.sources.console.settings import LOGGER_NAME

log = logging.getLogger(LOGGER_NAME)

# Top-level fields the interface declares as arrays, per entity (see `arrays_as_lists`).
GATE_ARRAYS = ("targetApps", "holdoutIDs", "tags", "monitoringMetrics")
CONFIG_ARRAYS = ("targetApps", "holdoutIDs", "tags")
HOLDOUT_ARRAYS = ("targetApps", "tags", "gateIDs", "experimentIDs", "layerIDs")


# A row yielded with this column true deletes the row of its key (dlt's `hard_delete` hint) and is not inserted: how a
# qualifying event no longer listed and a holdout no longer followed leave their merged tables. Named as dlt's own
# columns: the console never sends it, and it is not a field that stopped coming (pipelines/run/drift.py).
DELETED = "_dlt_deleted"
DELETED_COLUMN: dict[str, TColumnSchema] = {DELETED: {"name": DELETED, "data_type": "bool", "hard_delete": True}}


def deleted_rows(key: str, ids: Sequence[Any]) -> list[dict[str, Any]]:
    """One row a key in `ids` that deletes the loaded row of that key."""
    return [{key: entity_id, DELETED: True} for entity_id in ids]


def as_list(value: Any) -> Any:
    """A value the contract declares an array: a scalar sent in its place is a one-item list; null stays null."""
    return [value] if isinstance(value, (str, int, float, bool)) else value


def arrays_as_lists(items: Sequence[dict[str, Any]], fields: Sequence[str]) -> Sequence[dict[str, Any]]:
    """Makes each of `fields`, and every rule condition's `targetValue`, a list where a scalar came; in place.

    The published schemas allow a scalar where the interface shows an array: a condition's
    `targetValue` (a `passes_gate` condition naming one gate), a config's `targetApps` (a string in the
    unarchive schema). Loaded as is, a scalar becomes a column of the parent table while arrays become
    rows of a nested table, where every reader looks for them: a gate referenced by a scalar would read
    as referenced by nothing, and a holdout id sent as a string would be read letter by letter.
    """
    for item in items:
        for name in fields:
            if name in item:
                item[name] = as_list(item[name])
        for rule in item.get("rules") or ():
            if not isinstance(rule, dict):
                continue
            for condition in rule.get("conditions") or ():
                if isinstance(condition, dict) and "targetValue" in condition:
                    condition["targetValue"] = as_list(condition["targetValue"])
    return items


# Values the service treats as free-form JSON stay JSON instead of becoming one column per key.
JSON: TColumnSchema = {"data_type": "json"}
# A condition's targetValue is strings or numbers (the contract allows both). Declared as text, the
# column's type never depends on which value dlt met first, nor, with two normalize workers, on which
# worker's inference was merged first (the other would get a `value__v_text` variant column).
# dlt needs every table on the path declared, hence the empty hints for conditions.
# A scalar targetValue is made a one-item list first (`arrays_as_lists`).
TARGET_VALUES: dict[str | Sequence[str], TResourceNestedHints] = {
    ("rules", "conditions"): {},
    ("rules", "conditions", "target_value"): {"columns": {"value": {"name": "value", "data_type": "text"}}},
}

# Paths below gates and dynamic configs whose columns the contract types `number`: a rule's and a
# variant's passPercentage, an automated rollout's passPercent (see NumberColumns).
RULE_NUMBERS: dict[tuple[str, ...], tuple[str, ...]] = {
    ("rules",): ("pass_percentage",),
    ("rules", "completed_automated_rollouts"): ("pass_percent",),
    ("rules", "pending_automated_rollouts"): ("pass_percent",),
}
CONFIG_NUMBERS = {**RULE_NUMBERS, ("rules", "variants"): ("pass_percentage",)}
HOLDOUT_NUMBERS: dict[tuple[str, ...], tuple[str, ...]] = {(): ("pass_percentage",)}


class NumberColumns:
    """One table's columns that the contract types `number` (console-interface.md), declared double.

    Declared, a fraction (12.5) that arrives after integers never makes a `__v_double` variant column,
    whichever page or normalize worker met an integer first. Except in a destination that already
    holds the column as bigint (loaded before it was declared): dlt never changes a column's type, so
    declaring double there would truncate 12.5 into the bigint column. Such a column stays declared
    bigint, as before, and a fraction goes to the variant column, which the views read.
    """

    def __init__(self, table: str, columns: dict[tuple[str, ...], tuple[str, ...]]) -> None:
        self.table = table
        self.columns = columns  # nested path (() for the table itself) -> column names
        self._stored_as_integers: set[tuple[tuple[str, ...], str]] = set()

    def check_destination(self, schema: Any) -> bool:
        """Reads the stored schema the run extracts into (`dlt.current.source_schema()`), before any item;
        True when a column is stored as bigint, so the resource's hints must be replaced (`hints`)."""
        for path, names in self.columns.items():
            stored = schema.tables.get("__".join((self.table, *path)), {}).get("columns", {})
            for name in names:
                if stored.get(name, {}).get("data_type") == "bigint" and (path, name) not in self._stored_as_integers:
                    self._stored_as_integers.add((path, name))
                    log.info("%s.%s is stored as bigint: kept bigint", "__".join((self.table, *path)), name)
        return bool(self._stored_as_integers)

    def hints(self, path: tuple[str, ...] = ()) -> dict[str, TColumnSchema]:
        """Column hints for the table at `path` below this one."""
        return {
            name: {"name": name, "data_type": "bigint" if (path, name) in self._stored_as_integers else "double"}
            for name in self.columns.get(path, ())
        }


def gate_numbers() -> NumberColumns:
    return NumberColumns("gates", RULE_NUMBERS)


def config_numbers() -> NumberColumns:
    return NumberColumns("dynamic_configs", CONFIG_NUMBERS)


def holdout_numbers() -> NumberColumns:
    return NumberColumns("holdouts", HOLDOUT_NUMBERS)


def gate_hints(numbers: NumberColumns) -> dict[str | Sequence[str], TResourceNestedHints]:
    """The nested hints of `gates`: its number columns (as `numbers` types them) and the conditions' target values."""
    return {
        **{path: {"columns": numbers.hints(path)} for path in RULE_NUMBERS},
        **TARGET_VALUES,
    }


def config_hints(numbers: NumberColumns) -> dict[str | Sequence[str], TResourceNestedHints]:
    """The nested hints of `dynamic_configs`: its number columns and the rules' and variants' JSON `returnValue`."""
    columns: dict[tuple[str, ...], dict[str, TColumnSchema]] = {path: numbers.hints(path) for path in CONFIG_NUMBERS}
    for path in (("rules",), ("rules", "variants")):
        columns.setdefault(path, {})["return_value"] = {"name": "return_value", **JSON}
    return {path: {"columns": path_columns} for path, path_columns in columns.items()}
