"""Ids a run discovers and fans out over: the `Catalogue` its resources share, and the helpers that
order ids (`unique`) and cut them into batches for the client's worker pool (`batched`)."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from gatehouse.sources.console.client import ConsoleClient
from gatehouse.sources.console.columns import as_list
from gatehouse.sources.console.errors import ConsoleError

T = TypeVar("T")


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


@dataclass(frozen=True)
class NoLongerFollowed:
    """Ids an id resource hands its transformer after the batches to read: loaded before, no longer followed."""

    ids: list[str]


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
        self._holdout_experiments: dict[str, list[str]] = {}  # holdout id asked for -> experiment ids
        self._holdouts_missing: set[str] = set()
        # The holdouts the run reads, once the lists gave them (holdout_ids): when all are answered, the
        # experiments are known.
        self.holdouts_wanted: list[str] | None = None

    # -- recorded by the resources as they stream -------------------------------------------
    def record_list_page(self, list_name: str, page: Sequence[dict[str, Any]]) -> None:
        refs = [h for item in page for h in (as_list(item.get("holdoutIDs")) or [])]
        with self._lock:
            self._list_holdout_refs.setdefault(list_name, []).extend(refs)

    def complete_list(self, list_name: str) -> None:
        with self._lock:
            self._complete_lists.add(list_name)
            self._list_holdout_refs[list_name] = unique(self._list_holdout_refs.get(list_name, []))

    def record_holdout(self, holdout_id: str, holdout: dict[str, Any]) -> None:
        """`holdout` as answered for `holdout_id`, the id asked for: kept under that id, which is the one looked up
        (a console that matches ids case-insensitively answers its own spelling in `id`)."""
        with self._lock:
            self._holdout_experiments[holdout_id] = list(as_list(holdout.get("experimentIDs")) or [])

    def record_missing_holdout(self, holdout_id: str) -> None:
        with self._lock:
            self._holdouts_missing.add(holdout_id)

    def holdouts_answered(self, holdout_ids: Sequence[str]) -> bool:
        with self._lock:
            return all(h in self._holdout_experiments or h in self._holdouts_missing for h in holdout_ids)

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
            if isinstance(holdout, ConsoleError):
                self.record_missing_holdout(holdout_id)
            else:
                self.record_holdout(holdout_id, holdout)
        from_holdouts = [e for h in holdout_ids for e in self._holdout_experiments.get(h, [])]
        return unique([*configured, *from_holdouts])
