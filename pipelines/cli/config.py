"""`gatehouse config`: each setting as every command resolves it, and where it came from; secrets as ***."""

from __future__ import annotations

import argparse
from typing import Any

from gatehouse.pipelines.cli.parser import add_command
from gatehouse.pipelines.cli.terminal import say
from gatehouse.pipelines.projects import configured_projects
from gatehouse.pipelines.settings import origins, project_origins
from gatehouse.pipelines.untrusted import for_terminal

HELP = "show each setting as the commands resolve it, and where it came from"
DESCRIPTION = (
    "Show gatehouse's settings ([gatehouse], [gatehouse.report], [gatehouse.alerts]) and the console's"
    " ([sources.console], and each project's own section), as every command, Dagster and the Airflow DAG resolve"
    " them: a flag, then the environment, then .dlt/secrets.toml and .dlt/config.toml, then the default. Secrets"
    " are shown as ***. A setting no command knows is refused, by this command as by every other."
)
EPILOG = """\
examples:
  gatehouse config
  GATEHOUSE__DESTINATION=postgres gatehouse config     # destination  postgres  (environment GATEHOUSE__DESTINATION)
"""


def register(subparsers: Any) -> None:
    parser = add_command(subparsers, "config", help=HELP, description=DESCRIPTION, epilog=EPILOG)
    parser.set_defaults(handler=handle_config)


def handle_config(args: argparse.Namespace) -> int:
    rows = origins()
    for project in configured_projects():
        rows.extend(project_origins(project))
    width = max(len(name) for name, _, _ in rows)
    value_width = min(48, max(len(value) for _, value, _ in rows))
    say(*(f"{name:<{width}}  {for_terminal(value):<{value_width}}  ({for_terminal(origin)})" for name, value, origin in rows))
    return 0
