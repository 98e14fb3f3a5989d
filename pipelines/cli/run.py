"""`gatehouse run` and `gatehouse views`: the command line over a run and over the views alone."""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
from typing import Any

from gatehouse.pipelines.alerts.delivery import alert_timeout, configured_channels
from gatehouse.pipelines.alerts.dispatch import AlertOutcome
from gatehouse.pipelines.cli.parser import add_command, add_destination_arguments, destination_from, given
from gatehouse.pipelines.cli.terminal import say
from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.models.build import DEFAULT_PARAMETERS, DEFAULT_PROJECT, check_parameters
from gatehouse.pipelines.projects import ALL_PROJECTS, check_name, configured_projects
from gatehouse.pipelines.run.checks import single_console_left
from gatehouse.pipelines.run.consoles import ProjectOutcome, run_consoles
from gatehouse.pipelines.run.demo import DEMO_BASE_URL, DEMO_PROJECTS, demo_consoles
from gatehouse.pipelines.run.options import SELECTABLE, RunOptions
from gatehouse.pipelines.run.scheduled import failure_line
from gatehouse.pipelines.run.summary import snapshot_line
from gatehouse.pipelines.warehouse import datasets, names
from gatehouse.pipelines.warehouse.dbt_build import DBT_SCHEMA, build_with_dbt
from gatehouse.pipelines.warehouse.destination import Destination

log = logging.getLogger("gatehouse.run")

EPILOG = """\
examples:
  gatehouse run --demo                       # two projects' local console twins into ./demo.duckdb, no account needed
  gatehouse run                              # ./gatehouse.duckdb, settings from .dlt/ or SOURCES__CONSOLE__*
  gatehouse run --duckdb /data/flags.duckdb --resources gates,dynamic_configs
  gatehouse run --destination postgres       # credentials from dlt config, e.g. DESTINATION__POSTGRES__CREDENTIALS
  gatehouse run --full-refresh               # drop the console tables and state, load everything again
  gatehouse run --repoint                    # the dataset's console changed on purpose (a rotated key, a new URL)
  gatehouse run --alerts                     # then tell Slack / a webhook what is new (gatehouse alerts --help)
  gatehouse run --lock-timeout 900           # wait up to 15 minutes for a notebook holding the DuckDB file
  gatehouse run --project web                # one of several projects ([sources.console.projects.web])
  gatehouse twin serve --projects web,mobile # local consoles for two projects, and their settings to export

settings ([sources.console] in .dlt/config.toml and .dlt/secrets.toml, or environment variables):
  base_url            SOURCES__CONSOLE__BASE_URL
  api_key             SOURCES__CONSOLE__API_KEY          (secret)
  experiment_ids      SOURCES__CONSOLE__EXPERIMENT_IDS   JSON list, e.g. '["exp_a","exp_b"]'
  holdout_ids         SOURCES__CONSOLE__HOLDOUT_IDS      JSON list
  ingestion_run_ids   SOURCES__CONSOLE__INGESTION_RUN_IDS JSON list
  lock_timeout        GATEHOUSE__LOCK_TIMEOUT            seconds ([gatehouse] in .dlt/config.toml)

several projects, each into its own dataset console_<name>, loaded side by side ([sources.console.projects.<name>],
any setting above; base_url and api_key are required there, the rest defaults to [sources.console]):
  base_url            SOURCES__CONSOLE__PROJECTS__<NAME>__BASE_URL
  api_key             SOURCES__CONSOLE__PROJECTS__<NAME>__API_KEY  (secret)
"""

VIEWS_EPILOG = """\
examples:
  gatehouse views                                      # ./gatehouse.duckdb
  gatehouse views --destination postgres               # after upgrading gatehouse, or changing a parameter
  gatehouse views --set stall_days=5 --set target_sample_size=20000
  gatehouse views --projects web,mobile                # the views show these projects only (--projects all: every one)
  gatehouse views --dbt                                # the same models built and tested by dbt (extra [dbt], docs/dbt.md)

parameters (kept in analytics.view_parameters; --set changes them for good):
""" + "\n".join(f"  {name:<24} {default:g}  {text}" for name, (default, text) in DEFAULT_PARAMETERS.items())


HELP = "extract the console into DuckDB (or any dlt destination)"
DESCRIPTION = (
    "Extract gates, dynamic configs, holdouts, qualifying events, cumulative exposures and"
    " ingestion runs incrementally, then refresh the analysis views."
)

VIEWS_HELP = "create or refresh the analysis views without extracting"
VIEWS_DESCRIPTION = (
    "Re-apply every staging and analysis view (schema analytics) on the destination: after"
    " upgrading gatehouse, or to change a view parameter."
)


