"""How the console's fields become columns: the arrays the contract declares (a scalar sent in an
array's place becomes a one-item list), the columns it types `number` (declared double), the
free-form JSON values, the table hints built from them, and the values no column can hold (an
integer beyond 64 bits, sent as such, or as text or a float into a column stored as bigint), loaded as null and said
(`leave_null`)."""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import Any

import dlt
from dlt.common.data_types.type_helpers import coerce_value
from dlt.common.schema.typing import TColumnSchema
from dlt.extract.exceptions import CurrentSourceSchemaNotAvailable
from dlt.extract.hints import TResourceNestedHints

from gatehouse.sources.console.constants import LOGGER_NAME
from gatehouse.sources.console.counts import ExtractionCounts, LeftNull
from gatehouse.sources.console.errors import one_line

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


# The integers a column holds: a signed 64-bit integer (dlt's `bigint`, DuckDB's and PostgreSQL's `bigint`, Arrow's
# int64). The console's JSON sets no bound. Beyond it dlt cannot write the item at all (orjson: "Integer exceeds 64-bit
# range", and so the run failed on one value); from 2**63 to 2**64 - 1 it writes it, and the load fails on the column.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
NOT_64_BITS = "does not fit a 64-bit integer"
# Python's JSON parser reads `Infinity` and `NaN`; orjson writes them as null, and would say nothing.
NOT_FINITE = "is not a finite number"
# dlt reads text and an integral float into a column stored as bigint as the integer they spell (`coerce_value`), and
# fails on one beyond 64 bits as on the integer itself. Only such a value is looked at twice: a float outside the range
# (every one is integral), a text at least as long as the shortest beyond it ("0x8000000000000000", 18 characters,
# 2**63 in dlt's hexadecimal) that starts as an integer's text does (a digit, a sign, a space, Unicode's included).
FLOAT_INT64_MIN, FLOAT_INT64_END = float(INT64_MIN), float(INT64_MAX + 1)
SHORTEST_UNFIT_TEXT = 18
INTEGER_TEXT_STARTS = frozenset("0123456789+- \t\n\r\x0b\x0c")
# A value longer than this, as a warning shows it, is cut (with its length said): the console's text is untrusted.
SHOWN_CHARACTERS = 32


def fits_64_bits(value: int) -> bool:
    return INT64_MIN <= value <= INT64_MAX


def shown_value(value: Any) -> str:
    """A value as a warning names it: an integer's digits, anything else as Python writes it (text quoted, so a
    number sent as text reads as such), on one line, cut after its first 25 characters."""
    try:
        text = str(value) if type(value) is int else one_line(repr(value), 10_000)
    except ValueError:  # an integer of more digits than Python writes out (its JSON parser refuses them anyway)
        return f"an integer of {value.bit_length()} bits"
    if len(text) <= SHOWN_CHARACTERS:
        return text
    unit = "digits" if type(value) is int else "characters"
    return f"{text[:25]}… ({len(text.lstrip('-'))} {unit})"


def leave_null(counts: ExtractionCounts, table: str, entity_id: Any, field: str, value: Any, why: str = NOT_64_BITS) -> None:
    """The one way a value the console sent is loaded as null while its record loads: recorded in the run's counts
    (`left_null`, once a run per record and field) and said in one warning line, e.g.
    `gates checkout_v2: checksPerHour 99999999999999999999999 does not fit a 64-bit integer; loaded as null`.
    The caller sets the value to null."""
    shown = shown_value(value)
    if counts.leave_null(LeftNull(table, str(entity_id), field, shown, why)):
        log.warning("%s %s: %s %s %s; loaded as null", table, one_line(str(entity_id), 100), one_line(field, 200), shown, why)


def _path(parts: Sequence[str | int]) -> str:
    """`("rules", 0, "time")` as `rules[0].time`: the field as the console names it."""
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in parts).lstrip(".")


