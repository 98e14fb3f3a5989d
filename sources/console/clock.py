"""The service's clock: read from its answers (`Date`), estimated before the first answer from the
offset the last run measured, the local clock only where neither is known."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from gatehouse.sources.console.client import ConsoleClient


def estimated_service_now(clock_offset_s: float) -> datetime:
    """The service's clock before any answer of this run: the local clock moved by the offset last measured."""
    return utc_now() + timedelta(seconds=clock_offset_s)


def clock_offset_s(service_time: datetime) -> float:
    """How far the service's clock is ahead of the local one, for `estimated_service_now` next run."""
    return (service_time - utc_now()).total_seconds()


def utc_now() -> datetime:
    return datetime.now(UTC)


def service_today(client: ConsoleClient) -> date:
    """Today by the service's clock (its `Date` header), so a skewed local clock changes nothing."""
    return (client.server_time or utc_now()).astimezone(UTC).date()