def register(subparsers: Any) -> None:
    parser = add_command(subparsers, "run", help=HELP, description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument(
        "--demo",
        action="store_true",
        help=f"run against local console twins of two projects, {' and '.join(DEMO_PROJECTS)} (no account needed),"
        f" into ./{names.DEMO_DUCKDB} unless --duckdb says otherwise",
    )
    add_destination_arguments(parser)
    parser.add_argument("--resources", type=given, metavar="A,B", help=f"load only these tables: {', '.join(SELECTABLE)}")
    parser.add_argument("--full-refresh", action="store_true", help="drop the console tables and state first")
    parser.add_argument(
        "--repoint",
        action="store_true",
        help="load a console other than the one the dataset holds (refused without this flag): its"
        " history continues and what the new console lacks is retired; with --full-refresh it starts over",
    )
    parser.add_argument(
        "--project", metavar="NAME", help="load only this one of the projects configured under [sources.console.projects.<name>]"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress lines while running")
    parser.add_argument(
        "--alerts",
        action="store_true",
        help="after the run, send what is new (gatehouse alerts), or that the run failed; never fails the run",
    )
    parser.set_defaults(handler=handle_run)

    views = add_command(subparsers, "views", help=VIEWS_HELP, description=VIEWS_DESCRIPTION, epilog=VIEWS_EPILOG)
    add_destination_arguments(views)
    views.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="set a view parameter (repeatable)")
    views.add_argument(
        "--projects",
        metavar="A,B",
        help="show only these projects in the views, kept in analytics.view_projects until changed"
        f" (the single console is {DEFAULT_PROJECT}); all: every project",
    )
    views.add_argument(
        "--dbt",
        action="store_true",
        help=f"build gatehouse's dbt package instead, through dlt's dbt runner, into schema {DBT_SCHEMA}, and run"
        " its tests (duckdb and postgres; pip install 'gatehouse-console[dbt]'); --set and --projects become its vars",
    )
    views.set_defaults(handler=handle_views)


def handle_run(args: argparse.Namespace) -> int:
    projects = list(DEMO_PROJECTS) if args.demo else configured_projects()
    if args.project is not None:
        if args.project not in projects:
            configured = ", ".join(projects) or "none"
            where = "the demo's projects" if args.demo else "a configured project"
            raise GatehouseError(
                f"--project {args.project}: not {where} (configured: {configured});"
                " name it under [sources.console.projects.<name>] in .dlt/config.toml"
            )
        projects = [args.project]
    if args.demo and args.duckdb is None and args.destination is None:
        args.duckdb = str(names.DEMO_DUCKDB)
    resources = [r.strip() for r in args.resources.split(",") if r.strip()] if args.resources else None
    if args.alerts:
        # a hook's address no request could reach, a time-out that is none: refused now, before the run (after it,
        # alerting never fails the run, and every later run would pass with nothing sent)
        configured_channels()
        alert_timeout()
    options = RunOptions(
        destination=destination_from(args),
        resources=resources,
        full_refresh=args.full_refresh,
        progress=not args.no_progress,
        lock_timeout_s=args.lock_timeout,
        repoint=args.repoint,
        demo=args.demo,
        alerts=args.alerts,
    )
    consoles: contextlib.AbstractContextManager[dict[str, dict[str, Any]]] = contextlib.nullcontext({})
    if args.demo:
        consoles = demo_consoles()
    with consoles as demo_args:
        if args.demo:
            log.info("demo: projects %s, small console twins in this process at %s", ", ".join(demo_args), DEMO_BASE_URL)
        options.projects_args = demo_args
        outcomes, alerted = run_consoles(options, projects)
    if projects:
        return say_projects(options.destination, outcomes, alerted, args.lock_timeout)
    [outcome] = outcomes
    if outcome.summary is None:
        raise GatehouseError(str(outcome.error))
    say(f"gatehouse: {options.destination.label()}", *outcome.summary.lines(), *(alerted.lines() if alerted else ()))
    return 0


def say_projects(
    destination: Destination, outcomes: list[ProjectOutcome], alerted: AlertOutcome | None, lock_timeout_s: float | None
) -> int:
    """Each project's summary; the last line names every project that failed, with its reason."""
    projects = [outcome.project for outcome in outcomes]
    for outcome in outcomes:
        say(
            f"gatehouse: {destination.for_project(outcome.project).label()}: project {outcome.project}",
            # the reason once, on the last line with every failed project's (where a scheduler's mail shows it)
            *(outcome.summary.lines() if outcome.summary else ("  failed: its reason is on the last line",)),
        )
    if any(outcome.summary for outcome in outcomes):
        left = single_console_left(destination, projects, lock_timeout_s)
        say(*([left] if left else ()), *([snapshot_line(destination.snapshot.path)] if destination.is_duckdb_file else ()))
    say(*(alerted.lines() if alerted else ()))
    failed = failure_line(outcomes)
    if failed:
        sys.stdout.flush()  # the failures stay the last line, also where stdout and stderr are one stream
        raise GatehouseError(failed)
    return 0


def handle_views(args: argparse.Namespace) -> int:
    parameters = {}
    for item in args.set:
        name, _, value = item.partition("=")
        try:
            parameters[name.strip()] = float(value)
        except ValueError:
            raise GatehouseError(f"--set {item}: expected NAME=NUMBER, e.g. --set stall_days=5") from None
    check_parameters(parameters)  # before the database is opened: nothing changes when one is refused
    projects = None
    if args.projects is not None:
        projects = [name.strip() for name in args.projects.split(",") if name.strip()]
        if projects == [ALL_PROJECTS]:
            projects = []
        for name in projects:
            if name != DEFAULT_PROJECT:
                check_name(name)
    destination = destination_from(args)
    datasets.check_loaded(destination, args.lock_timeout)
    if args.dbt:
        built = build_with_dbt(destination, parameters, projects, args.lock_timeout)
        # readers of a DuckDB file open its snapshot: it shows the models too
        destination.snapshot.publish(args.lock_timeout)
        say(*built.lines(destination.label()))
        return 0
    names = destination.views.apply(parameters=parameters or None, timeout_s=args.lock_timeout, projects=projects)
    destination.snapshot.publish(args.lock_timeout)
    say(f"gatehouse: {destination.label()}: {len(names)} views in schema analytics")
    return 0
