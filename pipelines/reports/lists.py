"""The lists a report opens with, in the one order the HTML report and the terminal summary share.

Each function takes the frames the notebook reads from the analysis views and returns the list in its
order; each `*_ORDER` says that order in words, and both the report and the summary print it.
"""

from __future__ import annotations

from typing import Any

from gatehouse.pipelines.reports.format import missing
from gatehouse.pipelines.untrusted import for_html

NO_OWNER = "(no owner)"
SERVER_KEYS = "(server keys)"

WORKLIST_ORDER = (
    "grouped by owner, the owner of the most urgent gate first; within an owner by stage (ready to"
    " remove first), then marked stale first, then the longest untouched"
)
EXPERIMENT_ORDER = (
    "sample-ratio mismatch first (smallest p first), then stalled, running, late, concluded and no"
    " longer followed, the most exposed first"
)
SOURCE_ORDER = "highest failure rate first"
# Gates shown per owner in the worklist (then "…and N more for this owner"): one owner with a thousand stale
# gates would otherwise fill the list and hide every other owner.
WORKLIST_PER_OWNER = 3

# The stages of `gate_lifecycle` on the worklist, in its order, as the summary and the report count them.
STAGE_WORDS = (
    ("ready: remove from code", "ready to remove from the code"),
    ("ready: archive in the console", "ready to archive in the console"),
    ("needs a person", "need a person"),
    ("removed from code", "removed from the code, still checked"),
    ("approaching", "approaching"),
    ("in use", "in use"),
)

STATUS_RANK = {"SRM": 0, "stalled": 1, "running": 2, "late": 3, "concluded": 4, "unfollowed": 5}
# `exposure_growth.status` of an experiment gatehouse no longer reads (its id left `experiment_ids` and no holdout
# names it): its series ends at the last run that followed it, which tells nothing of whether it concluded or stalled
UNFOLLOWED = "unfollowed"
# what follows an experiment again, as a user sets it
FOLLOW_SETTING = "sources.console.experiment_ids (SOURCES__CONSOLE__EXPERIMENT_IDS)"

# what the worklist's reader does about the service's reasons, in a few words
REASONS = {
    "STALE_PROBABLY_LAUNCHED": "launched",
    "STALE_PROBABLY_UNLAUNCHED": "never launched",
    "STALE_PROBABLY_FORGOTTEN": "forgotten rollout",
    "STALE_PROBABLY_DEAD_CHECK": "no checks seen",
    "STALE_NO_RULES": "no rules",
    "STALE_ALL_TRUE": "always true",
    "STALE_ALL_FALSE": "always false",
    "STALE_EMPTY_CHECKS": "checks return nothing",
}

EXPERIMENT_NAMES_SQL = """
select experiments.project,
       experiments.experiment_id,
       string_agg(distinct holdouts.holdout_name, ', ') as holdout_names
from analytics.stg_holdout_experiments as experiments
join analytics.stg_holdouts as holdouts
    on holdouts.project = experiments.project
    and holdouts.holdout_row_id = experiments.holdout_row_id
group by experiments.project, experiments.experiment_id
"""
# With several projects every list is grouped by project first, the projects in name order (each view
# carries `project`; the single console's is `default`, and one project shows as before).
PROJECT_ORDER = "by project, then "


def several_projects(frame: Any) -> bool:
    """Whether the rows come from more than one project (then the lists say whose each row is)."""
    return "project" in frame and frame["project"].nunique() > 1


def by_project(order: str, frame: Any) -> str:
    """A list's order in words, `by project, then ...` when its rows come from several projects."""
    return PROJECT_ORDER + order if several_projects(frame) else order


def stage_counts(worklist: Any) -> str:
    """`3 ready to remove from the code, 1 need a person`: the worklist's gates by stage, in the stages' order."""
    counts = worklist["stage"].value_counts() if len(worklist) else {}
    said = [f"{int(counts[stage])} {words}" for stage, words in STAGE_WORDS if counts.get(stage, 0)]
    return ", ".join(said) or "none"


def stale_worklist(stale: Any) -> Any:
    """`analytics.stale_gates` in WORKLIST_ORDER, with `owner` (a name, else the key) and `reason` (in words)."""
    frame = stale.copy()
    frame["owner"] = frame["owner_name"].fillna(frame["owner_email"]).fillna(NO_OWNER)
    # an owner is someone in one project: the same person's gates in two projects are two groups
    frame["owner_key"] = frame["project"] + "/" + frame["owner_id"].fillna(frame["owner"])
    # server keys are no one to ask: their gates make one group, headed by the people who changed or made them
    server_key = frame["is_server_key_owner"].fillna(False).astype(bool)
    frame["owner"] = frame["owner"].where(~server_key, SERVER_KEYS)
    frame["owner_key"] = frame["owner_key"].where(~server_key, frame["project"] + "/" + SERVER_KEYS)
    frame["reason"] = frame["type_reason"].map(lambda reason: REASONS.get(reason, reason))
    frame = frame.sort_values(
        ["project", "stage_rank", "staleness_rank", "days_since_modified", "gate_id"],
        ascending=[True, True, True, False, True],
        na_position="last",
        kind="stable",
    )
    # an owner's place is that of their most urgent gate, the first of theirs in the order above
    frame["owner_place"] = frame.groupby("owner_key", sort=False).cumcount().eq(0).cumsum()
    frame["owner_place"] = frame.groupby("owner_key")["owner_place"].transform("min")
    frame["owner_gate_count"] = frame.groupby("owner_key")["gate_id"].transform("count")
    frame["owner_contacts"] = frame.groupby("owner_key")["contact_name"].transform(_contacts).where(server_key, "")
    return frame.sort_values("owner_place", kind="stable").reset_index(drop=True)


