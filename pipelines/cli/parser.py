"""The one shape of a `gatehouse` command's parser: a help line, a description, examples kept as written; and the
flags every command that reaches the data shares, turned into its `Destination`."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence
from typing import Any

from gatehouse.pipelines.settings import DEFAULT_LOCK_TIMEOUT_S
from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.pipelines.warehouse.lock import LOCK_TIMEOUT_SETTING, lock_timeout
from gatehouse.pipelines.warehouse.names import DEFAULT_DUCKDB


def add_command(
    subparsers: Any,
    name: str,
    *,
    help: str,
    description: str | None = None,
    epilog: str | None = None,
    parents: Sequence[argparse.ArgumentParser] = (),
    allow_abbrev: bool = True,
) -> argparse.ArgumentParser:
    """A command (or a group of commands) with its help line, description and examples kept as written, and the
    options it shares with others (`parents`)."""
    return subparsers.add_parser(
        name,
        help=help,
        description=description,
        epilog=epilog,
        parents=list(parents),
        allow_abbrev=allow_abbrev,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def add_command_group(
    subparsers: Any, name: str, *, help: str, metavar: str, description: str | None = None, epilog: str | None = None
) -> Any:
    """A command whose own commands follow it (`gatehouse gates snooze`, named `metavar` in its help); returns where
    those are added, one of them required. The name given is kept under `metavar.lower()`, which nothing reads:
    each command's handler says what runs."""
    group = add_command(subparsers, name, help=help, description=description, epilog=epilog)
    return group.add_subparsers(dest=metavar.lower(), metavar=metavar, required=True)


def given(value: str) -> str:
    """An option's text, refused when empty: `--duckdb ""` (an unset variable in a script) would otherwise mean the
    default, and the command would read or write somewhere the user did not name."""
    if not value.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return value


def bounded(convert: Callable[[str], Any], what: str, lowest: float, highest: float = math.inf) -> Callable[[str], Any]:
    """An argparse type: the text as `convert` reads it, from `lowest` to `highest` (NaN refused); anything else is
    refused when the command starts, in one line saying `what` was expected."""

    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except ValueError:
            value = math.nan
        if not lowest <= value <= highest:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value

    return parse


positive_int = bounded(int, "a whole number, 1 or more", 1)  # a page's size, a cap on it
seconds = bounded(float, "0 or more seconds", 0)  # `inf`: for ever


def add_destination_arguments(parser: Any, *, lock: bool = True) -> None:
    """The flags every command that reaches the data shares: --duckdb, --destination (and --lock-timeout)."""
    parser.add_argument(
        "--duckdb",
        type=given,
        default=None,
        metavar="PATH",
        help=f"DuckDB file, the default destination (default: {DEFAULT_DUCKDB})",
    )
    parser.add_argument(
        "--destination",
        type=given,
        default=None,
        metavar="NAME",
        help="any dlt destination name (postgres, snowflake, bigquery, databricks, motherduck,"
        " filesystem...); its credentials come from dlt config, e.g. .dlt/secrets.toml",
    )
    if lock:
        parser.add_argument(
            "--create-dirs",
            action="store_true",
            help="make the DuckDB file's folder if it does not exist (without it, a missing folder is"
            " refused: a typo in a path would otherwise start a new history)",
        )
        parser.add_argument(
            "--lock-timeout",
            type=seconds,
            default=None,
            metavar="SECONDS",
            help=f"wait this long for another run or for a program holding the DuckDB file"
            f" (default: setting {LOCK_TIMEOUT_SETTING}, else {DEFAULT_LOCK_TIMEOUT_S:.0f})",
        )


def destination_from(args: argparse.Namespace) -> Destination:
    if hasattr(args, "lock_timeout"):
        lock_timeout(args.lock_timeout)  # the setting too, when no flag is given: refused now, not when a wait comes
    return Destination.from_flags(args.destination, args.duckdb, create_dirs=getattr(args, "create_dirs", False))
