"""`gatehouse console ...`: every operation of the console interface as a command.

Reads print JSON on stdout (or a table with `--format table`); writes print the console's answer
with its message, or with `--dry-run` the exact request without sending it. Progress and errors go
to stderr; a failure is one line and exit code 2 (see `gatehouse.pipelines.cli.main`).
"""

from __future__ import annotations

import argparse

from gatehouse.pipelines.cli.console import reads, warehouse, writes
from gatehouse.pipelines.cli.parser import add_command

DESCRIPTION = """\
Run one operation of the console interface: read a gate, list stale gates, unarchive a
config, create a role, set the warehouse connection...

The console is the one configured for `gatehouse run`: sources.console.base_url in
.dlt/config.toml and sources.console.api_key in .dlt/secrets.toml, or the environment
variables SOURCES__CONSOLE__BASE_URL and SOURCES__CONSOLE__API_KEY (SCIM commands use
sources.console.scim_token / SOURCES__CONSOLE__SCIM_TOKEN).

Reads print JSON on stdout (--format table for a readable table). Writes print the
console's answer with its message; each takes --dry-run (print the exact request,
secrets shown as ***, and send nothing) and --respect-review-settings. Errors are one
line on stderr, exit code 2."""

EPILOG = """\
examples:
  gatehouse console gates --type STALE --format table
  gatehouse console gate checkout_redesign
  gatehouse console --base-url http://127.0.0.1:8787 exposures 5fH2aPq7 --format table
  gatehouse console role create 'Release manager' --allow create_release_pipelines --dry-run
  gatehouse console release-pipeline create --file pipeline.yaml

`gatehouse console COMMAND --help` explains each command, with an example."""

BASE_URL_HELP = "the console's base URL (instead of sources.console.base_url), e.g. http://127.0.0.1:8787"


def register(subparsers) -> None:
    console = add_command(
        subparsers,
        "console",
        help="run one operation of the console interface (reads and writes)",
        description=DESCRIPTION,
        epilog=EPILOG,
    )
    console.add_argument("--base-url", metavar="URL", help=BASE_URL_HELP)
    # Accepted after the command too (`gatehouse console gate X --base-url URL`); SUPPRESS keeps
    # the subcommand from overwriting a value given before it.
    connection = argparse.ArgumentParser(add_help=False)
    connection.add_argument("--base-url", metavar="URL", default=argparse.SUPPRESS, help=BASE_URL_HELP)

    commands = console.add_subparsers(
        dest="console_command", metavar="COMMAND", required=True, parser_class=argparse.ArgumentParser
    )
    for module in (reads, writes, warehouse):
        module.register(commands, [connection])
