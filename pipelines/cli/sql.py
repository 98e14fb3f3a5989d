"""`gatehouse sql "select ..."`: one read-only query on the data, printed as a table, CSV or JSON.

The query is written in DuckDB's dialect, like the views, and translated to the destination's own (or sent
as written with --native). On DuckDB it reads the readers' snapshot, so it never delays a run; elsewhere the
warehouse itself. Only a query is accepted: nothing typed here can change what was loaded.
"""

from __future__ import annotations

import argparse
import csv
import json
import logging
import sys
from collections.abc import Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import sqlglot
from dlt.common.exceptions import DltException
from sqlglot import exp
from sqlglot.errors import ParseError

from gatehouse.pipelines.cli.parser import add_command, add_destination_arguments, destination_from
from gatehouse.pipelines.errors import GatehouseError, first_line
from gatehouse.pipelines.untrusted import for_csv, for_terminal
from gatehouse.pipelines.warehouse import datasets
from gatehouse.pipelines.warehouse.names import DATASET_NAME
from gatehouse.pipelines.warehouse.read_only import read_only

log = logging.getLogger("gatehouse.sql")

FORMATS = ("table", "csv", "json")
# A table wider than this is cut per cell (with …): a terminal wraps the rest into noise. CSV and JSON are never cut.
MAX_CELL = 60

HELP = "run one read-only SQL query on the loaded data (table, CSV or JSON)"
DESCRIPTION = (
    "Run one query over the raw tables (schema console) and the analysis views (schema analytics). Written in"
    " DuckDB's dialect and translated to the destination's; on DuckDB it reads the snapshot each run publishes."
)
EPILOG = """\
examples:
  gatehouse sql "select * from analytics.stale_gates_by_owner"
  gatehouse sql --duckdb demo.duckdb "select gate_id, owner_name, staleness from analytics.stale_gates limit 5"
  gatehouse sql --format csv "select * from analytics.exposure_srm" > srm.csv
  gatehouse sql --destination postgres --format json "select * from analytics.ingestion_failure_rate_by_source"
  gatehouse sql --destination postgres --native "select now()"     # the warehouse's own dialect, untranslated

Only a query (select, with ..., union, ...) is accepted; anything that would change the data is refused,
in a CTE or subquery too. DuckDB is read from a file opened read-only and PostgreSQL in a read-only
transaction, so the server refuses a function that writes as well; on Snowflake, BigQuery and Databricks
only the check of the statement stands: connect with a role that may only read.
"""


