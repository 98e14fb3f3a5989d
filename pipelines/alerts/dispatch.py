"""One alerting: the conditions now, what each channel has not been told, the POSTs, the ledger.

`send_alerts` is what `gatehouse alerts`, the Dagster definitions and the Airflow DAG call; `alert_after_run`,
the last step of a run with alerts (`gatehouse run --alerts`). Nothing in it fails a load: a channel that fails is
a line in the outcome, and a condition it did not take stays unsent, to be sent by the next alerting.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

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
from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.warehouse import datasets
from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.pipelines.warehouse.lock import lock_timeout
from gatehouse.pipelines.warehouse.reader import Reader
from gatehouse.pipelines.wording import counted
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
                out.append(
                    f"alerts: {counted(told, 'condition')} marked known for {channel}, none sent;"
                    " from now on only what is new is sent"
                )
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
    run_error: str | None = None,
    after_run: bool = False,
    timeout_s: float | None = None,
    transport: httpx.BaseTransport | None = None,
    project_errors: Mapping[str, str] | None = None,
    mark_known: bool = False,
    ran: Sequence[str] | None = None,
) -> AlertOutcome:
    """Sends each channel the conditions it has not been told about, and records them.

    `run_error`: the one line of a run that failed (only that is sent: the views still show the last good
    load). `after_run`: called by a run, so its outcome is known (a success clears a failure, and the next
    failure is news again). `dry_run`: the messages are returned, nothing is sent or recorded.
    `project_errors`: after a run of several projects, each failed project's line (sent beside what the
    views show of the projects that loaded). `mark_known`: every condition that holds now is recorded as told,
    and nothing is sent: alerting starts quietly, and the next alerting sends only what is new. `ran`: the projects
    a run of several ran (`--project web`: web alone); only their failures are cleared by it, and when every one of
    them failed (no `project_errors` beside a load), each failure is told under its project's key, the views unread.
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
    failed = [
        failed_run_condition(redact(error), destination.for_project(project).label(), project)
        for project, error in sorted((project_errors or {}).items())
    ]
    # every project of a run of several failed: nothing new to read in the views, each failure under its own key
    nothing_loaded = ran is not None and bool(ran) and set(ran) <= set(project_errors or {})
    views_read = run_error is None and not nothing_loaded
    if run_error is not None:
        found = [failed_run_condition(redact(run_error), destination.label())]
        evaluated = {kinds.RUN_FAILED}
    elif nothing_loaded:
        found, evaluated = failed, {kinds.RUN_FAILED}
    else:
        datasets.check_loaded(destination, timeout_s)
        found = []
        evaluated = set(kinds.VIEW_KINDS) | ({kinds.RUN_FAILED} if after_run else set())
    try:
        with destination.lock.exclusive(timeout_s), destination.sql_client(timeout_s) as client:
            if views_read:
                found = current_conditions(Reader(client)) + failed
            if not dry_run:
                ensure_ledger(client)
            for channel in channels:
                told = set() if channel.url == "" else open_keys(client, channel.name)
                # a run of some projects clears the failures of those alone (`run_failed:web`), not another's
                told_here = told if ran is None else {key for key in told if not _failure_of_another(key, ran)}
                _alert_channel(
                    client,
                    channel,
                    found,
                    evaluated,
                    told_here,
                    destination.label(),
                    post_timeout,
                    dry_run,
                    transport,
                    outcome,
                    mark_known,
                )
    except (GatehouseError, ConsoleError) as err:
        if views_read:
            raise
        # The destination may be what failed: a failed run is told without the ledger rather than not at all.
        outcome.problems.append(f"the alert ledger could not be read ({err}): the failed run is sent without it")
        for channel in channels:
            _alert_channel(None, channel, found, evaluated, set(), destination.label(), post_timeout, dry_run, transport, outcome)
    return outcome


def _alert_channel(
    client: Any,
    channel: Channel,
    found: list[Condition],
    evaluated: set[str],
    told: set[str],
    label: str,
    timeout_s: float,
    dry_run: bool,
    transport: Any,
    outcome: AlertOutcome,
    mark_known: bool = False,
) -> None:
    new = [condition for condition in found if condition.key not in told]
    now = {condition.key for condition in found}
    cleared = sorted(key for key in told if _kind(key) in evaluated and key not in now)
    to_send = [Message(m.kind, redact(m.text), m.keys) for m in messages(new)]
    outcome.sent[channel.name] = to_send
    if dry_run:
        return
    entries: list[tuple[str, str, str, str | None]] = [(key, _kind(key), CLEARED, None) for key in cleared]
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


def _failure_of_another(key: str, ran: Sequence[str]) -> bool:
    """Whether `key` is the failure of a project a run of `ran` did not run (`run_failed:mobile` after `--project web`)."""
    kind, _, project = key.partition(":")
    return kind == kinds.RUN_FAILED and bool(project) and project not in ran


def alert_after_run(
    destination: Destination,
    timeout_s: float | None,
    *,
    run_error: str | None = None,
    project_errors: Mapping[str, str] | None = None,
    transport: httpx.BaseTransport | None = None,
    ran: Sequence[str] | None = None,
) -> AlertOutcome:
    """The step after a run: what is new after a good run, the failure after a failed one (`run_error`), each
    failed project of several (`project_errors`, of the projects `ran`). It never raises: alerting never changes the
    run's outcome, and its own failures are lines in the outcome."""
    try:
        return send_alerts(
            destination,
            run_error=run_error,
            after_run=True,
            timeout_s=timeout_s,
            transport=transport,
            project_errors=project_errors,
            ran=ran,
        )
    except Exception as err:  # noqa: BLE001 - alerting must never fail the load; the details go to the debug log
        log.debug("alerting failed", exc_info=True)
        return AlertOutcome(problems=[f"not sent: {redact(str(err).splitlines()[0] if str(err) else type(err).__name__)}"])


def log_outcome(outcome: AlertOutcome) -> None:
    """An alerting's lines as warnings: after a failed run, where the run's own error is what is printed."""
    for line in outcome.lines():
        log.warning("%s", line)
