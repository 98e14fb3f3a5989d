"""`gatehouse gates snooze|unsnooze|snoozes`: a gate kept out of the worklist and the alerts until a date.

A snooze is kept in the warehouse, never in the console: one row of `console.gate_snoozes` (sources/gate_snoozes.py)
per snooze and per end, history kept; the newest row of a project and gate is the one in force
(`analytics.int_gate_snoozes`). Everything a command refuses is refused before anything is written.
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from dlt.common.exceptions import DltException

from gatehouse.pipelines.cleanup.decisions import check_known, check_projects, read_loaded_projects
from gatehouse.pipelines.cli import recording
from gatehouse.pipelines.cli.parser import add_command, add_command_group, add_destination_arguments, destination_from
from gatehouse.pipelines.cli.terminal import say
from gatehouse.pipelines.errors import GatehouseError, explain
from gatehouse.pipelines.untrusted import for_terminal
from gatehouse.pipelines.warehouse import datasets
from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.pipelines.warehouse.reader import Reader
from gatehouse.pipelines.wording import counted
from gatehouse.sources.gate_snoozes import gate_snoozes_source

# the reason of the row `unsnooze` writes, whose `snoozed_until` is the day it ran
ENDED_BY_HAND = "ended by hand"

SNOOZE_HELP = "keep a gate out of the worklist and the alerts until a date, with the reason"
SNOOZE_DESCRIPTION = (
    "Keep gate GATE out of the stale-gates worklist and the alerts until DATE (UTC), then it comes back on its own."
    " The snooze and its reason are kept in the warehouse, beside the console's data, never in the console;"
    " analytics.int_gate_snoozes has every snooze by project, the one in force marked is_latest. Snoozing a"
    " snoozed gate again replaces its snooze. Refused, with nothing written: a gate no run has loaded, a date that"
    " is not a later day, an empty reason."
)
SNOOZE_EPILOG = """\
examples:
  gatehouse gates snooze new_checkout --until 2027-01-31 --reason "holiday freeze: removed in February"
  gatehouse gates snooze new_checkout --until 2027-01-31 --reason "..." --project web   # only project web's
  gatehouse gates snoozes                      # the snoozes in force
  gatehouse gates unsnooze new_checkout        # back in the worklist now
"""
UNSNOOZE_HELP = "end a gate's snooze now: back in the worklist and the alerts"
UNSNOOZE_DESCRIPTION = (
    "End the snooze of GATE today: a row with snoozed_until today and reason 'ended by hand' is written after it,"
    " so its history stays. Without --project it ends the gate's snoozes in every project; refused when the gate"
    " has no snooze in force there."
)
UNSNOOZE_EPILOG = """\
examples:
  gatehouse gates unsnooze new_checkout
  gatehouse gates unsnooze new_checkout --project web --destination postgres
"""
SNOOZES_HELP = "the snoozes in force, by project and gate"
SNOOZES_DESCRIPTION = "Each gate snoozed today, per project: until when, who snoozed it, when, and why."
SNOOZES_EPILOG = """\
examples:
  gatehouse gates snoozes
  gatehouse gates snoozes --project web --duckdb flags.duckdb
"""


@dataclass(frozen=True)
class Snooze:
    """A project's gate as `analytics.int_gate_snoozes` has its newest row."""

    project: str
    gate_id: str
    snoozed_until: date
    reason: str
    snoozed_at: datetime
    snoozed_by: str | None


def register(subparsers: Any) -> None:
    commands = add_command_group(
        subparsers,
        "gates",
        help="snooze a gate: out of the worklist and the alerts until a date",
        metavar="GATES_COMMAND",
        description="Gate commands that keep their record in the warehouse.",
        epilog=SNOOZE_EPILOG,
    )
    snooze = add_command(commands, "snooze", help=SNOOZE_HELP, description=SNOOZE_DESCRIPTION, epilog=SNOOZE_EPILOG)
    snooze.add_argument("gate", metavar="GATE", help="the gate's id")
    snooze.add_argument(
        "--until", required=True, metavar="DATE", help="YYYY-MM-DD, a later day than today (UTC): the day the gate comes back"
    )
    snooze.add_argument("--reason", required=True, metavar="TEXT", help="why, for whoever wonders where the gate went")
    unsnooze = add_command(commands, "unsnooze", help=UNSNOOZE_HELP, description=UNSNOOZE_DESCRIPTION, epilog=UNSNOOZE_EPILOG)
    unsnooze.add_argument("gate", metavar="GATE", help="the gate's id")
    listing = add_command(commands, "snoozes", help=SNOOZES_HELP, description=SNOOZES_DESCRIPTION, epilog=SNOOZES_EPILOG)
    for parser, handler in ((snooze, handle_snooze), (unsnooze, handle_unsnooze), (listing, handle_snoozes)):
        parser.add_argument(
            "--project",
            metavar="NAME",
            help="only this project's gate (several consoles in one database; default: every project)",
        )
        add_destination_arguments(parser)
        parser.set_defaults(handler=handler)


def handle_snooze(args: argparse.Namespace) -> int:
    today = utc_today()
    until = parse_until(args.until, today)
    reason = args.reason.strip()
    if not reason:
        raise GatehouseError("--reason is empty: say why the gate is snoozed; nothing was written")
    destination = destination_from(args)
    replaced = _gate_snoozes_in_force(destination, args, today)
    record(destination, [snooze_row(args.project, args.gate, until, reason)], args.lock_timeout)
    again = f"; it replaces the snooze until {', '.join(sorted({f'{s.snoozed_until}' for s in replaced}))}" if replaced else ""
    say(f"{args.gate} ({_where(args.project)}): snoozed until {until}, out of the worklist and the alerts until then{again}")
    return 0


