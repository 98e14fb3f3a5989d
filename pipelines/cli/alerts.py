"""`gatehouse alerts`: send what is new since the last alert (arguments and output only)."""

from __future__ import annotations

import argparse
from typing import Any

from gatehouse.pipelines.alerts.dispatch import NO_CHANNEL, send_alerts
from gatehouse.pipelines.cli.parser import add_command, add_destination_arguments, destination_from
from gatehouse.pipelines.cli.terminal import say
from gatehouse.pipelines.errors import GatehouseError

HELP = "send alerts on what is new: SRM, stalled experiments, failed ingestion, stale gates"
DESCRIPTION = (
    "Read the analysis views and tell a person only what is new since the last alert: a new sample-ratio"
    " mismatch, a newly stalled experiment, an ingestion source's new failed run, gates that have just become"
    " stale (grouped by owner). Sent to a Slack incoming webhook and/or a JSON webhook; what was sent is kept in"
    " analytics.alerts_sent, so each condition is sent once per channel. `gatehouse run --alerts` does this after"
    " every run, and tells a failed run too."
)
EPILOG = """\
examples:
  gatehouse alerts --mark-known               # once, first: what holds today is known; nothing is sent
  gatehouse alerts --dry-run                  # print what would be sent; nothing is sent or recorded
  gatehouse alerts                            # ./gatehouse.duckdb
  gatehouse alerts --destination postgres
  gatehouse run --alerts                      # after each run, and a failed run as well

settings (.dlt/secrets.toml, .dlt/config.toml, or environment variables):
  runtime.slack_incoming_hook   RUNTIME__SLACK_INCOMING_HOOK    dlt's own Slack setting (secret)
  gatehouse.alerts.webhook_url  GATEHOUSE__ALERTS__WEBHOOK_URL  any URL taking a JSON POST (secret)
  gatehouse.alerts.timeout      GATEHOUSE__ALERTS__TIMEOUT      seconds per POST (default 10)
thresholds are the views' own: gatehouse views --set srm_p_value_threshold=0.0001 --set stall_days=5
"""


def register(subparsers: Any) -> None:
    parser = add_command(subparsers, "alerts", help=HELP, description=DESCRIPTION, epilog=EPILOG)
    add_destination_arguments(parser)
    parser.add_argument("--dry-run", action="store_true", help="print the messages; send and record nothing")
    parser.add_argument(
        "--mark-known",
        action="store_true",
        help="record everything that holds now as known, send nothing: run it once before the first"
        " scheduled alerting, which then sends only what is new",
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    destination = destination_from(args)
    if args.dry_run and args.mark_known:
        raise GatehouseError("--dry-run and --mark-known: choose one (--mark-known records, --dry-run records nothing)")
    outcome = send_alerts(destination, dry_run=args.dry_run, timeout_s=args.lock_timeout, mark_known=args.mark_known)
    if NO_CHANNEL in outcome.problems:
        raise GatehouseError(NO_CHANNEL)
    if args.dry_run:
        for channel, sent in outcome.sent.items():
            say(*(f"[{channel}] {message.text}" for message in sent))
    say(*outcome.lines())
    # A channel that failed is not the data's failure, but a scheduler should see it: exit 1, not 2.
    return 1 if outcome.problems or outcome.undelivered else 0
