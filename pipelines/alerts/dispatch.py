"""One alerting: the conditions now, what each channel has not been told, the POSTs, the ledger.

`send_alerts` is what `gatehouse alerts`, `gatehouse run --alerts`, the Dagster definitions and the
Airflow DAG call. Nothing in it fails a load: a channel that fails is a line in the outcome, and a
condition it did not take stays unsent, to be sent by the next alerting.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

import httpx

from gatehouse.pipelines.alerts import conditions as kinds
from gatehouse.pipelines.alerts.conditions import Condition, Message, current_conditions, failed_run_condition, messages
from gatehouse.pipelines.alerts.delivery import (
    SLACK_SETTING,
    WEBHOOK_SETTING,
    Channel,
    alert_timeout,
    configured_channels,
    payload,
    post,
    redact,
)
from gatehouse.pipelines.alerts.ledger import CLEARED, KNOWN, SENT, ensure_ledger, open_keys, record
from gatehouse.pipelines.warehouse.destination import Destination, Reader, lock_timeout
from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.wording import counted
from gatehouse.pipelines.run.steps import ProjectOutcome, RunOptions, run_extraction, run_projects
from gatehouse.pipelines.run.summary import RunSummary
from gatehouse.sources.console.errors import ConsoleError

log = logging.getLogger("gatehouse.alerts")

NO_CHANNEL = (
    f"no alert channel configured: set {SLACK_SETTING} (RUNTIME__SLACK_INCOMING_HOOK) or {WEBHOOK_SETTING}"
    " (GATEHOUSE__ALERTS__WEBHOOK_URL) in .dlt/secrets.toml or the environment; --dry-run prints the alerts"
)


@dataclass
class AlertOutcome:
    """What one alerting did: the messages per channel, and one line per thing that went wrong."""

    sent: dict[str, list[Message]] = field(default_factory=dict)
    # a channel that did not take its messages: how many, and why (they are sent again by the next alerting)
    undelivered: dict[str, tuple[int, str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    dry_run: bool = False
    marked_known: bool = False

    def lines(self) -> list[str]:
        """One line per channel and outcome, counted in messages (what a channel is sent)."""
        out = []
        for channel, sent in self.sent.items():
            if channel in self.undelivered:
                count, reason = self.undelivered[channel]
                out.append(f"alerts: {counted(count, 'message')} not delivered to {channel} ({reason}), kept for the next run")
            elif self.marked_known:
                told = sum(len(message.keys) for message in sent)
                out.append(f"alerts: {counted(told, 'condition')} marked known for {channel}, none sent;"
                           " from now on only what is new is sent")
            elif sent:
                out.append(f"alerts: {'would send' if self.dry_run else 'sent'} {counted(len(sent), 'new message')} to {channel}")
            else:
                out.append(f"alerts: nothing new for {channel}")
        out += [f"alerts: {problem}" for problem in self.problems]
        return out


def send_alerts(
    destination: Destination,
    *,
    dry_run: bool = False,
    run_error: Optional[str] = None,
    after_run: bool = False,
    timeout_s: Optional[float] = None,
    transport: Optional[httpx.BaseTransport] = None,
    project_errors: Optional[Mapping[str, str]] = None,
    mark_known: bool = False,
) -> AlertOutcome:
    """Sends each channel the conditions it has not been told about, and records them.

    `run_error`: the one line of a run that failed (only that is sent: the views still show the last good
    load). `after_run`: called by a run, so its outcome is known (a success clears a failure, and the next
    failure is news again). `dry_run`: the messages are returned, nothing is sent or recorded.
    `project_errors`: after a run of several projects, each failed project's line (sent beside what the
    views show of the projects that loaded). `mark_known`: every condition that holds now is recorded as told,
    and nothing is sent: alerting starts quietly, and the next alerting sends only what is new.
    """
    outcome = AlertOutcome(dry_run=dry_run, marked_known=mark_known)
    channels = configured_channels()
    if not channels and not dry_run:
        outcome.problems.append(NO_CHANNEL)
        return outcome
    if dry_run and not channels:
        channels = [Channel("(no channel configured)", "")]
    post_timeout = alert_timeout()
    timeout_s = lock_timeout(timeout_s)
    failed = [failed_run_condition(redact(error), destination.for_project(project).label(), project)
              for project, error in sorted((project_errors or {}).items())]
    if run_error is not None:
        found = [failed_run_condition(redact(run_error), destination.label())]
        evaluated = {kinds.RUN_FAILED}
    else:
        destination.check_loaded(timeout_s)
        found = []
        evaluated = set(kinds.VIEW_KINDS) | ({kinds.RUN_FAILED} if after_run else set())
    try:
        with destination.exclusive(timeout_s), destination.sql_client(timeout_s) as client:
            if run_error is None:
                found = current_conditions(Reader(client)) + failed
            if not dry_run:
                ensure_ledger(client)
            for channel in channels:
                told = set() if channel.url == "" else open_keys(client, channel.name)
                _alert_channel(client, channel, found, evaluated, told, destination.label(), post_timeout, dry_run, transport, outcome,
                               mark_known)
    except (GatehouseError, ConsoleError) as err:
        if run_error is None:
            raise
        # The destination may be what failed: a failed run is told without the ledger rather than not at all.
        outcome.problems.append(f"the alert ledger could not be read ({err}): the failed run is sent without it")
        for channel in channels:
            _alert_channel(None, channel, found, evaluated, set(), destination.label(), post_timeout, dry_run, transport, outcome)
    return outcome


def _alert_channel(client: Any, channel: Channel, found: list[Condition], evaluated: set[str], told: set[str],
                   label: str, timeout_s: float, dry_run: bool, transport: Any, outcome: AlertOutcome,
                   mark_known: bool = False) -> None:
    new = [condition for condition in found if condition.key not in told]
    now = {condition.key for condition in found}
    cleared = sorted(key for key in told if _kind(key) in evaluated and key not in now)
    to_send = [Message(m.kind, redact(m.text), m.keys) for m in messages(new)]
    outcome.sent[channel.name] = to_send
    if dry_run:
        return
    entries = [(key, _kind(key), CLEARED, None) for key in cleared]
    if mark_known:
        entries += [(key, m.kind, KNOWN, m.text) for m in to_send for key in m.keys]
    elif to_send:
        problem = post(channel, payload(channel, label, to_send), timeout_s, transport)
        if problem is None:
            entries += [(key, m.kind, SENT, m.text) for m in to_send for key in m.keys]
        else:
            outcome.undelivered[channel.name] = (len(to_send), problem)
    if entries and client is not None:
        record(client, channel.name, entries)


def _kind(key: str) -> str:
    return key.split(":", 1)[0]


def run_with_alerts(options: RunOptions, *, dry_run: bool = False,
                    transport: Optional[httpx.BaseTransport] = None) -> tuple[RunSummary, AlertOutcome]:
    """A run, then its alerts: what is new after a good run, the failure after a failed one (then re-raised).

    Alerting never changes the run's outcome: its own failures are lines in the outcome, logged as warnings.
    """
    try:
        summary = run_extraction(options)
    except (GatehouseError, ConsoleError) as err:
        _log(_alert_safely(options, dry_run, transport, run_error=str(err)))
        raise
    return summary, _alert_safely(options, dry_run, transport)


def run_projects_with_alerts(options: RunOptions, projects: list[str], *, dry_run: bool = False,
                             transport: Optional[httpx.BaseTransport] = None) -> tuple[list[ProjectOutcome], AlertOutcome]:
    """Several projects, then their alerts: what is new in the projects that loaded, and each failed project."""
    outcomes = run_projects(options, projects)
    errors = {outcome.project: outcome.error for outcome in outcomes if outcome.error}
    if len(errors) == len(outcomes):
        # nothing loaded: the views show the last good loads, only the failures are news
        return outcomes, _alert_safely(options, dry_run, transport, run_error="; ".join(
            f"{project}: {error}" for project, error in errors.items()))
    return outcomes, _alert_safely(options, dry_run, transport, project_errors=errors)


def _alert_safely(options: RunOptions, dry_run: bool, transport: Any, run_error: Optional[str] = None,
                  project_errors: Optional[Mapping[str, str]] = None) -> AlertOutcome:
    try:
        return send_alerts(options.destination, dry_run=dry_run, run_error=run_error, after_run=True,
                           timeout_s=options.lock_timeout_s, transport=transport, project_errors=project_errors)
    except Exception as err:  # noqa: BLE001 - alerting must never fail the load; the details go to the debug log
        log.debug("alerting failed", exc_info=True)
        return AlertOutcome(problems=[f"not sent: {redact(str(err).splitlines()[0] if str(err) else type(err).__name__)}"])


def _log(outcome: AlertOutcome) -> None:
    for line in outcome.lines():
        log.warning("%s", line)
