"""Retries of reads and idempotent writes; creates sent once; bounds on attempts and time."""

from __future__ import annotations

import threading

import httpx
import pytest

from gatehouse.sources.console.client import ClientOptions, ConsoleClient
from gatehouse.sources.console.errors import (
    OutcomeUnknownError,
    ServerError,
    ThrottledError,
    TransportError,
)
from tests.client.conftest import API_KEY, BASE_URL, MockConsole, answer

GATE = {"message": "Gate read successfully.", "data": {"id": "g1"}}
PIPELINE = {"name": "p"}


def flaky(failures: list, success=None):
    """Answer with each failure in turn (a Response, or an exception to raise), then succeed."""
    remaining = list(failures)

    def handler(request, sent):
        if remaining:
            failure = remaining.pop(0)
            if isinstance(failure, Exception):
                raise failure
            return failure
        return success if success is not None else answer(200, GATE)

    return handler


TRANSIENT = [
    pytest.param(lambda: answer(429, {"status": 429, "message": "Too many requests"}), id="429"),
    pytest.param(lambda: answer(500, {"status": 500, "message": "boom"}), id="500"),
    pytest.param(lambda: answer(502, raw=b"<html>bad gateway</html>"), id="502-html"),
    pytest.param(lambda: answer(503, {"status": 503, "message": "unavailable"}), id="503"),
    pytest.param(lambda: httpx.ReadTimeout("timed out"), id="read-timeout"),
    pytest.param(lambda: httpx.ConnectError("refused"), id="connect-refused"),
    pytest.param(lambda: httpx.RemoteProtocolError("peer closed connection"), id="dropped"),
    pytest.param(lambda: httpx.ReadError("connection reset"), id="read-error"),
    pytest.param(lambda: answer(200, raw=b'{"message": "Gate read', headers={}), id="truncated-json"),
    pytest.param(lambda: answer(200, raw=b"not json at all"), id="malformed-json"),
]


@pytest.mark.parametrize("failure", TRANSIENT)
def test_reads_retry_transient_failures_with_exponential_full_jitter_backoff(make_client, clock, failure):
    client, console = make_client(flaky([failure(), failure(), failure()]))
    assert client.get_gate("g1") == {"id": "g1"}
    assert console.paths == ["/console/v1/gates/g1"] * 4
    # jitter is pinned at 1.0 in the fixture: the backoff ceiling 0.5 * 2**(attempt-1)
    assert clock.sleeps == [0.5, 1.0, 2.0]
    assert client.stats.snapshot()["retries"] == 3


@pytest.mark.parametrize(
    "write",
    [
        pytest.param(lambda c: c.unarchive_dynamic_config("cfg1", "needed"), id="PUT-unarchive"),
        pytest.param(lambda c: c.update_wh_connection({"bigquery": {"project": "p"}}), id="PATCH-wh"),
        pytest.param(
            lambda c: c.patch_scim_group("grp", {"Operations": [{"op": "add", "path": "members", "value": []}]}), id="PATCH-scim"
        ),
        pytest.param(lambda c: c.update_release_pipeline("rp1", PIPELINE), id="POST-update-pipeline"),
    ],
)
def test_idempotent_writes_are_retried(make_client, write):
    client, console = make_client(flaky([answer(503, {"status": 503, "message": "x"}), httpx.ReadTimeout("t")]))
    assert write(client).status == 200
    assert len(console.sent) == 3
    assert console.sent[0].body == console.sent[2].body


@pytest.mark.parametrize(
    "retry_after, date, expected_wait",
    [
        pytest.param("7", None, 7.0, id="seconds"),
        pytest.param("2.5", None, 2.5, id="fractional-seconds"),
        pytest.param("Tue, 02 Jan 2024 03:04:35 GMT", "Tue, 02 Jan 2024 03:04:05 GMT", 30.0, id="http-date-vs-server-date"),
        pytest.param("Tue, 02 Jan 2024 03:04:00 GMT", "Tue, 02 Jan 2024 03:04:05 GMT", 0.0, id="http-date-in-the-past"),
    ],
)
def test_retry_after_is_honoured(make_client, clock, retry_after, date, expected_wait):
    headers = {"Retry-After": retry_after}
    if date:
        headers["Date"] = date
    client, console = make_client(flaky([answer(429, {"status": 429, "message": "slow down"}, headers=headers)]))
    assert client.get_gate("g1")["id"] == "g1"
    assert clock.sleeps[0] == pytest.approx(expected_wait)
    stats = client.stats.snapshot()
    assert stats["throttled"] == 1
    assert stats["throttle_wait_s"] == pytest.approx(expected_wait)


