"""What each analysis view, report and raw table reads: derived from the SQL, never listed by hand.

A view reads raw tables through `{{ source('table') }}` and other views as `analytics.<name>` (or
`{{ ref('name') }}`); each view's SQL is parsed with sqlglot for those names. A report reads the views its
notebook names. The raw tables are the ones the views read, split by who loads them: `gatehouse run`
(the console source) or `gatehouse code-refs`.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path

import sqlglot
from sqlglot import exp

from gatehouse.pipelines.models.build import READ_DIALECT, SCHEMA, SOURCE_COLUMNS, view_definitions
from gatehouse.pipelines.reports.lanes import NOTEBOOK_DIR
from gatehouse.pipelines.reports.report import NOTEBOOKS
from gatehouse.pipelines.run.options import SELECTABLE

# The console source's root tables: what `gatehouse run` loads (nested tables are named after their root).
RUN_ROOT_TABLES = (*SELECTABLE, "extraction_runs")
_RAW = "__gatehouse_raw__"
_SOURCE = re.compile(r"\{\{\s*source\(\s*'([a-z0-9_]+)'\s*\)\s*\}\}")
_REF = re.compile(r"\{\{\s*ref\(\s*'([a-z0-9_]+)'\s*\)\s*\}\}")
_VIEW_NAME = re.compile(rf"\b{SCHEMA}\.([a-z0-9_]+)\b")


@dataclass(frozen=True)
class Reads:
    """What one view or report reads: raw tables and views, by name."""

    tables: tuple[str, ...]
    views: tuple[str, ...]


def raw_tables() -> list[str]:
    """Every raw table a view reads, in SOURCE_COLUMNS' order."""
    return list(SOURCE_COLUMNS)


def loaded_by_run(table: str) -> bool:
    return table.split("__")[0] in RUN_ROOT_TABLES


def view_reads() -> dict[str, Reads]:
    """Each view, in build order, and what it reads (analytics tables that are no views, the parameters, left out)."""
    return dict(_view_reads(tuple((definition.name, definition.sql) for definition in view_definitions())))


@functools.lru_cache(maxsize=4)
def _view_reads(views: tuple[tuple[str, str], ...]) -> tuple[tuple[str, Reads], ...]:
    # parsing every view is most of what building the Dagster definitions costs, and a worker builds them again for
    # each set of projects: the same SQL is parsed once per process
    names = {name for name, _ in views}
    return tuple((name, sql_reads(sql, names)) for name, sql in views)


def sql_reads(sql: str, views: set[str]) -> Reads:
    text = _REF.sub(lambda m: f"{SCHEMA}.{m[1]}", _SOURCE.sub(lambda m: f"{_RAW}.{m[1]}", sql))
    tables, read_views = set(), set()
    for table in sqlglot.parse_one(text, read=READ_DIALECT).find_all(exp.Table):
        if table.db == _RAW:
            tables.add(table.name)
        elif table.db == SCHEMA and table.name in views:
            read_views.add(table.name)
    return Reads(tuple(sorted(tables)), tuple(sorted(read_views)))


def report_reads() -> dict[str, tuple[str, ...]]:
    """Each report (notebook) and the views its code cells name."""
    views = {definition.name for definition in view_definitions()}
    return {name: _notebook_views(NOTEBOOK_DIR / f"{name}.ipynb", views) for name in NOTEBOOKS}


def _notebook_views(path: Path, views: set[str]) -> tuple[str, ...]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    code = "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "code")
    return tuple(sorted({name for name in _VIEW_NAME.findall(code) if name in views}))