def _contacts(names: Any) -> str:
    """`Ana Ruiz (12), Li Wei (3)`: the people to ask about a group's gates, most gates first."""
    counts = names.dropna().value_counts()
    counts = counts.sort_index(kind="stable").sort_values(ascending=False, kind="stable")
    return ", ".join(f"{name} ({count})" for name, count in counts.items())


def reviewed_experiments(growth: Any, srm: Any, names: Any) -> Any:
    """`analytics.exposure_growth` with its SRM test and holdout names, `review_status` set, in EXPERIMENT_ORDER."""
    frame = growth.merge(
        srm[
            [
                "project",
                "experiment_id",
                "p_value",
                "srm_detected",
                "most_deviating_group_name",
                "most_deviating_observed_share",
                "most_deviating_expected_share",
            ]
        ],
        on=["project", "experiment_id"],
        how="left",
    ).merge(names, on=["project", "experiment_id"], how="left")
    frame["srm_detected"] = frame["srm_detected"].fillna(False).astype(bool)
    # an experiment no longer followed says so even with a mismatch: that is of a series no longer read
    frame["review_status"] = frame["status"].where(~frame["srm_detected"] | frame["status"].eq(UNFOLLOWED), "SRM")
    frame["status_rank"] = frame["review_status"].map(STATUS_RANK).fillna(len(STATUS_RANK))
    frame["srm_order"] = frame["p_value"].where(frame["srm_detected"])
    frame = frame.sort_values(
        ["project", "status_rank", "srm_order", "days_without_growth", "total_exposures", "experiment_id"],
        ascending=[True, True, True, False, False, True],
        na_position="last",
        kind="stable",
    )
    return frame.reset_index(drop=True)


def target_text(days_to_target: Any) -> str:
    """`reached`, `in 9 d` or empty (no pace to project from)."""
    if missing(days_to_target):
        return ""
    return "reached" if int(days_to_target) == 0 else f"in {int(days_to_target)} d"


def pace_text(per_day: Any, through: Any, status: str) -> str:
    """`476`, or `476 (its last week, to 2026-10-10)` for a concluded experiment or one no longer followed: a pace
    that is not now's says so."""
    if missing(per_day):
        return ""
    text = f"{per_day:,.0f}"
    if status in ("concluded", UNFOLLOWED) and not missing(through):
        text += f" (its last week, to {through:%Y-%m-%d})"
    return text


def failing_sources(by_source: Any) -> Any:
    """`analytics.ingestion_failure_rate_by_source` rows with a failed run, in SOURCE_ORDER."""
    failing = by_source[by_source["failed_count"] > 0]
    return failing.sort_values(
        ["project", "failure_rate", "failed_count", "source_name"], ascending=[True, False, False, True], kind="stable"
    ).reset_index(drop=True)


def unfollowed_text(experiment: Any) -> str:
    """`exp_1 (its exposures end at 2026-11-02, the last run that followed it)`: an experiment no longer followed,
    from its `exposure_growth` row (the series' last day when no run recorded following it)."""
    if not missing(experiment.last_followed_date):
        return (
            f"{experiment.experiment_id} (its exposures end at {experiment.last_followed_date:%Y-%m-%d},"
            " the last run that followed it)"
        )
    return f"{experiment.experiment_id} (its exposures end at {experiment.last_date:%Y-%m-%d})"


# Experiments no longer followed named in the report's paragraph (then "and N more")
UNFOLLOWED_NAMED = 20


def unfollowed_paragraph(unfollowed: Any, several: bool) -> str:
    """The report's paragraph naming the experiments no longer followed, as HTML: their ids are the console's (a
    holdout names them), written as text (Markdown would pass any markup in them through to the page)."""
    named = ", ".join(
        for_html((f"{experiment.project}: " if several else "") + unfollowed_text(experiment))
        for experiment in unfollowed.head(UNFOLLOWED_NAMED).itertuples()
    )
    more = f", and {len(unfollowed) - UNFOLLOWED_NAMED} more" if len(unfollowed) > UNFOLLOWED_NAMED else ""
    return (
        f"<p><strong>{len(unfollowed)} no longer followed</strong>, neither concluded nor stalled: {named}{more}."
        " Add an id to <code>experiment_ids</code> (<code>SOURCES__CONSOLE__EXPERIMENT_IDS</code>) to follow it again.</p>"
    )