def test_retry_after_on_a_5xx_is_honoured_too(make_client, clock):
    client, _ = make_client(flaky([answer(503, {"status": 503, "message": "x"}, headers={"Retry-After": "4"})]))
    client.get_gate("g1")
    assert clock.sleeps == [4.0]


@pytest.mark.parametrize(
    "failure, error",
    [
        pytest.param(lambda: answer(429, {"status": 429, "message": "x"}), ThrottledError, id="429"),
        pytest.param(lambda: answer(500, {"status": 500, "message": "x"}), ServerError, id="500"),
        pytest.param(lambda: httpx.ReadTimeout("t"), TransportError, id="timeout"),
    ],
)
def test_attempts_are_bounded(make_client, failure, error):
    client, console = make_client(flaky([failure() for _ in range(10)]), max_attempts=3)
    with pytest.raises(error, match="gave up after 3 attempts"):
        client.get_gate("g1")
    assert len(console.sent) == 3


def test_total_retry_time_is_bounded(make_client, clock):
    slow = [answer(429, {"status": 429, "message": "x"}, headers={"Retry-After": "50"}) for _ in range(10)]
    client, console = make_client(flaky(slow), max_retry_time=120.0, max_attempts=10)
    with pytest.raises(ThrottledError, match="gave up after 3 attempts in 100.0 s"):
        client.get_gate("g1")
    assert len(console.sent) == 3  # a third wait of 50 s would end past 120 s
    assert sum(clock.sleeps) <= 120.0


def test_backoff_ceiling_is_capped(make_client, clock):
    client, _ = make_client(flaky([httpx.ReadTimeout("t")] * 9), max_attempts=10, max_retry_time=1000.0)
    client.get_gate("g1")
    assert clock.sleeps == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0]


CREATES = [
    pytest.param(lambda c: c.create_release_pipeline(PIPELINE), "release pipeline", id="create-release-pipeline"),
    pytest.param(lambda c: c.create_role("Viewer", {"create_configs": False}), "role", id="create-role"),
]


@pytest.mark.parametrize("create, noun", CREATES)
@pytest.mark.parametrize(
    "no_answer",
    [
        pytest.param(lambda: httpx.ReadTimeout("timed out"), id="read-timeout"),
        pytest.param(lambda: httpx.RemoteProtocolError("peer closed"), id="dropped"),
        pytest.param(lambda: httpx.WriteTimeout("write timed out"), id="write-timeout"),
        pytest.param(lambda: answer(200, raw=b'{"message": "Role cre'), id="truncated-2xx"),
    ],
)
def test_creates_without_an_answer_are_not_retried_and_say_what_to_check(make_client, clock, create, noun, no_answer):
    client, console = make_client(flaky([no_answer()]))
    with pytest.raises(OutcomeUnknownError) as raised:
        create(client)
    assert len(console.sent) == 1
    assert clock.sleeps == []
    assert f"the {noun} may or may not have been created: check the console" in str(raised.value)


@pytest.mark.parametrize("create, noun", CREATES)
@pytest.mark.parametrize(
    "failure, error, text",
    [
        pytest.param(lambda: answer(500, {"status": 500, "message": "x"}), ServerError, "creates are not retried", id="500"),
        pytest.param(lambda: answer(429, {"status": 429, "message": "x"}), ThrottledError, "was not created", id="429"),
        pytest.param(lambda: httpx.ConnectError("refused"), TransportError, "nothing was sent", id="connect-refused"),
    ],
)
def test_creates_that_got_a_definite_failure_are_raised_as_such(make_client, create, noun, failure, error, text):
    client, console = make_client(flaky([failure()]))
    with pytest.raises(error, match=text) as raised:
        create(client)
    assert type(raised.value) is error
    assert len(console.sent) == 1


def test_a_retry_after_longer_than_the_retry_budget_gives_up_at_once_and_holds_nobody_back(make_client, clock):
    # 900 s is what a 900-requests-per-15-minutes quota may ask for: waiting it out would hang the run.
    client, console = make_client(
        lambda request, sent: (
            answer(429, {"status": 429, "message": "quota"}, headers={"Retry-After": "900"})
            if sent.path.endswith("/g1")
            else answer(200, GATE)
        ),
        max_retry_time=120,
    )
    with pytest.raises(ThrottledError, match=r"asked to wait 900 s, longer than sources.console.max_retry_time \(120 s\)"):
        client.get_gate("g1")
    assert client.get_gate("g2") == {"id": "g1"}  # the limiter was not paused for 900 s
    assert clock.sleeps == []
    assert console.paths == ["/console/v1/gates/g1", "/console/v1/gates/g2"]


