"""Cumulative exposures: one experiment's series as rows, the day the next run reads from, and when a
series has concluded."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any

import pyarrow as pa

from gatehouse.sources.console.columns import NOT_64_BITS, NOT_FINITE, fits_64_bits, leave_null, null_unfit_integers
from gatehouse.sources.console.counts import ExtractionCounts
from gatehouse.sources.console.settings import DEFAULT_LATE_EXPOSURE_DAYS
from gatehouse.sources.console.unchanged import content_digest

# The rows of `cumulative_exposures`, as the Arrow table the resource yields.
EXPOSURE_ROW_SCHEMA = pa.schema(
    [
        ("experiment_id", pa.string()),
        ("group_id", pa.string()),
        ("group_name", pa.string()),
        ("date", pa.string()),
        ("exposures", pa.int64()),
    ]
)


def exposure_rows(
    experiment_id: str, series: Sequence[dict[str, Any]], from_day: str | None
) -> tuple[list[dict], str | None, str | None]:
    """Flattens one experiment's series to rows on or after `from_day`; returns them, the day the next
    run reads from, and the newest day of any group.

    The next run reads from the newest day of the group that lags most (never before `from_day`): that
    day is loaded again because the service still counts exposures into it, and a group whose days arrive
    later than the others' loses none. A day a group lists twice is one row, with the larger count (counts
    are cumulative); a count sent as a fraction or as text is loaded as the whole number it stands for.
    """
    rows, next_from, newest = _series_rows(experiment_id, series, from_day)
    return [row for row in rows if from_day is None or row["date"] >= from_day], next_from, newest


def changed_series_rows(
    experiment_id: str, series: Sequence[dict[str, Any]], from_day: str | None, earlier_digest: str | None
) -> tuple[list[dict], str | None, str | None, str]:
    """As `exposure_rows`, for a series that differs from the one last loaded, with the days before `from_day`
    too when they differ from those last loaded (`earlier_digest`, the `earlier_days_digest` recorded then, None
    when none was): the service re-stated them, and every day of the series is loaded again (the merge on
    experiment, group and day replaces each). Returns the rows, the day the next run reads from, the newest day
    and the digest of the days before that next day, to record with the rows.
    """
    rows, next_from, newest = _series_rows(experiment_id, series, from_day)
    if from_day is not None and earlier_days_digest(rows, from_day) == earlier_digest:
        kept = [row for row in rows if row["date"] >= from_day]
    else:
        kept = rows
    return kept, next_from, newest, earlier_days_digest(rows, next_from)


def earlier_days_digest(rows: Sequence[dict[str, Any]], before_day: str | None) -> str:
    """The digest of the rows of the days before `before_day`: those a run no longer loads unless they change."""
    return content_digest(
        sorted(
            (row["group_id"], row["group_name"], row["date"], row["exposures"])
            for row in rows
            if before_day is not None and row["date"] < before_day
        )
    )


def _series_rows(
    experiment_id: str, series: Sequence[dict[str, Any]], from_day: str | None
) -> tuple[list[dict], str | None, str | None]:
    """Every day of the series as rows (one a group and day), the day the next run reads from and the newest day."""
    points: dict[tuple[str, str], dict[str, Any]] = {}
    group_newest: list[str] = []
    newest: str | None = None
    for group in series:
        days = [point for point in group.get("results") or [] if isinstance(point, dict) and point.get("date")]
        if not days:
            continue
        group_last = max(point["date"] for point in days)
        group_newest.append(group_last)
        newest = group_last if newest is None or group_last > newest else newest
        for point in days:
            day = point["date"]
            row = {
                "experiment_id": experiment_id,
                "group_id": group["groupID"],
                "group_name": group.get("groupName"),
                "date": day,
                "exposures": exposure_count(point.get("exposures")),
            }
            key = (row["group_id"], day)
            kept = points.get(key)
            if kept is None or (row["exposures"] or 0) > (kept["exposures"] or 0):
                points[key] = row
    if not group_newest:
        return [], from_day, from_day
    next_from = min(group_newest)
    if from_day is not None and next_from < from_day:
        next_from = from_day
    return list(points.values()), next_from, newest


def exposure_count(value: Any) -> int | None:
    """An exposure count as an integer: the contract's type, where the OpenAPI allows any number. None for what is
    no number, and for a number beyond a 64-bit integer (the column's type): `loadable_series` says each."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if not isinstance(value, (int, float)):
        return None
    count = round(value)
    return count if fits_64_bits(count) else None


def loadable_series(counts: ExtractionCounts, experiment_id: str, series: Any) -> Any:
    """One experiment's series as it can be loaded, in place: each day's count that `exposure_count` cannot load is
    null, and said with its experiment, group and day (columns.leave_null); then any other integer beyond 64 bits
    (columns.null_unfit_integers). Before anything digests the series: orjson writes no such integer."""
    for group in series if isinstance(series, list) else ():
        if not isinstance(group, dict):
            continue
        for point in group.get("results") or []:
            if not isinstance(point, dict) or not point.get("date"):
                continue
            count = point.get("exposures")
            if count is not None and exposure_count(count) is None:
                leave_null(
                    counts,
                    "cumulative_exposures",
                    experiment_id,
                    f"exposures of group {group.get('groupID')} on {point['date']}",
                    count,
                    _why_no_count(count),
                )
                point["exposures"] = None
    return null_unfit_integers(counts, "cumulative_exposures", experiment_id, series)


def _why_no_count(value: Any) -> str:
    """Why `exposure_count` read no count from `value`: too big, infinite, or no number at all."""
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return "is not a number"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return "is not a number"
    return NOT_64_BITS if isinstance(value, int) or math.isfinite(value) else NOT_FINITE


def has_concluded(newest_day: str, today: date, late_days: int = DEFAULT_LATE_EXPOSURE_DAYS) -> bool:
    """A series silent for more than `late_days` has concluded: the experiment stopped.

    One that lags less is only late (the service's daily computation has not caught up yet): it is
    requested on every run, so the days it catches up load at once.
    """
    return date.fromisoformat(newest_day) < today - timedelta(days=late_days)
