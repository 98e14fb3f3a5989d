"""Which gates `gatehouse cleanup` may rewrite, and with which value: read from one view, `analytics.cleanup_decisions`.

The view decides (pipelines/models/marts/gates/cleanup_decisions.sql); this module only reads it and picks the
gates a command names. A gate id that several projects hold is decided only when every project that holds it
decides the same value: a repository's code is no one project's, and which project's flag it checks, the code does
not say.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.untrusted import for_terminal

DECISION_COLUMNS = (
    "project",
    "gate_id",
    "gate_name",
    "staleness",
    "type_reason",
    "type_reason_source",
    "gate_type",
    "status",
    "rollout_state",
    "checks_per_hour",
    "days_untouched",
    "contact_name",
    "cleanup_value",
    "decision",
)


@dataclass(frozen=True)
class GateDecision:
    """One gate of one project as `analytics.cleanup_decisions` has it."""

    project: str
    gate_id: str
    gate_name: str | None
    staleness: str
    type_reason: str | None
    type_reason_source: str | None
    gate_type: str | None
    status: str | None
    rollout_state: str | None
    checks_per_hour: float | None
    days_untouched: int | None
    contact_name: str | None
    cleanup_value: bool | None
    decision: str

    @property
    def is_decided(self) -> bool:
        return self.cleanup_value is not None


@dataclass(frozen=True)
class Choice:
    """What the command does with one gate id: its value, or why it is left to a person."""

    gate_id: str
    decisions: tuple[GateDecision, ...]  # every project's row for the id (none: not stale, or not loaded)
    value: bool | None
    reason: str


def read_decisions(reader: Any) -> list[GateDecision]:
    names = ", ".join(DECISION_COLUMNS)
    rows = reader.rows(f"select {names} from analytics.cleanup_decisions order by gate_id, project")
    return [GateDecision(**dict(zip(DECISION_COLUMNS, row))) for row in rows]


def read_referencing_repositories(reader: Any) -> dict[str, list[str]]:
    """gate id -> the repositories whose last scan found it, by name."""
    rows = reader.rows(
        "select distinct entity_id, repository from analytics.stg_code_references"
        " where entity_type = 'gate' order by entity_id, repository"
    )
    found: dict[str, list[str]] = {}
    for gate_id, repository in rows:
        found.setdefault(gate_id, []).append(repository)
    return found


def choose(
    decisions: Sequence[GateDecision], gate_ids: Sequence[str], every_decided: bool, projects: Sequence[str] = ()
) -> list[Choice]:
    """The named gates (and, with `every_decided`, every stale gate), each with its value or why it is left alone."""
    by_id: dict[str, list[GateDecision]] = {}
    for decision in decisions:
        if not projects or decision.project in projects:
            by_id.setdefault(decision.gate_id, []).append(decision)
    # --all: every stale gate, so the undecided ones are listed with their reasons too
    wanted = list(dict.fromkeys([*gate_ids, *(by_id if every_decided else ())]))
    return [_choice(gate_id, tuple(by_id.get(gate_id, ()))) for gate_id in wanted]


def check_known(gate_ids: Sequence[str], loaded: Sequence[str]) -> None:
    """A gate named that no project's console has ever listed: one line naming it (with the nearest loaded id), before
    anything is written. A loaded gate that is not stale is no error: it is left alone, and said so."""
    known = set(loaded)
    unknown = [gate_id for gate_id in gate_ids if gate_id not in known]
    if unknown:
        close = difflib.get_close_matches(unknown[0], sorted(known), n=1, cutoff=0.6)
        hint = f": did you mean {close[0]}?" if close else ""
        more = f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
        raise GatehouseError(f"no gate {for_terminal(unknown[0])} has been loaded{more}{hint}; nothing was written")


def check_projects(projects: Sequence[str], loaded: Sequence[str]) -> None:
    """A project named (`--project`) that no run has loaded: one line naming it, before anything is written (a typo
    would otherwise leave every gate out, as if none were stale)."""
    unknown = [project for project in projects if project not in loaded]
    if unknown:
        close = difflib.get_close_matches(unknown[0], sorted(loaded), n=1, cutoff=0.6)
        hint = f"did you mean {close[0]}?" if close else f"projects loaded: {', '.join(sorted(loaded)) or 'none'}"
        raise GatehouseError(f"no project {for_terminal(unknown[0])} has been loaded ({hint}); nothing was written")


def read_loaded_projects(reader: Any) -> list[str]:
    """Every project whose console's gates a run has loaded (`default`: the single console's)."""
    return [str(project) for (project,) in reader.rows("select distinct project from analytics.stg_gate_versions")]


def read_loaded_gate_ids(reader: Any) -> list[str]:
    """Every gate id any version of any project's console has held."""
    return [gate_id for (gate_id,) in reader.rows("select distinct gate_id from analytics.stg_gate_versions")]


def _choice(gate_id: str, rows: tuple[GateDecision, ...]) -> Choice:
    if not rows:
        return Choice(gate_id, rows, None, "not stale, or no such gate loaded")
    undecided = [row for row in rows if not row.is_decided]
    if undecided:
        row = undecided[0]
        where = f" (project {row.project})" if len(rows) > 1 else ""
        return Choice(gate_id, rows, None, f"{row.decision}{where}")
    values = {row.cleanup_value for row in rows}
    if len(values) > 1:
        said = ", ".join(f"{row.project} {str(row.cleanup_value).lower()}" for row in rows)
        return Choice(
            gate_id, rows, None, f"its projects decide differently ({said}): which one the code checks, it does not say"
        )
    return Choice(gate_id, rows, rows[0].cleanup_value, rows[0].decision)


def evidence_rows(choice: Choice, files: Mapping[str, str], other_repositories: Sequence[str]) -> list[tuple[str, str]]:
    """The evidence a commit message carries, as (what, value) rows; `files` maps each changed path to what was done."""
    rows: list[tuple[str, str]] = []
    for decision in choice.decisions:
        prefix = f"{decision.project}: " if len(choice.decisions) > 1 else ""
        reason = f"{decision.type_reason or '–'} ({decision.type_reason_source or 'unknown'})"
        checks = "never checked" if decision.checks_per_hour in (None, 0) else f"{decision.checks_per_hour:g}"
        rows += [
            (f"{prefix}console type and reason", f"{decision.gate_type or '–'}, {reason}"),
            (f"{prefix}status", decision.status or "–"),
            (f"{prefix}days untouched", "–" if decision.days_untouched is None else str(decision.days_untouched)),
            (f"{prefix}checks per hour", checks),
            (f"{prefix}rollout", decision.rollout_state or "–"),
        ]
    value = str(choice.value).lower()
    rows.append(("value chosen", f"{value}: {choice.reason}"))
    rows += [("file changed", f"{path}: {done}") for path, done in files.items()]
    rows.append(
        (
            "other repositories referencing it",
            ", ".join(other_repositories) if other_repositories else "none: no other repository has been scanned",
        )
    )
    return rows