def holdouts_after_a_gate(holdout_failures: int | None):
    """The gate answers (the first answer, so the fan-out starts); holdouts answer 500 that many times, then 200
    (None: always 500)."""
    failed = [0]
    lock = threading.Lock()

    def handler(request, sent):
        if "/holdouts/" not in sent.path:
            return answer(200, GATE)
        with lock:
            if holdout_failures is None or failed[0] < holdout_failures:
                failed[0] += 1
                return answer(500, {"status": 500, "message": "down"})
        return answer(200, {"data": {"id": sent.path.rsplit("/", 1)[-1]}})

    return handler


def test_ids_of_an_endpoint_that_fails_spend_one_requests_retries_between_them(make_client):
    # Before, each of the 16 ids read side by side spent its own 6 attempts (up to 96 requests).
    client, console = make_client(holdouts_after_a_gate(None))
    client.get_gate("g1")
    with pytest.raises(ServerError, match="gave up after 6 attempts"):
        list(client.fetch_many(client.get_holdout, [f"h{i}" for i in range(16)]))
    assert sum("/holdouts/" in path for path in console.paths) == 6


def test_once_the_retried_request_of_an_endpoint_is_answered_its_other_ids_are_asked(make_client):
    client, console = make_client(holdouts_after_a_gate(2))
    client.get_gate("g1")
    ids = [f"h{i}" for i in range(16)]
    assert [(item, result["id"]) for item, result in client.fetch_many(client.get_holdout, ids)] == list(zip(ids, ids))
    # one id asked until answered (its third request), the others once each after; before, every id's first
    # request went at once, two of them failed, and those two were retried
    holdouts = [path for path in console.paths if "/holdouts/" in path]
    assert len(holdouts) == 2 + 16 and len(set(holdouts[:3])) == 1 and len(set(holdouts[2:])) == 16


def test_a_request_answered_while_another_retries_the_endpoint_lets_the_ones_waiting_go(clock):
    """hA fails once and its retry waits (the injected sleep holds it); hB, sent before that failure, is answered
    meanwhile: that answer shows the endpoint answers, so hC, asked next, does not wait for hA's retry."""
    a_failed, release_a = threading.Event(), threading.Event()
    failures = {"hA": 1}

    def handler(request, sent):
        item = sent.path.rsplit("/", 1)[-1]
        if item == "hB":
            assert a_failed.wait(10)
        if failures.get(item):
            failures[item] -= 1
            return answer(500, {"status": 500, "message": "down"})
        return answer(200, {"data": {"id": item}})

    def held_sleep(seconds: float) -> None:
        if threading.current_thread().name == "A":
            a_failed.set()
            assert release_a.wait(10)

    console = MockConsole(handler)
    client = ConsoleClient(
        ClientOptions(base_url=BASE_URL, api_key=API_KEY), transport=httpx.MockTransport(console), sleep=held_sleep, clock=clock
    )
    client.get_holdout("h0")
    answers: dict[str, dict] = {}
    threads = {name: threading.Thread(target=lambda n=name: answers.update({n: client.get_holdout(n)}), name=name[1])
               for name in ("hB", "hA")}  # fmt: skip
    for thread in threads.values():
        thread.start()
    threads["hB"].join(10)
    asked_next = threading.Thread(target=lambda: answers.update(hC=client.get_holdout("hC")))
    asked_next.start()
    asked_next.join(5)
    try:
        assert not asked_next.is_alive() and answers["hC"] == {"id": "hC"} and "hA" not in answers
    finally:
        release_a.set()
        threads["hA"].join(10)
        client.close()
    assert answers["hA"] == {"id": "hA"}
    asked = [path.rsplit("/", 1)[-1] for path in console.paths]
    assert sorted(asked) == ["h0", "hA", "hA", "hB", "hC"] and asked[-1] == "hA" and asked.index("hC") > asked.index("hB")


def test_once_two_endpoints_gave_up_nothing_more_is_asked(make_client):
    client, console = make_client(
        lambda request, sent: answer(200, GATE) if "/gates/" in sent.path else answer(500, {"status": 500, "message": "down"})
    )
    client.get_gate("g1")
    with pytest.raises(ServerError, match="gave up after 6 attempts"):
        client.get_holdout("h1")
    with pytest.raises(ServerError, match="holdouts"):  # the endpoint that gave up is not asked again
        client.get_holdout("h2")
    assert client.get_gate("g2") == {"id": "g1"}  # one endpoint down: the others are still asked
    with pytest.raises(ServerError, match="gave up after 6 attempts"):
        client.get_cumulative_exposures("e1")
    for ask in (lambda: client.get_gate("g3"), lambda: client.get_ingestion_run("r1")):
        with pytest.raises(ServerError, match="gave up after 6 attempts"):
            ask()
    assert [path.rsplit("/", 1)[-1] for path in console.paths] == ["g1", *["h1"] * 6, "g2", *["cumulative_exposures"] * 6]
