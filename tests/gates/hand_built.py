"""The hand-built console's snoozes (tests/views/console_dataset.py): every one ended or run out before its as_of
(2026-11-20), so the views that leave snoozed gates out show what they show without them; each snooze view has rows."""

from __future__ import annotations

from datetime import UTC, date, datetime

import dlt

from gatehouse.sources.gate_snoozes import gate_snoozes_source


def _snooze(snooze_id: str, project: str | None, gate_id: str, until: date, at: datetime, reason: str) -> dict:
    return {
        "snooze_id": snooze_id,
        "project": project,
        "gate_id": gate_id,
        "snoozed_until": until,
        "reason": reason,
        "snoozed_at": at,
        "snoozed_by": "ops",
    }


HAND_BUILT_SNOOZES = [
    # every project's, ran out on 2026-10-01
    _snooze(
        "snooze_1",
        None,
        "old_checkout",
        date(2026, 10, 1),
        datetime(2026, 9, 1, 8, tzinfo=UTC),
        "waits for the Q3 analysis",
    ),
    # project default's, ended by hand the next day
    _snooze(
        "snooze_2",
        "default",
        "search_v2",
        date(2026, 12, 31),
        datetime(2026, 11, 10, 8, tzinfo=UTC),
        "rollout resumes after the freeze",
    ),
    _snooze("snooze_3", "default", "search_v2", date(2026, 11, 11), datetime(2026, 11, 11, 8, tzinfo=UTC), "ended by hand"),
]


def load_gate_snoozes(pipeline: dlt.Pipeline) -> None:
    pipeline.run(gate_snoozes_source(HAND_BUILT_SNOOZES))
