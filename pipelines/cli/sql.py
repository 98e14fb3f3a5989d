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
from datetime import date, datetime
from decimal import Decimal
from typing import Any, Sequence

import sqlglot
from dlt.common.exceptions import DltException
from sqlglot import exp
from sqlglot.errors import ParseError

from gatehouse.pipelines.warehouse import destination as destinations
from gatehouse.pipelines.cli.parser import add_command
from gatehouse.pipelines.errors import GatehouseError, first_line

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

Only a query (select, with ..., union, ...) is accepted; anything that would change the data is refused.
"""


def register(subparsers: Any) -> None:
    parser = add_command(subparsers, "sql", help=HELP, description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("query", metavar="SQL", help="one query, DuckDB dialect unless --native")
    destinations.add_arguments(parser)
    parser.add_argument("--format", choices=FORMATS, default="table", help="output format (default: %(default)s)")
    parser.add_argument("--native", action="store_true", help="send the query as written, in the destination's dialect")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    destination = destinations.from_arguments(args).for_reading()
    destination.check_loaded(args.lock_timeout)
    with destination.reader(args.lock_timeout) as reader:
        check_read_only(args.query, reader.dialect if args.native else "duckdb")
        try:
            names, rows = reader.table(args.query, translate=not args.native)
        except GatehouseError:
            raise
        except (DltException, Exception) as err:  # the database's own words, first line
            raise GatehouseError(f"query failed on {destination.label()}: {_database_message(err)}") from err
    write(names, rows, args.format, sys.stdout)
    return 0


def check_read_only(query: str, dialect: str) -> None:
    """One statement, and a query: `gatehouse sql` never changes what was loaded."""
    try:
        statements = [statement for statement in sqlglot.parse(query, read=dialect) if statement is not None]
    except ParseError as err:
        raise GatehouseError(f"not valid {dialect} SQL: {first_line(err)}") from err
    if len(statements) != 1:
        raise GatehouseError(f"give one query, not {len(statements)} statements")
    if not isinstance(statements[0], exp.Query):
        kind = statements[0].key.upper()
        raise GatehouseError(f"only a query is run here, not {kind}: gatehouse sql never changes the data")


def write(names: Sequence[str], rows: Sequence[tuple], output_format: str, out: Any) -> None:
    if output_format == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(names)
        writer.writerows([[_plain(value) for value in row] for row in rows])
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
    text = text.replace("\n", " ")
    return text if len(text) <= MAX_CELL else text[: MAX_CELL - 1] + "…"


def _database_message(err: BaseException) -> str:
    # dlt wraps the driver's error; the innermost holds the database's own words
    current: BaseException = err
    while current.__cause__ is not None or current.__context__ is not None:
        current = current.__cause__ or current.__context__  # type: ignore[assignment]
    return first_line(current if str(current).strip() else err)


