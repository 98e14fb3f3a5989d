"""When asking again is no longer needed: an ingestion run that settled (complete), one gone quiet, and the
re-check of what is quiet or concluded."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

# The statuses after which an ingestion run never changes again.
FINAL_RUN_STATUSES = frozenset({"pulse_complete"})


def parse_timestamp(value: str) -> datetime:
    """An ISO 8601 time as the service writes it (`2023-12-13T02:44:23.790Z`), any case, naive as UTC."""
    parsed = datetime.fromisoformat(value.strip().upper().replace("Z", "+00:00"))
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def run_status_since(run: dict[str, Any]) -> datetime | None:
    """When the run's latest status was reached: the newest runHistory entry (listed newest first)."""
    history = run.get("runHistory") or []
    stamps = [
        stamp for stamp in (readable_time(entry.get("statusTimestamp")) for entry in history if isinstance(entry, dict))
        if stamp is not None
    ]  # fmt: skip
    return max(stamps) if stamps else readable_time(run.get("lastUpdatedAt"))


def readable_time(value: Any) -> datetime | None:
    """`parse_timestamp`, or None for a value that is not a time: such a run never goes quiet by its age."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        return parse_timestamp(value)
    except ValueError:
        return None


def is_settled(run: dict[str, Any]) -> bool:
    """A run is settled, never to change again, only when it completed (`FINAL_RUN_STATUSES`).

    An error is not final: the service retries (download_error is followed by download_started), at times more
    than a day later, so a run in an error status is asked again like any other, less often once quiet.
    """
    return (run.get("latestStatus") or "") in FINAL_RUN_STATUSES


def has_gone_quiet(run: dict[str, Any], now: datetime, quiet_after: timedelta) -> bool:
    """Whether the run's status has not moved for `quiet_after` (a time that cannot be read never counts).

    Any status but a final one may still move (errors included), so such a run is only requested less often
    (`is_quiet`), never dropped.
    """
    since = run_status_since(run)
    return since is not None and now - since >= quiet_after


def is_quiet(concluded_on: str | None, today: date, recheck_days: int) -> bool:
    """True while a concluded experiment need not be requested: fewer than `recheck_days` since."""
    if concluded_on is None:
        return False
    return today < date.fromisoformat(concluded_on) + timedelta(days=recheck_days)