def null_unfit_integers(counts: ExtractionCounts, table: str, entity_id: Any, value: Any) -> Any:
    """Every integer of one record (a holdout, an ingestion run, a series), at any depth, JSON values included, that
    does not fit 64 bits, set to null in place and said (`leave_null`); so is an infinite or NaN number, which would
    be written as null without a word. Returns `value`.

    Nothing else of the record changes, and the record is loaded: one bad value no longer fails the run. Null, not
    its text in a variant column: dlt reads numeric text in an integer column as the integer it spells, and fails
    the same way. A JSON value's number is null inside it (a config's `defaultValueJson5` still holds its text).
    So is a text or a float that a column the destination stores as bigint would read as an integer beyond 64 bits
    (`unfit_in_integer_columns`); in any other column it is left as sent (a double holds 1e23, a text column text)."""
    found: list[tuple[Any, str | int, tuple[str | int, ...], str]] = []
    spelled: list[tuple[Any, str | int, tuple[str | int, ...], str]] = []  # text, floats: beyond 64 bits in a bigint column?
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, ())]
    while stack:  # not recursive: a JSON value may nest as deep as the parser allows
        container, path = stack.pop()
        if isinstance(container, dict):
            members: Any = container.items()
        elif isinstance(container, list):
            members = enumerate(container)
        else:
            continue
        for name, member in members:
            if type(member) is int:  # a bool is no integer here
                if not fits_64_bits(member):
                    found.append((container, name, (*path, name), NOT_64_BITS))
            elif type(member) is float:
                if not math.isfinite(member):
                    found.append((container, name, (*path, name), NOT_FINITE))
                elif not FLOAT_INT64_MIN <= member < FLOAT_INT64_END:
                    spelled.append((container, name, (*path, name), NOT_64_BITS))
            elif isinstance(member, (dict, list)):
                stack.append((member, (*path, name)))
            elif (
                type(member) is str
                and len(member) >= SHORTEST_UNFIT_TEXT
                and ((first := member[0]) in INTEGER_TEXT_STARTS or (first > "\x7f" and (first.isdigit() or first.isspace())))
                and may_spell_integer(member)
            ):
                spelled.append((container, name, (*path, name), NOT_64_BITS))
    if spelled:
        found += unfit_in_integer_columns(table, spelled)
    for container, name, path, why in found:
        leave_null(counts, table, entity_id, _path(path), container[name], why)
        container[name] = None
    return value


def unfit_in_integer_columns(table: str, spelled: Sequence[tuple[Any, Any, tuple[str | int, ...], str]]) -> list[Any]:
    """Of the text and floats `null_unfit_integers` set aside in a `table` record, those dlt would read as an integer
    beyond 64 bits (a fraction or a word it would put in a variant column; text in range is the number it spells, as
    before) into a column the run's schema (`dlt.current.source_schema()`, as loaded before) stores as bigint.
    Outside a resource no schema is current: none."""
    unfit = []
    for candidate in spelled:
        value = candidate[0][candidate[1]]
        try:
            number = coerce_value("bigint", "double" if type(value) is float else "text", value)
        except ValueError:
            continue
        if not fits_64_bits(number):
            unfit.append(candidate)
    if not unfit:
        return unfit
    try:
        schema = dlt.current.source_schema()
    except CurrentSourceSchemaNotAvailable:
        return []
    columns = [column_of(schema.naming, table, candidate[2]) for candidate in unfit]
    return [
        candidate
        for candidate, (stored_table, column) in zip(unfit, columns)
        if schema.tables.get(stored_table, {}).get("columns", {}).get(column, {}).get("data_type") == "bigint"
    ]


def may_spell_integer(text: str) -> bool:
    """Whether dlt might read `text` as an integer (`_text_to_bigint`: a sign, digits and underscores, or `0x` and hex
    digits, spaces around), told without parsing: true of every such text, and of few others."""
    text = text.strip()
    return text.lstrip("+-").replace("_", "").isdigit() or text.startswith("0x")


def column_of(naming: Any, table: str, path: Sequence[str | int]) -> tuple[str, str]:
    """The table and column dlt's normalizer puts the value at `path` of a `table` record in: the fields of an object
    are columns of its table (`owner__owner_id`), the items of a list rows of a nested table (`gates__rules`), a
    list's scalars its `value` column."""
    fragments: list[str] = [table]
    prefix: list[str] = []
    for part in path[:-1]:
        if isinstance(part, int):
            fragments += prefix
            prefix = []
        else:
            prefix.append(naming.normalize_identifier(part))
    last = path[-1] if path else "value"
    if isinstance(last, int):
        return naming.shorten_fragments(*fragments, *prefix), "value"
    return naming.shorten_fragments(*fragments), naming.shorten_fragments(*prefix, naming.normalize_identifier(last))


def unfit_integers_as_null(
    counts: ExtractionCounts, table: str, items: Sequence[dict[str, Any]], key: str
) -> Sequence[dict[str, Any]]:
    """`null_unfit_integers` for each item of a list page, named by its `key`; in place."""
    for item in items:
        null_unfit_integers(counts, table, item.get(key) if isinstance(item, dict) else None, item)
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