def handle_unsnooze(args: argparse.Namespace) -> int:
    today = utc_today()
    destination = destination_from(args)
    ending = _gate_snoozes_in_force(destination, args, today)
    if not ending:
        raise GatehouseError(f"{for_terminal(args.gate)} has no snooze in force ({_where(args.project)}); nothing was written")
    record(destination, [snooze_row(args.project, args.gate, None, ENDED_BY_HAND)], args.lock_timeout)
    projects = ", ".join(sorted({s.project for s in ending}))
    say(f"{args.gate} ({_where(args.project)}): snooze ended, back in the worklist and the alerts (project {projects})")
    return 0


def _gate_snoozes_in_force(destination: Destination, args: argparse.Namespace, today: date) -> list[Snooze]:
    """The snoozes in force today of the gate named (refused when no project has loaded it), of its project if named."""
    with _reading(destination, args) as reader:
        check_gate(read_gate_projects(reader), args.gate, args.project)
        return [
            s
            for s in read_in_force(reader, today)
            if s.gate_id == args.gate and (args.project is None or s.project == args.project)
        ]


def handle_snoozes(args: argparse.Namespace) -> int:
    destination = destination_from(args)
    with _reading(destination, args) as reader:
        if args.project is not None:
            check_projects([args.project], read_loaded_projects(reader))
        in_force = [s for s in read_in_force(reader, utc_today()) if args.project is None or s.project == args.project]
    for s in in_force:
        by = f"by {s.snoozed_by}, " if s.snoozed_by else ""
        # one line a snooze, whatever its reason or the gate's id holds
        say(
            for_terminal(
                f"{s.project}  {s.gate_id}  until {s.snoozed_until}  ({by}{s.snoozed_at:%Y-%m-%d %H:%M} UTC): {s.reason}"
            )
        )
    say(f"{counted(len(in_force), 'snoozed gate')} ({_where(args.project)})")
    return 0


def utc_today() -> date:
    return datetime.now(UTC).date()


def parse_until(text: str, today: date) -> date:
    """The day a snooze ends: an ISO date later than `today`."""
    try:
        until = date.fromisoformat(text.strip())
    except ValueError:
        example = today + timedelta(days=30)
        raise GatehouseError(
            f"--until {for_terminal(text)}: not a date; write it as YYYY-MM-DD, e.g. {example}; nothing was written"
        ) from None
    if until <= today:
        when = "today" if until == today else "in the past"
        raise GatehouseError(
            f"--until {until} is {when} (today is {today} UTC): a snooze ends on a later day; nothing was written"
        )
    return until


def check_gate(held: Sequence[tuple[str, str]], gate_id: str, project: str | None) -> None:
    """A gate no run has loaded (in `project`, when named) is refused in one line, with the nearest loaded id."""
    check_known([gate_id], sorted({gate for _, gate in held}))
    if project is None:
        return
    check_projects([project], sorted({name for name, _ in held}))
    holding = sorted({name for name, gate in held if gate == gate_id})
    if project not in holding:
        raise GatehouseError(
            f"project {for_terminal(project)} has no gate {for_terminal(gate_id)} (it is in project"
            f" {', '.join(holding)}); nothing was written"
        )


def read_gate_projects(reader: Reader) -> list[tuple[str, str]]:
    """(project, gate id) of every gate any version of any project's console has held."""
    return [
        (project, gate_id)
        for project, gate_id in reader.rows("select distinct project, gate_id from analytics.stg_gate_versions")
    ]


def read_in_force(reader: Reader, today: date) -> list[Snooze]:
    """Each project's gate whose newest snooze ends after `today`, by project, gate."""
    rows = reader.rows(
        "select project, gate_id, snoozed_until, snooze_reason, snoozed_at, snoozed_by"
        " from analytics.int_gate_snoozes where is_latest order by project, gate_id"
    )
    return [snooze for snooze in (Snooze(*row) for row in rows) if snooze.snoozed_until > today]


def snooze_row(project: str | None, gate_id: str, until: date | None, reason: str) -> dict[str, Any]:
    """One row of `gate_snoozes`, written now by the user running the command; `until` None: an end, on the day of
    `snoozed_at` itself (how a reader tells an end from a snooze, whose day is always a later one)."""
    at = datetime.now(UTC)
    return {
        "snooze_id": f"{at:%Y%m%dT%H%M%S%fZ}-{uuid.uuid4().hex[:8]}",
        "project": project,
        "gate_id": gate_id,
        "snoozed_until": at.date() if until is None else until,
        "reason": reason,
        "snoozed_at": at,
        "snoozed_by": _user(),
    }


def record(destination: Destination, rows: Sequence[dict[str, Any]], timeout_s: Any) -> None:
    """The rows, into console.gate_snoozes under the run lock; the views then read the table (made by the first)."""
    recording.record(destination, gate_snoozes_source(rows), timeout_s, "recording the snooze failed")


@contextlib.contextmanager
def _reading(destination: Destination, args: argparse.Namespace) -> Iterator[Reader]:
    """A reader over this version's views of the loaded data (an older version's are replaced first)."""
    try:
        datasets.check_loaded(destination, args.lock_timeout)
        destination.views.apply(timeout_s=args.lock_timeout, unless_current=True)
        with destination.reader(args.lock_timeout) as reader:
            yield reader
    except DltException as err:
        raise GatehouseError(f"cannot read the console data from destination {destination.label()}: {explain(err)}") from err


def _where(project: str | None) -> str:
    return "every project" if project is None else f"project {project}"


def _user() -> str | None:
    """The operating system's user running the command; None when it cannot say (no login name, no passwd entry)."""
    try:
        return getpass.getuser() or None
    except (KeyError, OSError):
        return None
