"""Per-id reads started before the resource that uses them: configured holdouts and experiments, and those
the last run read, requested while the lists are paged.

Holdouts are known in full only once the lists are read (gates and dynamic configs reference them), and
experiments only once the holdouts are (their `experimentIDs`): read strictly in that order, the rate
budget sat partly idle while the lists were paged one page at a time (a large no-change rerun: 39
requests/s while listing for a limit of 50). The ids a run can name before any list (those configured,
and those the last run read) are read ahead in a background thread, at most `ahead` answers held at a
time; the resource that uses them takes the answers in the order they were planned and reads the rest
as before. Which ids a run loads does not change: an answer read ahead for an id the run does not want
(a holdout no longer referenced, an experiment concluded since) is dropped, at the cost of its request.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from gatehouse.sources.console.catalogue import unique
from gatehouse.sources.console.client import ConsoleClient
from gatehouse.sources.console.constants import LOGGER_NAME

T = TypeVar("T")
# At the run's end, how long a read ahead's requests in flight may take to end before the client closes.
CLOSE_WAIT_S = 1.0
log = logging.getLogger(LOGGER_NAME)


class ReadAhead:
    """`fetch(id)` for each planned id, in a background thread, through the client's `fetch_many` (its pool and
    rate limit); answers held until taken, in plan order, at most `ahead` at a time."""

    def __init__(self, client: ConsoleClient, fetch: Callable[[str], T], ids: Sequence[str], ahead: int, name: str) -> None:
        self._client = client
        self._fetch = fetch
        self.planned: list[str] = unique(ids)
        self._ahead = max(1, ahead)
        self._answers: dict[str, Any] = {}
        self._next = 0  # index in `planned` of the next answer to hand out
        self._failure: BaseException | None = None
        self._finished = False
        self._closed = False
        self._condition = threading.Condition()
        self._thread = threading.Thread(target=self._read, name=f"read-ahead-{name}", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        answers: Generator[tuple[str, Any], None, None] | None = None
        try:
            answers = self._client.fetch_many(self._fetch, self.planned, background=True)
            for item_id, answer in answers:
                with self._condition:
                    while len(self._answers) >= self._ahead and not self._closed:
                        self._condition.wait(0.5)
                    if self._closed:
                        return
                    self._answers[item_id] = answer
                    self._condition.notify_all()
        except BaseException as err:  # handed to the resource that takes the answer
            with self._condition:
                self._failure = err
        finally:
            if answers is not None:
                answers.close()  # cancels what has not started
            with self._condition:
                self._finished = True
                self._condition.notify_all()

    def take(self, wanted: Iterable[str]) -> Iterator[tuple[str, Any]]:
        """The answers for `wanted` (planned ids, in plan order), dropping those planned before them that are not
        wanted; a failure of the reads is raised here, as `fetch_many` would."""
        wanted_set = set(wanted)
        while wanted_set:
            with self._condition:
                if self._next >= len(self.planned):
                    raise RuntimeError(f"not read ahead: {sorted(wanted_set)[:3]}")
                item_id = self.planned[self._next]
                while item_id not in self._answers:
                    if self._failure is not None:
                        raise self._failure
                    if self._finished or self._closed:
                        raise RuntimeError(f"the read ahead stopped before {item_id!r}")
                    self._condition.wait(0.5)
                answer = self._answers.pop(item_id)
                self._next += 1
                self._condition.notify_all()
            if item_id in wanted_set:
                wanted_set.discard(item_id)
                yield item_id, answer

    def close(self, wait_s: float = 0.0) -> None:
        """Stops reading: what has not started is not sent, answers not taken are dropped; waits up to `wait_s`
        for the requests in flight (the run's end then closes the client, which ends any still waiting)."""
        with self._condition:
            self._closed = True
            self._answers.clear()
            self._condition.notify_all()
        if wait_s > 0 and self._thread is not threading.current_thread():
            self._thread.join(wait_s)


class ReadAheads:
    """The run's read-aheads by table (none until `start`), closed together when the run ends, whatever way."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_table: dict[str, ReadAhead] = {}

    def start(self, table: str, client: ConsoleClient, fetch: Callable[[str], Any], ids: Sequence[str], ahead: int) -> None:
        if not ids:
            return
        with self._lock:
            if table not in self._by_table:
                self._by_table[table] = ReadAhead(client, fetch, ids, ahead, table)

    def fetch_many(
        self, table: str, client: ConsoleClient, fetch: Callable[[str], T], ids: Sequence[str]
    ) -> Iterator[tuple[str, Any]]:
        """As `client.fetch_many(fetch, ids)`, answers read ahead taken first (in plan order), then the others."""
        with self._lock:
            ahead = self._by_table.get(table)
        if ahead is None:
            yield from client.fetch_many(fetch, ids)
            return
        planned, wanted = set(ahead.planned), set(ids)
        yield from ahead.take([i for i in ahead.planned if i in wanted])
        rest = [i for i in ids if i not in planned]
        if rest:
            yield from client.fetch_many(fetch, rest)

    def in_read_order(self, table: str, ids: Sequence[str]) -> list[str]:
        """`ids` with those read ahead first, in the order they are read (the batches then take them in turn)."""
        with self._lock:
            ahead = self._by_table.get(table)
        if ahead is None:
            return list(ids)
        wanted = set(ids)
        planned = [i for i in ahead.planned if i in wanted]
        first = set(planned)
        return [*planned, *(i for i in ids if i not in first)]

    def finish(self, table: str) -> None:
        """The resource took every answer it wants: what is planned beyond is not read (nothing waits for it)."""
        with self._lock:
            ahead = self._by_table.pop(table, None)
        if ahead is not None:
            ahead.close()

    def close(self) -> None:
        """At the run's end, whatever way it ended: the reads stop, a request in flight has a moment to end
        before the client closes (a failing run waits for no retry of a read nobody will take)."""
        with self._lock:
            aheads, self._by_table = list(self._by_table.values()), {}
        for ahead in aheads:
            ahead.close(wait_s=CLOSE_WAIT_S)
