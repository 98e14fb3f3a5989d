"""fetch_many: bounded, streaming fan-out in input order; 404 as a value, other errors raised."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from gatehouse.sources.console.constants import IN_FLIGHT_PER_WORKER
from gatehouse.sources.console.errors import ForbiddenError, NotFoundError, ServerError
from tests.client.conftest import answer


def holdouts(missing=(), failing=()):
    def handler(request, sent):
        holdout_id = sent.path.rsplit("/", 1)[-1]
        if holdout_id in missing:
            return answer(404, {"status": 404, "message": f"holdout {holdout_id} not found"})
        if holdout_id in failing:
            return answer(403, {"status": 403, "message": "Forbidden resource"})
        return answer(200, {"message": "m", "data": {"id": holdout_id}})

    return handler


def test_results_come_in_input_order_whatever_order_they_finish_in(make_client):
    client, _ = make_client(holdouts(), max_workers=4)
    ids = [f"h{i}" for i in range(4)]
    release = {i: threading.Event() for i in ids}
    finished: list[str] = []

    def fetch(holdout_id):
        assert release[holdout_id].wait(timeout=10)
        result = client.get_holdout(holdout_id)
        finished.append(holdout_id)
        if holdout_id != "h0":
            release[ids[ids.index(holdout_id) - 1]].set()  # finish in reverse order
        return result

    release["h3"].set()
    results = list(client.fetch_many(fetch, ids))
    assert finished == ["h3", "h2", "h1", "h0"]
    assert results == [(i, {"id": i}) for i in ids]


def test_a_404_is_returned_as_a_value(make_client):
    client, console = make_client(holdouts(missing={"h2"}), max_workers=3)
    results = dict(client.fetch_many(client.get_holdout, ["h1", "h2", "h3"]))
    assert results["h1"] == {"id": "h1"} and results["h3"] == {"id": "h3"}
    assert isinstance(results["h2"], NotFoundError)
    assert "holdout 'h2' not found" in str(results["h2"])
    assert sorted(console.paths) == ["/console/v1/holdouts/h1", "/console/v1/holdouts/h2", "/console/v1/holdouts/h3"]


def test_other_errors_are_raised_and_the_rest_is_not_fetched(make_client):
    client, console = make_client(holdouts(failing={"h1"}), max_workers=2)
    consumed: list[str] = []

    def ids():
        for i in range(1000):
            consumed.append(f"h{i}")
            yield f"h{i}"

    got = []

    with pytest.raises(ForbiddenError):
        for item in client.fetch_many(client.get_holdout, ids()):
            got.append(item)
    assert got == [("h0", {"id": "h0"})]
    assert len(consumed) <= IN_FLIGHT_PER_WORKER * 2 + 2
    assert len(console.sent) <= len(consumed)


def test_at_most_in_flight_per_worker_are_submitted_and_ids_are_read_lazily(make_client):
    client, _ = make_client(holdouts(), max_workers=3)
    consumed = 0
    running = 0
    most_running = 0
    lock = threading.Lock()

    def ids():
        nonlocal consumed
        for i in range(500):
            consumed += 1
            yield f"h{i}"

    def fetch(holdout_id):
        nonlocal running, most_running
        with lock:
            running += 1
            most_running = max(most_running, running)
        try:
            return client.get_holdout(holdout_id)
        finally:
            with lock:
                running -= 1

    stream = client.fetch_many(fetch, ids())
    first = next(stream)
    assert first == ("h0", {"id": "h0"})
    assert consumed <= IN_FLIGHT_PER_WORKER * 3 + 1  # the window, plus one refill after the first result
    rest = list(stream)
    assert len(rest) == 499
    assert most_running <= 3


def test_server_errors_after_retries_are_raised(make_client):
    client, _ = make_client(lambda request, sent: answer(500, {"status": 500, "message": "x"}), max_workers=2, max_attempts=2)
    with pytest.raises(ServerError):
        list(client.fetch_many(client.get_holdout, ["h1", "h2"]))


def test_closing_the_stream_early_cancels_pending_work(make_client, monkeypatch):
    # Every id but the first is answered only once the stream is being closed (its pending reads cancelled, the
    # pool shutting down): what was asked is then what had started, whatever the machine's speed.
    closing = threading.Event()
    answered = holdouts()

    def handler(request, sent):
        if not sent.path.endswith("/h0"):
            assert closing.wait(timeout=10)
        return answered(request, sent)

    shutdown = ThreadPoolExecutor.shutdown

    def shutting_down(executor, *args, **kwargs):
        closing.set()
        return shutdown(executor, *args, **kwargs)

    monkeypatch.setattr(ThreadPoolExecutor, "shutdown", shutting_down)
    client, console = make_client(handler, max_workers=2)
    stream = client.fetch_many(client.get_holdout, (f"h{i}" for i in range(100)))
    assert next(stream) == ("h0", {"id": "h0"})
    stream.close()
    # the first id, and at most one more read for each of the two workers: the 97 others never asked
    asked = console.paths
    assert asked[0] == "/console/v1/holdouts/h0"
    assert sorted(asked[1:]) in (
        [],
        ["/console/v1/holdouts/h1"],
        ["/console/v1/holdouts/h2"],
        ["/console/v1/holdouts/h1", "/console/v1/holdouts/h2"],
    )


def test_an_id_the_console_refuses_is_a_value_like_an_unknown_one(make_client):
    from gatehouse.sources.console.errors import ValidationError

    def handler(request, sent):
        experiment_id = sent.path.split("/")[-2]
        if experiment_id == "not_started":
            return answer(400, {"status": 400, "message": "Experiment not started"})
        return answer(200, {"message": "m", "data": [{"groupID": "g", "groupName": "G", "results": []}]})

    client, console = make_client(handler)
    results = dict(client.fetch_many(client.get_cumulative_exposures, ["a", "not_started", "b"]))
    assert isinstance(results["not_started"], ValidationError) and "Experiment not started" in str(results["not_started"])
    assert results["a"] == results["b"] == [{"groupID": "g", "groupName": "G", "results": []}]
    assert len(console.sent) == 3


def test_reads_ahead_ask_the_rate_limiter_for_spare_slots_only(make_client):
    client, _ = make_client(holdouts(), max_workers=2)
    asked: list[bool] = []
    acquire = client.rate_limiter.acquire

    def recording_acquire(background: bool = False):
        asked.append(background)
        return acquire(background=background)

    client.rate_limiter.acquire = recording_acquire
    assert [i for i, _ in client.fetch_many(client.get_holdout, ["h1", "h2"], background=True)] == ["h1", "h2"]
    assert [i for i, _ in client.fetch_many(client.get_holdout, ["h3"])] == ["h3"]
    assert asked == [True, True, False]
