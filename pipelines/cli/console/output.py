"""What console commands print: JSON (the default, for scripts) or plain aligned tables, on stdout."""

from __future__ import annotations

import json
import logging
import math
import sys
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from gatehouse.pipelines.untrusted import for_json, for_terminal
from gatehouse.sources.console.errors import redact

FORMATS = ("json", "table")
# A nested value longer than this is cut in a table; the JSON output always holds it whole.
TABLE_CELL_LIMIT = 80
COLUMN_GAP = "  "


log = logging.getLogger("gatehouse.console")


def print_json(value: Any) -> None:
    # console text, as the console holds it, with nothing in it a terminal would run or reorder (for_json)
    not_finite: list[str] = []
    value = _finite(value, "", not_finite)
    if not_finite:
        # Python's parser takes the console's NaN and Infinity, which are no JSON: a script's parser would refuse them
        log.warning("%s: not a finite number, written as null (JSON has no NaN or Infinity)", for_terminal(", ".join(not_finite)))
    sys.stdout.write(for_json(json.dumps(value, indent=2, ensure_ascii=False, default=str, allow_nan=False)) + "\n")


def _finite(value: Any, path: str, not_finite: list[str]) -> Any:
    """`value` with every NaN or infinity in it None, and where each was (`rules[0].passPercentage`) in `not_finite`."""
    if isinstance(value, float) and not math.isfinite(value):
        not_finite.append(f"{path or 'the value'} {value}")
        return None
    if isinstance(value, dict):
        return {key: _finite(item, f"{path}.{key}" if path else str(key), not_finite) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item, f"{path}[{index}]", not_finite) for index, item in enumerate(value)]
    return value


def print_entity(entity: Any, output_format: str) -> None:
    """One entity: JSON, or a two-column table of its fields."""
    if output_format == "json" or not isinstance(entity, dict):
        print_json(entity)
        return
    print_rows([{"field": key, "value": _cell(key, value)} for key, value in entity.items()], ("field", "value"))


def print_list(items: Sequence[dict], columns: Sequence[str], output_format: str) -> None:
    """A list: a JSON array, or a table of the given columns (one row per item)."""
    if output_format == "json":
        print_json(list(items))
    else:
        print_rows(items, columns)


def print_rows(rows: Iterable[dict], columns: Sequence[str]) -> None:
    cells = [[_cell(column, row.get(column)) for column in columns] for row in rows]
    widths = [max([len(column)] + [len(line[i]) for line in cells]) for i, column in enumerate(columns)]
    lines = [COLUMN_GAP.join(column.ljust(width) for column, width in zip(columns, widths)).rstrip()]
    lines.append(COLUMN_GAP.join("-" * width for width in widths))
    lines.extend(COLUMN_GAP.join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in cells)
    sys.stdout.write("\n".join(lines) + "\n")


def _cell(column: str, value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    # The interface's `...Time` fields are epoch milliseconds.
    if column.endswith("Time") and isinstance(value, int):
        return datetime.fromtimestamp(value / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M:%SZ")
    if isinstance(value, list) and all(isinstance(item, (str, int, float)) for item in value):
        text = ", ".join(str(item) for item in value)
    elif isinstance(value, (dict, list)):
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    else:
        text = str(value)
    text = for_terminal(" ".join(text.split()))
    return text if len(text) <= TABLE_CELL_LIMIT else text[: TABLE_CELL_LIMIT - 1] + "…"


def redacted(value: Any) -> Any:
    """`value` with every registered secret (API key, SCIM token, warehouse secrets) masked in its strings."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: redacted(item) for key, item in value.items()}
    if isinstance(value, list):
        return [redacted(item) for item in value]
    return value
