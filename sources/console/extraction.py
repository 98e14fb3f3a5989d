"""What the console source needs beside its resources: id discovery, progress, and the rules that
decide which rows and requests a run makes (exposure days, settled ingestion runs)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import Any, Iterable, Iterator, Sequence, TypeVar

from sources.console.client import ConsoleClient
from sources.console.errors import NotFoundError

T = TypeVar("T")

# The statuses after which an ingestion run never changes again.
FINAL_RUN_STATUSES = frozenset({"pulse_complete"})


@dataclass
class ResourceProgress:
    pages: int = 0
    items: int = 0


@dataclass
class SkippedId:
    table: str
    id: str
    reason: str


@dataclass
class ExtractionReport:
    """Counters a run shows while it goes and sums up at the end (thread-safe)."""

    resources: dict[str, ResourceProgress] = field(default_factory=dict)
    skipped: list[SkippedId] = field(default_factory=list)
    # Top-level fields the console sent per table this run: a field that stops coming is drift too.
    fields_seen: dict[str, set[str]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _client: Any = field(default=None, repr=False)

    def bind_client(self, client: ConsoleClient) -> None:
        """The source's client, so the caller can read its request counters and close it."""
        self._client = client

    def request_stats(self) -> dict[str, Any]:
        return self._client.stats.snapshot() if self._client is not None else {}

    def close(self) -> None:
        if self._client is not None:
            self._client.close()

    def add(self, resource: str, items: int, pages: int = 1) -> None:
        with self._lock:
            progress = self.resources.setdefault(resource, ResourceProgress())
            progress.pages += pages
            progress.items += items

    def add_fields(self, table: str, items: Sequence[dict[str, Any]]) -> None:
        keys = set().union(*(item.keys() for item in items)) if items else set()
        with self._lock:
            self.fields_seen.setdefault(table, set()).update(keys)

    def skip(self, table: str, id_: str, reason: str) -> None:
        with self._lock:
            self.skipped.append(SkippedId(table, id_, reason))

    def snapshot(self) -> dict[str, ResourceProgress]:
        with self._lock:
            return {name: ResourceProgress(p.pages, p.items) for name, p in self.resources.items()}


