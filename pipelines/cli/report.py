"""`gatehouse report`: the command line over the reports (pipelines/reports): arguments and output only."""

from __future__ import annotations

import argparse
from typing import Any

from gatehouse.pipelines.cli.parser import add_command, add_destination_arguments, destination_from, given
from gatehouse.pipelines.cli.terminal import say
from gatehouse.pipelines.reports.report import WORKLIST_CSV, NotebookLanes, ReportsFailed, refresh, write_reports
from gatehouse.pipelines.settings import reports_folder
from gatehouse.pipelines.warehouse.read_only import cannot_be_written, reading_as_it_is

EPILOG = """\
examples:
  gatehouse report                                   # ./gatehouse.duckdb -> ./reports/*.html
  gatehouse report --duckdb /data/gh.duckdb --out /tmp/reports
  gatehouse report --destination postgres            # the warehouse `gatehouse run --destination postgres` loaded

settings ([gatehouse.report] in .dlt/config.toml, or the environment):
  gatehouse.report.gate_url  GATEHOUSE__REPORT__GATE_URL  each gate links to https://…/gates/{id} (default: no link)
  gatehouse.report.kernels   GATEHOUSE__REPORT__KERNELS   1 or 2 notebook processes side by side (default: 2 on 2+ cores)

The notebooks can also be opened in Jupyter: set GATEHOUSE__DUCKDB to the database path first, or
GATEHOUSE__DESTINATION to a dlt destination name (its credentials from .dlt/ as for `gatehouse run`).
"""


HELP = "HTML reports on stale gates, experiment exposures and ingestion health"
DESCRIPTION = "Run the notebooks headless on the data `gatehouse run` loaded: one self-contained HTML report each, and a summary."


def register(subparsers: Any) -> None:
    parser = add_command(subparsers, "report", help=HELP, description=DESCRIPTION, epilog=EPILOG)
    add_destination_arguments(parser)
    parser.add_argument(
        "--out",
        type=given,
        default=None,
        metavar="DIR",
        help="where the HTML goes (default: setting gatehouse.reports_dir, else ./reports)",
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    destination = destination_from(args)
    out = reports_folder(args.out)
    # The notebooks' processes start, and import what the notebooks use, while the views are refreshed; the summary
    # is made in the first after its notebooks, from the frames they read (the snapshot just published: a run
    # started meanwhile never waits), so no view is read twice.
    failed = None
    with NotebookLanes(destination.label()) as lanes:
        if cannot_be_written(destination):  # a read-only mount: read it as it is, if its views are current
            reading = reading_as_it_is(destination, args.lock_timeout)
        else:
            refresh(destination, timeout_s=args.lock_timeout)
            reading = destination.for_reading()
        try:
            reports = write_reports(reading, out, lanes)
        except ReportsFailed as err:  # the others are written: said, then the one line of those that were not
            reports, failed = err.written, err
        text = lanes.summary()
    exported = [out / WORKLIST_CSV] if (out / WORKLIST_CSV).is_file() else []
    say(text, "reports:", *(f"  {report.html}" for report in reports), *(f"  {path}" for path in exported))
    if failed is not None:
        raise failed
    return 0
