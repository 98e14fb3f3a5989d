"""The `gatehouse` command: one argparse tree, one logging set-up, one way to fail."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from gatehouse.pipelines.cli.terminal import error
from gatehouse.pipelines.errors import GatehouseError, config_file_problem
from gatehouse.pipelines.logs import configure_logging
from gatehouse.pipelines.settings import check_names
from gatehouse.sources.console.errors import ConsoleError

log = logging.getLogger("gatehouse")

DESCRIPTION = """\
gatehouse loads a feature-management console's gates, dynamic configs, holdouts,
qualifying events, cumulative exposures and ingestion runs into DuckDB (or any dlt
destination), builds analysis views on them and reports on stale flags, experiment
exposure and ingestion health.

Start with:
  gatehouse run --demo        # a local console twin into ./demo.duckdb, no account needed
  gatehouse report --duckdb demo.duckdb       # HTML reports in ./reports
  gatehouse sql --duckdb demo.duckdb "select * from analytics.stale_gates_by_owner"
"""


def build_parser() -> argparse.ArgumentParser:
    # Imported here so that `gatehouse --help` stays quick and a broken optional
    # command cannot stop the others from loading.
    from gatehouse.pipelines.cli import alerts, cleanup, code_refs, config, console, gates, projects, report, run, sql, twin
    from gatehouse.pipelines.cli.secret_options import SecretRefusingParser

    # every command's parser is of this class too (argparse makes a command's parser of its parent's class): a
    # secret typed as an option is refused without argparse quoting it (secret_options.py)
    parser = SecretRefusingParser(
        prog="gatehouse",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output (-vv for debug)")
    parser.add_argument("--version", action="version", version=f"gatehouse {installed_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in (run, report, sql, code_refs, cleanup, gates, alerts, console, config, projects, twin):
        module.register(commands)
    return parser


def main(argv: Sequence[str] | None = None, parser: argparse.ArgumentParser | None = None) -> int:
    args = (parser or build_parser()).parse_args(argv)
    try:
        # a refused secret option leaves only its refusal (secret_options); a log level that is none, one line
        configure_logging(getattr(args, "verbose", 0))
        check_names()  # a mistyped setting is refused before anything is read
        return int(args.handler(args) or 0)
    except (GatehouseError, ConsoleError) as err:
        # One actionable line; the details went to the debug log.
        log.debug("command failed", exc_info=True)
        error(err)
        return 2
    except BrokenPipeError:
        # The reader closed the pipe (`gatehouse sql ... | head -1`): it has what it wanted. Standard output is
        # pointed at /dev/null so that Python's own flush at exit does not fail on the closed pipe too.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as err:
        # A file or folder of the user's (--out, --duckdb's folder, a full disk, no permission): one line naming
        # it, like every other failure. An OSError without a path is no such input: its traceback is the report.
        if err.filename is None:
            raise
        log.debug("command failed", exc_info=True)
        error(describe_os_error(err))
        return 2
    except Exception as err:
        # A .dlt/config.toml or secrets.toml that does not parse surfaces from whichever setting dlt reads first.
        problem = config_file_problem(err)
        if problem is None:
            raise
        log.debug("command failed", exc_info=True)
        error(problem)
        return 2
    except KeyboardInterrupt:
        print("gatehouse: interrupted", file=sys.stderr)
        return 130


def installed_version() -> str:
    """The version of the installed distribution (`gatehouse-console`; the command and package are `gatehouse`)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "(not installed)"


DISTRIBUTION = "gatehouse-console"


def describe_os_error(err: OSError) -> str:
    where = str(err.filename) + (f" -> {err.filename2}" if err.filename2 is not None else "")
    if isinstance(err, (FileExistsError, NotADirectoryError)):
        # mkdir(exist_ok=True) on a file says 'File exists', a path through a file 'Not a directory'
        reason = "a file is where a folder is needed"
    else:
        reason = err.strerror or type(err).__name__
    return f"cannot use {where}: {reason}"


if __name__ == "__main__":  # pragma: no cover  (the console script is `gatehouse.pipelines.cli:command`)
    sys.exit(main())
