"""What an alert can be about: conditions read from the analysis views, each with a stable key.

A condition is a fact that holds now (an experiment has a sample-ratio mismatch); its key names it
across runs, so a ledger can tell a condition that is new from one a person was already told about.
The thresholds are the views' own (`analytics.view_parameters`): an alert says what the views say.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gatehouse.pipelines.models.build import DEFAULT_PROJECT
from gatehouse.pipelines.untrusted import visible
from gatehouse.pipelines.warehouse.reader import Reader

SRM = "srm"
STALLED = "stalled"
DIP = "dip"
RUNNING_LONG = "running_long"
INGESTION_FAILED = "ingestion_failed"
STALE_GATE = "stale_gate"
RUN_FAILED = "run_failed"
# The kinds read from the views; a failed run is known only to the process that ran it.
VIEW_KINDS = (SRM, STALLED, DIP, RUNNING_LONG, INGESTION_FAILED, STALE_GATE)
# Gates listed per owner in one message; the rest are counted (analytics.stale_gates_by_owner lists all).
GATES_PER_MESSAGE = 10


@dataclass(frozen=True)
class Condition:
    kind: str
    key: str
    text: str
    # Conditions of one kind, project and group make one message (stale gates: one message per owner).
    group: str | None = None
    project: str = DEFAULT_PROJECT

    def __post_init__(self) -> None:
        # Names console users typed go out on one line each, their control characters shown as escapes (Slack's
        # own escaping is the channel's: delivery.py)
        object.__setattr__(self, "text", visible(self.text))
        if self.group is not None:
            object.__setattr__(self, "group", visible(self.group))


@dataclass(frozen=True)
class Message:
    kind: str
    text: str
    keys: tuple[str, ...]


def current_conditions(reader: Reader) -> list[Condition]:
    """Every condition the views show now, in a stable order."""
    return [
        *srm_conditions(reader),
        *experiment_conditions(reader),
        *ingestion_conditions(reader),
        *stale_gate_conditions(reader),
    ]


# The experiment checks are experiment_health's verdicts; an experiment no longer followed has none (its checks say
# 'unfollowed'): its series is no longer read, so nothing about it is news.
def srm_conditions(reader: Reader) -> list[Condition]:
    rows = reader.rows(
        """
        select srm.project, srm.experiment_id, srm.p_value, srm.p_value_threshold, srm.total_exposures,
               srm.most_deviating_group_name, srm.most_deviating_group_id, srm.most_deviating_observed_share,
               srm.most_deviating_expected_share
        from analytics.experiment_health as health
        inner join analytics.exposure_srm as srm
            on srm.project = health.project and srm.experiment_id = health.experiment_id
        where health.srm_check = 'mismatch'
        order by srm.project, srm.experiment_id
        """
    )
    return [
        Condition(
            SRM,
            _key(SRM, project, experiment_id),
            f"{_in(project)}Sample-ratio mismatch in experiment {experiment_id}: p = {p_value:.1e} (below {threshold:g}) over"
            f" {total:,} exposures; group {group_name or group_id} has {observed:.1%} of them, {expected:.1%} expected.",
        )
        for project, experiment_id, p_value, threshold, total, group_name, group_id, observed, expected in rows
    ]


@dataclass(frozen=True)
class ExperimentCheck:
    """An experiment_health verdict an alert tells of: each experiment whose `verdict` column says `failing` is one
    condition, `Experiment <id> <says(*columns)>`."""

    kind: str
    verdict: str
    failing: str
    columns: tuple[str, ...]
    says: Callable[..., str]
    # one condition a day (the first of `columns`): the next one is news again, the same one is not told twice
    per_day: bool = False


def _stalled(days: int, last_growth: object, total: int | None) -> str:
    return f"has stalled: no new exposures for {days} days (last growth {_day(last_growth)}, {total or 0:,} exposures in all)."


def _dipped(day: object, new: int, baseline: int) -> str:
    return f"dipped on {_day(day)}: {new:,} new exposures, against at least {baseline:,} on each of the 7 days before."


def _long(days: int, limit: int, total: int | None) -> str:
    return f"has run {days} days, longer than {limit} ({total or 0:,} exposures): decide it or end it."


# kind, verdict column, its failing value, the columns the message reads, the message (and for a dip: one a day)
EXPERIMENT_CHECKS = (
    ExperimentCheck(STALLED, "stall_check", "stalled", ("days_without_growth", "last_growth_date", "total_exposures"), _stalled),
    ExperimentCheck(DIP, "dip_check", "dip", ("checked_through_date", "dip_exposures", "dip_baseline_exposures"), _dipped, True),
    ExperimentCheck(
        RUNNING_LONG, "duration_check", "running long", ("days_running", "max_running_days", "total_exposures"), _long
    ),
)


def experiment_conditions(reader: Reader) -> list[Condition]:
    # experiment_health is read once for every check: each read computed the whole chain of views under it again.
    columns = list(dict.fromkeys(column for check in EXPERIMENT_CHECKS for column in (check.verdict, *check.columns)))
    failing = " or ".join(f"{check.verdict} = '{check.failing}'" for check in EXPERIMENT_CHECKS)
    rows = reader.rows(
        f"""
        select project, experiment_id, {", ".join(columns)}
        from analytics.experiment_health
        where {failing}
        order by project, experiment_id
        """
    )
    read = [(project, experiment_id, dict(zip(columns, found, strict=True))) for project, experiment_id, *found in rows]
    conditions = []
    for check in EXPERIMENT_CHECKS:
        for project, experiment_id, row in read:
            if row[check.verdict] != check.failing:
                continue
            values = [row[column] for column in check.columns]
            name = f"{experiment_id}:{_day(values[0])}" if check.per_day else experiment_id
            text = f"{_in(project)}Experiment {experiment_id} {check.says(*values)}"
            conditions.append(Condition(check.kind, _key(check.kind, project, name), text))
    return conditions


def ingestion_conditions(reader: Reader) -> list[Condition]:
    rows = reader.rows(
        """
        select project, source_name, run_id, enqueued_at, latest_source_status
        from analytics.ingestion_source_health
        where outcome = 'failed'
        order by project, source_name, enqueued_at, run_id
        """
    )
    return [
        Condition(
            INGESTION_FAILED,
            _key(INGESTION_FAILED, project, f"{run_id}:{source}"),
            f"{_in(project)}Ingestion source {source} failed in run {run_id} (enqueued {_minute(enqueued)}, last status"
            f" {status}).",
        )
        for project, source, run_id, enqueued, status in rows
    ]


def stale_gate_conditions(reader: Reader) -> list[Condition]:
    # The one judgement, gate_lifecycle's stage: a gate on the worklist is the news, but 'approaching' is a warning
    # the reports show, not yet something to do.
    rows = reader.rows(
        """
        select project, gate_id, coalesce(owner_name, '(no owner)'), owner_email, is_server_key_owner, contact_name,
               stage, type_reason, recommended_action, code_owners
        from analytics.stale_gates
        where stage in ('ready: remove from code', 'ready: archive in the console', 'needs a person', 'removed from code')
        order by project, gate_id
        """
    )
    return [
        Condition(
            STALE_GATE,
            _key(STALE_GATE, project, gate_id),
            f"{gate_id} ({stage}, {reason}): {action}"
            + (f"; ask {contact}" if server_key and contact else "")
            + (f"; code owners {code_owners}" if code_owners else ""),
            group=_owner(owner_name, owner_email, server_key),
            project=project,
        )
        for project, gate_id, owner_name, owner_email, server_key, contact, stage, reason, action, code_owners in rows
    ]


def _owner(name: str, email: str | None, server_key: bool) -> str:
    # A server key is no one to write to: its gates make one message, each naming who last changed it.
    if server_key:
        return "a server key, not a person"
    return f"{name} <{email}>" if email else name


def failed_run_condition(error: str, label: str, project: str = DEFAULT_PROJECT) -> Condition:
    # One key for every failure (of a project): a person hears of the first, and again only after a run has succeeded.
    key = RUN_FAILED if project == DEFAULT_PROJECT else f"{RUN_FAILED}:{project}"
    return Condition(RUN_FAILED, key, f"{_in(project)}gatehouse run failed on {label}: {error}")


def _key(kind: str, project: str, name: str) -> str:
    # The single console's keys are those it had before there were projects: its ledger stays valid.
    return f"{kind}:{name}" if project == DEFAULT_PROJECT else f"{kind}:{project}:{name}"


def _in(project: str) -> str:
    """The project a message is about, first; nothing for the single console."""
    return "" if project == DEFAULT_PROJECT else f"[{project}] "


def messages(conditions: list[Condition]) -> list[Message]:
    """One message per condition, except stale gates: one per owner of a project, the gates listed, the message
    starting with its project when there are several (an owner is an owner in one project)."""
    out: list[Message] = []
    owners: dict[tuple[str, str], list[Condition]] = {}
    for condition in conditions:
        if condition.kind == STALE_GATE:
            owners.setdefault((condition.project, condition.group or "(no owner)"), []).append(condition)
        else:
            out.append(Message(condition.kind, condition.text, (condition.key,)))
    for (project, owner), gates in sorted(owners.items()):
        listed = [f"  - {gate.text}" for gate in gates[:GATES_PER_MESSAGE]]
        if len(gates) > GATES_PER_MESSAGE:
            listed.append(f"  - and {len(gates) - GATES_PER_MESSAGE} more (analytics.stale_gates)")
        noun = "gate" if len(gates) == 1 else "gates"
        first = f"{_in(project)}{len(gates)} {noun} to clean up, owner {owner}:"
        out.append(Message(STALE_GATE, "\n".join([first, *listed]), tuple(gate.key for gate in gates)))
    return out


def _day(value: object) -> str:
    return f"{value:%Y-%m-%d}" if hasattr(value, "strftime") else "never"


def _minute(value: object) -> str:
    return f"{value:%Y-%m-%d %H:%M} UTC" if hasattr(value, "strftime") else "unknown"
