"""When asking again is no longer needed: an ingestion run that settled (complete, or an error that
stopped moving), one gone quiet, and the re-check of what is quiet or concluded."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from typing import Any

# The statuses after which an ingestion run never changes again.
FINAL_RUN_STATUSES = frozenset({"pulse_complete"})


def parse_timestamp(value: str) -> datetime:
    """An ISO 8601 time as the service writes it (`2023-12-13T02:44:23.790Z`), any case, naive as UTC."""
    parsed = datetime.fromisoformat(value.strip().upper().replace("Z", "+00:00"))
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=timezone.utc)


def run_status_since(run: dict[str, Any]) -> datetime | None:
    """When the run's latest status was reached: the newest runHistory entry (listed newest first)."""
    history = run.get("runHistory") or []
    stamps = [
        stamp for stamp in (readable_time(entry.get("statusTimestamp")) for entry in history if isinstance(entry, dict))
        if stamp is not None
    ]  # fmt: skip
    return max(stamps) if stamps else readable_time(run.get("lastUpdatedAt"))


def readable_time(value: Any) -> datetime | None:
    """`parse_timestamp`, or None for a value that is not a time: such a run is never settled by its age."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        return parse_timestamp(value)
    except ValueError:
        return None


def is_settled(run: dict[str, Any], now: datetime, settle_after: timedelta) -> bool:
    """A run is settled when it completed, or when an error status has not moved for `settle_after`.

    An error is not final (the service retries: download_error is followed by download_started),
    hence the waiting time rather than treating every error as the end.
    """
    status = run.get("latestStatus") or ""
    if status in FINAL_RUN_STATUSES:
        return True
    return status.endswith("_error") and has_gone_quiet(run, now, settle_after)


def has_gone_quiet(run: dict[str, Any], now: datetime, quiet_after: timedelta) -> bool:
    """Whether the run's status has not moved for `quiet_after` (a time that cannot be read never counts).

    An error status that quiet has settled (`is_settled`); any other may still move (nothing says a
    status other than pulse_complete is final), so such a run is only requested less often (`is_quiet`).
    """
    since = run_status_since(run)
    return since is not None and now - since >= quiet_after


def is_quiet(concluded_on: str | None, today: date, recheck_days: int) -> bool:
    """True while a concluded experiment need not be requested: fewer than `recheck_days` since."""
    if concluded_on is None:
        return False
    return today < date.fromisoformat(concluded_on) + timedelta(days=recheck_days)