def register(subparsers: Any) -> None:
    parser = add_command(subparsers, "sql", help=HELP, description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("query", metavar="SQL", help="one query, DuckDB dialect unless --native")
    add_destination_arguments(parser)
    parser.add_argument("--format", choices=FORMATS, default="table", help="output format (default: %(default)s)")
    parser.add_argument("--native", action="store_true", help="send the query as written, in the destination's dialect")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    destination = destination_from(args).for_reading()
    datasets.check_loaded(destination, args.lock_timeout)
    with destination.reader(args.lock_timeout) as reader:
        check_read_only(args.query, reader.dialect if args.native else "duckdb")
        query = args.query if args.native else described_elsewhere(args.query, reader.dialect)
        try:
            with read_only(reader):
                names, rows = reader.table(query, translate=not args.native)
        except GatehouseError:
            raise
        except (DltException, Exception) as err:  # the database's own words, first line
            raise GatehouseError(f"query failed on {destination.label()}: {_database_message(err)}") from err
    write(names, rows, args.format, sys.stdout)
    return 0


# PRAGMAs that only read: a table's columns, the tables, the file's size.
READ_ONLY_PRAGMAS = ("table_info", "show", "show_tables", "show_tables_expanded", "database_size", "storage_info")

# What writes, defines, locks or changes the session, wherever it sits in a statement: PostgreSQL runs
# `with d as (delete ... returning 1) select ...` as a query, and `select ... into` creates a table.
CHANGES = (exp.Insert, exp.Update, exp.Delete, exp.Merge, exp.Copy, exp.Create, exp.Drop, exp.Alter,
           exp.TruncateTable, exp.Into, exp.Lock, exp.Command, exp.Pragma, exp.Set, exp.Use, exp.Attach,
           exp.Detach, exp.Install, exp.LoadData, exp.Transaction, exp.Commit, exp.Rollback, exp.Grant,
           exp.Revoke, exp.Comment, exp.Analyze, exp.Refresh, exp.Cache, exp.Uncache, exp.Export, exp.Kill,
           exp.Declare, exp.Execute)  # fmt: skip
# How the refusal names a clause whose sqlglot name is not what a person wrote.
SPELLED: dict[type, str] = {exp.TruncateTable: "TRUNCATE", exp.Into: "SELECT INTO", exp.Transaction: "BEGIN"}


def check_read_only(query: str, dialect: str) -> None:
    """One statement that only reads: `gatehouse sql` never changes what was loaded. A query, or what describes
    the data: SHOW, DESCRIBE, SUMMARIZE, EXPLAIN of a query, and the PRAGMAs that only read (`READ_ONLY_PRAGMAS`);
    nothing in it, in a CTE or a subquery either, that writes (`CHANGES`). On PostgreSQL the query then runs in a
    read-only transaction (`warehouse/read_only.py`), which refuses what no parse can see (a function that writes)."""
    statements = _statements(query, dialect)
    if len(statements) != 1:
        raise GatehouseError(f"give one query, not {len(statements)} statements")
    change = _first_change(statements[0], dialect)
    if change is not None:
        raise GatehouseError(
            f"only a query is run here, not {_spelled(change)}: gatehouse sql never changes the data"
            " (SHOW, DESCRIBE, SUMMARIZE, EXPLAIN and PRAGMA table_info are read too)"
        )


def described_elsewhere(query: str, dialect: str) -> str:
    """DuckDB's DESCRIBE and SHOW TABLES on a warehouse that has neither (PostgreSQL, Snowflake...): the same answer
    from `information_schema`; SUMMARIZE and PRAGMA, DuckDB's alone, refused in one line saying what to write."""
    if dialect == "duckdb":
        return query
    [statement] = _statements(query, "duckdb")
    if isinstance(statement, exp.Describe) and isinstance(statement.this, exp.Table):
        table = statement.this
        schema = exp.Literal.string(table.db or DATASET_NAME).sql()
        return (
            f"select column_name, data_type, is_nullable from information_schema.columns where table_schema = {schema}"
            f" and table_name = {exp.Literal.string(table.name).sql()} order by ordinal_position"
        )
    if isinstance(statement, exp.Show) and str(statement.this).upper() in ("TABLES", "ALL TABLES"):
        return (
            "select table_schema, table_name, table_type from information_schema.tables where table_schema not in"
            " ('information_schema', 'pg_catalog') order by table_schema, table_name"
        )
    if isinstance(statement, (exp.Describe, exp.Show, exp.Summarize, exp.Pragma)):
        raise GatehouseError(
            f"{_spelled(statement)} is DuckDB's own and {dialect} has no such statement: write a query"
            " over information_schema.columns or information_schema.tables instead"
        )
    return query


def _statements(query: str, dialect: str) -> list[exp.Expr]:
    # sqlglot warns on stderr when it keeps a statement it does not model (EXPLAIN) as a command
    parse_log = logging.getLogger("sqlglot")
    level, parse_log.level = parse_log.level, logging.ERROR
    try:
        return [statement for statement in sqlglot.parse(query, read=dialect) if statement is not None]
    except ParseError as err:
        raise GatehouseError(f"not valid {dialect} SQL: {first_line(err)}") from err
    finally:
        parse_log.level = level


def _first_change(statement: exp.Expr, dialect: str) -> exp.Expr | None:
    """The first part of `statement` that is not a read (the statement itself when it is not one), else None."""
    if isinstance(statement, exp.Pragma):
        pragma = statement.this
        name = pragma.name if isinstance(pragma, exp.Expression) else str(pragma)
        return None if name.lower() in READ_ONLY_PRAGMAS else statement
    if isinstance(statement, exp.Command) and str(statement.this).upper() == "EXPLAIN":
        rest = statement.expression.name if isinstance(statement.expression, exp.Expression) else str(statement.expression)
        rest = rest.strip()
        if rest.upper().startswith("ANALYZE "):
            rest = rest[len("ANALYZE ") :]  # which runs the query: what it explains is checked as if run
        inner = _statements(rest, dialect)
        if len(inner) != 1 or not isinstance(inner[0], exp.Query):
            return statement
        return _first_change(inner[0], dialect)
    if not isinstance(statement, (exp.Query, exp.Show, exp.Describe, exp.Summarize)):
        return statement
    return next((node for node in statement.walk() if isinstance(node, CHANGES)), None)


def _spelled(node: exp.Expr) -> str:
    if isinstance(node, exp.Command):
        return str(node.this).upper()
    if isinstance(node, exp.Lock):
        return "FOR UPDATE" if node.args.get("update") else "FOR SHARE"
    return SPELLED.get(type(node), node.key.upper())


def write(names: Sequence[str], rows: Sequence[tuple], output_format: str, out: Any) -> None:
    if output_format == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(names)
        writer.writerows([[csv_cell(value) for value in row] for row in rows])
    elif output_format == "json":
        out.write(json.dumps([dict(zip(names, map(_json_value, row))) for row in rows], indent=2) + "\n")
    else:
        out.write("\n".join(table_lines(names, rows)) + "\n")


def table_lines(names: Sequence[str], rows: Sequence[tuple]) -> list[str]:
    """Columns aligned, numbers to the right, a rule under the header, and the row count."""
    cells = [[_cut(_plain(value)) for value in row] for row in rows]
    widths = [max([len(name), *(len(row[i]) for row in cells)]) for i, name in enumerate(names)]
    numeric = [all(isinstance(row[i], (int, float, Decimal)) and not isinstance(row[i], bool)
                   for row in rows if row[i] is not None) and any(row[i] is not None for row in rows)
               for i in range(len(names))]  # fmt: skip

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.rjust(w) if right else v.ljust(w) for v, w, right in zip(values, widths, numeric)).rstrip()

    out = [line(names), "  ".join("-" * w for w in widths)]
    out += [line(row) for row in cells]
    out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return out


