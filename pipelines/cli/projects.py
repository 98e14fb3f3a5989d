"""`gatehouse projects adopt NAME`: carry the single console's history into project NAME."""

from __future__ import annotations

import argparse
from typing import Any

from gatehouse.pipelines.cli.parser import add_command, add_command_group, add_destination_arguments, destination_from
from gatehouse.pipelines.cli.terminal import say
from gatehouse.pipelines.warehouse.adopt import adopt

ADOPT_DESCRIPTION = (
    "Move the single console's dataset (console) and its dlt state to project NAME (dataset console_NAME, pipeline"
    " gatehouse_NAME), every version kept, so that the project's next run continues the history instead of loading"
    " the console again beside it. Refused in one line, with nothing changed, when there is no dataset console or"
    " NAME already has one. Then name the console under [sources.console.projects.NAME]."
)
ADOPT_EPILOG = """\
examples:
  gatehouse projects adopt web                           # ./gatehouse.duckdb: console -> console_web
  gatehouse projects adopt web --destination postgres    # the same on the warehouse
"""


def register(subparsers: Any) -> None:
    projects_help = "several consoles as projects: adopt the single console's history"
    commands = add_command_group(
        subparsers,
        "projects",
        help=projects_help,
        metavar="PROJECTS_COMMAND",
        description="Several consoles load side by side as projects, each into dataset console_NAME, named under"
        " [sources.console.projects.NAME] in .dlt/config.toml (the README's Several projects). A database that loaded a single"
        " console first keeps its history: `adopt` moves it to a project before that project's first run.",
        epilog=ADOPT_EPILOG,
    )
    adopt_help = "move the single console's dataset and state to project NAME"
    parser = add_command(commands, "adopt", help=adopt_help, description=ADOPT_DESCRIPTION, epilog=ADOPT_EPILOG)
    parser.add_argument("name", metavar="NAME", help="the project's name (lower case: it names dataset console_NAME)")
    add_destination_arguments(parser)
    parser.set_defaults(handler=handle_adopt)


def handle_adopt(args: argparse.Namespace) -> int:
    destination = destination_from(args)
    say(*adopt(destination, args.name, args.lock_timeout).lines(destination.label()))
    return 0