def batched(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Lists of `size` items (the last may be shorter), consuming `items` lazily."""
    batch: list[T] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def unique(ids: Iterable[str]) -> list[str]:
    """Ids in first-seen order without repeats (dict keeps insertion order)."""
    return list(dict.fromkeys(i for i in ids if i))


class Catalogue:
    """Ids discovered during one run, shared by the resources that find them and those that fan out.

    The list resources record the holdouts they reference; the holdouts transformer records the
    experiments. When an id resource runs before what feeds it (another extraction order, or a
    selection without the lists), it reads what is missing itself: the result never depends on
    order, only the request count does, and in dlt's `fifo` order nothing is read twice.
    """

    def __init__(self, client: ConsoleClient) -> None:
        self._client = client
        self._lock = threading.Lock()
        self._list_holdout_refs: dict[str, list[str]] = {}  # list name -> referenced holdout ids
        self._complete_lists: set[str] = set()
        self._holdout_experiments: dict[str, list[str]] = {}  # holdout id -> experiment ids
        self._holdouts_missing: set[str] = set()

    # -- recorded by the resources as they stream -------------------------------------------
    def record_list_page(self, list_name: str, page: Sequence[dict[str, Any]]) -> None:
        refs = [h for item in page for h in (item.get("holdoutIDs") or [])]
        with self._lock:
            self._list_holdout_refs.setdefault(list_name, []).extend(refs)

    def complete_list(self, list_name: str) -> None:
        with self._lock:
            self._complete_lists.add(list_name)
            self._list_holdout_refs[list_name] = unique(self._list_holdout_refs.get(list_name, []))

    def record_holdout(self, holdout: dict[str, Any]) -> None:
        with self._lock:
            self._holdout_experiments[holdout["id"]] = list(holdout.get("experimentIDs") or [])

    def record_missing_holdout(self, holdout_id: str) -> None:
        with self._lock:
            self._holdouts_missing.add(holdout_id)

    # -- asked by the id resources ----------------------------------------------------------
    def holdout_ids(self, configured: Sequence[str]) -> list[str]:
        for list_name, read in (
            ("gates", self._client.list_gates),
            ("dynamic_configs", self._client.list_dynamic_configs),
        ):
            if list_name not in self._complete_lists:
                for page in read():
                    self.record_list_page(list_name, page)
                self.complete_list(list_name)
        return unique([*configured, *self._list_holdout_refs["gates"], *self._list_holdout_refs["dynamic_configs"]])

    def experiment_ids(self, configured: Sequence[str], configured_holdouts: Sequence[str]) -> list[str]:
        holdout_ids = self.holdout_ids(configured_holdouts)
        unread = [h for h in holdout_ids if h not in self._holdout_experiments and h not in self._holdouts_missing]
        for holdout_id, holdout in self._client.fetch_many(self._client.get_holdout, unread):
            if isinstance(holdout, NotFoundError):
                self.record_missing_holdout(holdout_id)
            else:
                self.record_holdout(holdout)
        from_holdouts = [e for h in holdout_ids for e in self._holdout_experiments.get(h, [])]
        return unique([*configured, *from_holdouts])


def exposure_rows(experiment_id: str, series: Sequence[dict[str, Any]], from_day: str | None) -> tuple[list[dict], str | None]:
    """Flattens one experiment's series to rows on or after `from_day`; returns them and the newest day.

    The last loaded day is loaded again because the service still counts exposures into it.
    """
    rows: list[dict[str, Any]] = []
    newest = from_day
    for group in series:
        for point in group.get("results") or []:
            day = point["date"]
            if from_day is None or day >= from_day:
                rows.append(
                    {
                        "experiment_id": experiment_id,
                        "group_id": group["groupID"],
                        "group_name": group.get("groupName"),
                        "date": day,
                        "exposures": point["exposures"],
                    }
                )
            if newest is None or day > newest:
                newest = day
    return rows, newest


def parse_timestamp(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def run_status_since(run: dict[str, Any]) -> datetime | None:
    """When the run's latest status was reached: the newest runHistory entry (listed newest first)."""
    history = run.get("runHistory") or []
    stamps = [parse_timestamp(entry["statusTimestamp"]) for entry in history if entry.get("statusTimestamp")]
    if stamps:
        return max(stamps)
    return parse_timestamp(run["lastUpdatedAt"]) if run.get("lastUpdatedAt") else None


def is_settled(run: dict[str, Any], now: datetime, settle_after: timedelta) -> bool:
    """A run is settled when it completed, or when an error status has not moved for `settle_after`.

    An error is not final (the service retries: download_error is followed by download_started),
    hence the waiting time rather than treating every error as the end.
    """
    status = run.get("latestStatus") or ""
    if status in FINAL_RUN_STATUSES:
        return True
    if status.endswith("_error"):
        since = run_status_since(run)
        return since is not None and now - since >= settle_after
    return False


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def service_today(client: ConsoleClient) -> date:
    """Today by the service's clock (its `Date` header), so a skewed local clock changes nothing."""
    return (client.server_time or utc_now()).astimezone(timezone.utc).date()


def has_concluded(newest_day: str, today: date) -> bool:
    """A series whose newest day is before yesterday gains no more days: the experiment stopped."""
    return date.fromisoformat(newest_day) < today - timedelta(days=1)


def is_quiet(concluded_on: str | None, today: date, recheck_days: int) -> bool:
    """True while a concluded experiment need not be requested: fewer than `recheck_days` since."""
    if concluded_on is None:
        return False
    return today < date.fromisoformat(concluded_on) + timedelta(days=recheck_days)