def csv_cell(value: Any) -> str:
    """A CSV cell: text that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, a tab or a carriage return
    first) gets a leading `'`, as OWASP advises, so opening the file never runs what a console user typed;
    numbers, dates and every other text are written as they are (docs/decisions.md, "Console text is untrusted")."""
    text = _plain(value)
    return for_csv(text) if isinstance(value, str) else text


def _plain(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S") + (" UTC" if value.tzinfo is not None else "")
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def _json_value(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def _cut(text: str) -> str:
    text = for_terminal(text)  # a line break, ESC or a bidi override in the data is shown as its escape
    return text if len(text) <= MAX_CELL else text[: MAX_CELL - 1] + "…"


def _database_message(err: BaseException) -> str:
    """The database's own words, whole, on one line: its hints kept (DuckDB's `Did you mean "..."?`, `Candidate
    bindings: ...`), the query excerpt and caret under `LINE 1:` left out (they only make sense on their own lines)."""
    # dlt wraps the driver's error; the innermost holds the database's own words
    current: BaseException = err
    while current.__cause__ is not None or current.__context__ is not None:
        current = current.__cause__ or current.__context__  # type: ignore[assignment]
    text = str(current) if str(current).strip() else str(err)
    lines = []
    for line in text.splitlines():
        if line.lstrip().startswith("LINE "):
            break
        if line.strip():
            lines.append(line.strip())
    return " ".join(lines) or type(current).__name__
