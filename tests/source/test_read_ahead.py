"""Per-id reads started ahead of the resource that uses them (sources/console/read_ahead.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest

from gatehouse.sources.console.read_ahead import ReadAheads


class FakeClient:
    """`fetch_many` as the console client's: (id, fetch(id)) in input order; records what was fetched."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.fetched: list[str] = []
        self.fail_on = fail_on
        self.lock = threading.Lock()

    def fetch_many(self, fetch: Callable[[str], Any], ids: Iterable[str], background: bool = False) -> Iterator[tuple[str, Any]]:
        for item_id in ids:
            with self.lock:
                self.fetched.append(item_id)
            if item_id == self.fail_on:
                raise RuntimeError(f"the console failed on {item_id}")
            yield item_id, fetch(item_id)


def answer(item_id: str) -> dict:
    return {"id": item_id}


def test_answers_read_ahead_are_taken_in_order_the_unwanted_dropped_and_the_rest_read_after():
    client, aheads = FakeClient(), ReadAheads()
    aheads.start("holdouts", client, answer, ["a", "b", "c", "d"], ahead=2)
    ordered = aheads.in_read_order("holdouts", ["x", "d", "b"])  # c is no longer wanted, x was not known
    assert ordered == ["b", "d", "x"]
    got = list(aheads.fetch_many("holdouts", client, answer, ordered))
    aheads.finish("holdouts")
    assert got == [("b", {"id": "b"}), ("d", {"id": "d"}), ("x", {"id": "x"})]
    assert sorted(client.fetched) == ["a", "b", "c", "d", "x"]  # each once


def test_batches_take_their_share_in_turn_and_finish_stops_what_is_planned_beyond():
    client, aheads = FakeClient(), ReadAheads()
    planned = [f"e{i}" for i in range(50)]
    aheads.start("cumulative_exposures", client, answer, planned, ahead=4)
    wanted = aheads.in_read_order("cumulative_exposures", planned[:10])
    got = [i for batch in (wanted[:4], wanted[4:]) for i, _ in aheads.fetch_many("cumulative_exposures", client, answer, batch)]
    aheads.finish("cumulative_exposures")
    assert got == planned[:10]
    assert len(client.fetched) < 50  # held at most `ahead` answers, then stopped


def test_a_failure_of_the_reads_is_raised_where_its_answer_is_taken():
    client, aheads = FakeClient(fail_on="c"), ReadAheads()
    aheads.start("holdouts", client, answer, ["a", "b", "c", "d"], ahead=10)
    taken = aheads.fetch_many("holdouts", client, answer, ["a", "b", "c", "d"])
    assert [next(taken)[0], next(taken)[0]] == ["a", "b"]
    with pytest.raises(RuntimeError, match="failed on c"):
        next(taken)
    aheads.close()


def test_closing_the_run_stops_reads_nobody_takes():
    client, aheads = FakeClient(), ReadAheads()
    aheads.start("holdouts", client, answer, [str(i) for i in range(100)], ahead=3)
    aheads.close()  # returns: the reading thread is not left waiting for room
    assert len(client.fetched) <= 5
    assert list(aheads.fetch_many("holdouts", client, answer, ["z"])) == [("z", {"id": "z"})]  # as without
