"""What a run shows while it goes and sums up at the end: items and pages per resource, skipped ids,
the fields the console sent, the values loaded as null because no column could hold them."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gatehouse.sources.console.client import ConsoleClient
from gatehouse.sources.console.identity import ConsoleIdentity, identify


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
class LeftNull:
    """A value the console sent that was loaded as null (columns.leave_null): where, and the value as shown."""

    table: str
    id: str
    field: str  # as the console names it: `checksPerHour`, `rules[0].pendingAutomatedRollouts[1].time`
    value: str  # cut to a sane length
    why: str


@dataclass
class ExtractionCounts:
    """Counters a run shows while it goes and sums up at the end (thread-safe)."""

    resources: dict[str, ResourceProgress] = field(default_factory=dict)
    skipped: list[SkippedId] = field(default_factory=list)
    # Values loaded as null, each once a run: the record is loaded, that one value could not be (columns.leave_null).
    left_null: list[LeftNull] = field(default_factory=list)
    # Top-level fields the console sent per table this run: a field that stops coming is drift too.
    fields_seen: dict[str, set[str]] = field(default_factory=dict)
    # Items read and found as last loaded, per table: not loaded again (sources/console/unchanged.py).
    unchanged: dict[str, int] = field(default_factory=dict)
    # What the run follows that the interface cannot list (experiments, ingestion runs): how many, and how found.
    followed: dict[str, str] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _left_null_at: set[tuple[str, str, str]] = field(default_factory=set, repr=False)
    _client: Any = field(default=None, repr=False)
    _closers: list[Callable[[], None]] = field(default_factory=list, repr=False)
    _start_reads: Callable[[Mapping[str, Any]], None] | None = field(default=None, repr=False)

    def bind_client(self, client: ConsoleClient) -> None:
        """The source's client, so the caller can read its request counters and close it."""
        self._client = client

    def console_identity(self) -> ConsoleIdentity | None:
        """Which console this run reads, as its `extraction_runs` row records it (None before the client exists)."""
        if self._client is None:
            return None
        return identify(self._client.options.base_url, self._client.options.api_key)

    def check_access(self) -> None:
        """The client's one cheap read (ConsoleError when the base URL or key is wrong)."""
        if self._client is not None:
            self._client.check_access()

    def request_stats(self) -> dict[str, Any]:
        return self._client.stats.snapshot() if self._client is not None else {}

    def on_start_reading(self, start: Callable[[Mapping[str, Any]], None]) -> None:
        """`start(source_state)` starts the source's reads ahead (sources.console.start_reads_ahead)."""
        self._start_reads = start

    def start_reading(self, source_state: Mapping[str, Any]) -> None:
        """Starts the run's reads ahead from the source's state as the last run left it, before dlt extracts (the
        source starts them itself otherwise): the rate budget is spent while the caller syncs and dlt sets up."""
        if self._start_reads is not None:
            self._start_reads(source_state)

    def on_close(self, close: Callable[[], None]) -> None:
        """`close()` when the run closes the counts, before the client (what reads through it first)."""
        self._closers.append(close)

    def close(self) -> None:
        closers, self._closers = self._closers, []
        for close in closers:
            close()
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

    def add_unchanged(self, table: str, items: int) -> None:
        with self._lock:
            self.unchanged[table] = self.unchanged.get(table, 0) + items

    def follow(self, what: str, how: str) -> None:
        with self._lock:
            self.followed[what] = how

    def skip(self, table: str, id_: str, reason: str) -> None:
        with self._lock:
            self.skipped.append(SkippedId(table, id_, reason))

    def leave_null(self, value: LeftNull) -> bool:
        """Records `value`; False when that field of that record was already recorded this run."""
        with self._lock:
            where = (value.table, value.id, value.field)
            if where in self._left_null_at:
                return False
            self._left_null_at.add(where)
            self.left_null.append(value)
            return True

    def snapshot(self) -> dict[str, ResourceProgress]:
        with self._lock:
            return {name: ResourceProgress(p.pages, p.items) for name, p in self.resources.items()}
