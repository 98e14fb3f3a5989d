"""The shared sliding-window limiter: never more than N requests in any window as the service counts
them (a slot is held from start until a window after the answer), adaptive to 429s. Fake clock only."""

from __future__ import annotations

import threading
import time
from collections import deque

import pytest

from gatehouse.sources.console.ratelimit import Permit, SlidingWindowRateLimiter
from tests.client.conftest import FakeClock, answer


def limiter_on(clock: FakeClock, limit: int, window: float = 10.0) -> SlidingWindowRateLimiter:
    """A limiter that reads and sleeps on the fake clock."""
    return SlidingWindowRateLimiter(limit, window, clock=clock, sleep=clock.sleep)


def take(limiter: SlidingWindowRateLimiter) -> Permit:
    """One request whose answer comes at once."""
    permit = limiter.acquire()
    limiter.release(permit)
    return permit


def max_in_any_window(starts: list[float], window: float) -> int:
    starts = sorted(starts)
    best, lo = 0, 0
    for hi, t in enumerate(starts):
        while starts[lo] <= t - window:
            lo += 1
        best = max(best, hi - lo + 1)
    return best


@pytest.mark.parametrize("limit, window, threads, per_thread", [(10, 1.0, 16, 25), (3, 10.0, 8, 10), (100, 10.0, 12, 40)])
def test_many_threads_never_start_more_than_n_in_any_window(clock, limit, window, threads, per_thread):
    limiter = limiter_on(clock, limit, window)
    permits: list[Permit] = []
    lock = threading.Lock()

    def worker():
        for _ in range(per_thread):
            permit = take(limiter)
            with lock:
                permits.append(permit)

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join(timeout=30)
    assert len(permits) == threads * per_thread
    assert max_in_any_window([p.started_at for p in permits], window) == limit


def test_a_full_window_makes_the_next_caller_wait_for_the_oldest_answer_to_expire(clock):
    limiter = limiter_on(clock, 3)
    for _ in range(3):
        assert take(limiter).waited == 0
    clock.advance(4.0)
    permit = limiter.acquire()
    # The oldest answer holds its slot for the window plus the 0.1% clock margin.
    assert permit.waited == pytest.approx(6.01)
    assert permit.started_at == pytest.approx(1010.01)


def test_a_slow_answer_holds_its_slot_until_a_window_after_it_came(clock):
    """The service counts a request when it arrives, which may be as late as its answer."""
    limiter = limiter_on(clock, 1)
    slow = limiter.acquire()
    clock.advance(3.0)
    limiter.release(slow)  # answered 3 s after it started
    permit = limiter.acquire()
    assert permit.waited == pytest.approx(10.01)
    assert permit.started_at == pytest.approx(1013.01)


def test_a_429_lowers_the_rate_once_per_generation_down_to_one(clock):
    limiter = limiter_on(clock, 100)
    old = [take(limiter) for _ in range(3)]
    limiter.on_throttled(old[0])
    limiter.on_throttled(old[1])  # started under the old limit: the same signal, not a second one
    limiter.on_throttled(old[2])
    assert limiter.limit == 80
    limiter.on_throttled(take(limiter))
    assert limiter.limit == 64
    for _ in range(30):
        limiter.on_throttled(None)
    assert limiter.limit == 1


def test_retry_after_holds_every_caller(clock):
    limiter = limiter_on(clock, 100)
    limiter.on_throttled(take(limiter), retry_after=5.0)
    assert take(limiter).waited == pytest.approx(5.0)


def test_the_rate_recovers_slowly_after_windows_without_429(clock):
    limiter = limiter_on(clock, 100)
    limiter.on_throttled(take(limiter))
    assert limiter.limit == 80
    clock.advance(10.0)
    take(limiter)
    assert limiter.limit == 90  # +10 % of the configured rate per clean window
    clock.advance(1000.0)
    take(limiter)
    assert limiter.limit == 100


def test_a_server_limit_below_the_configured_one_makes_the_client_adapt_not_fail(make_client, clock):
    """The server allows 5 requests per second; the client is configured for 20."""
    server_window: deque[float] = deque()

    def handler(request, sent):
        now = clock()
        while server_window and server_window[0] <= now - 1.0:
            server_window.popleft()
        if len(server_window) >= 5:
            return answer(429, {"status": 429, "message": "Too many requests"}, headers={"Retry-After": "1"})
        server_window.append(now)
        return answer(200, {"message": "m", "data": {"id": "x"}})

    client, console = make_client(handler, rate_limit_requests=20, rate_limit_window=1.0)
    for i in range(60):
        assert client.get_gate(f"g{i}") == {"id": "x"}
    stats = client.stats.snapshot()
    assert 1 <= stats["throttled"] <= 12
    assert stats["throttle_wait_s"] > 0
    assert client.rate_limiter.limit < 20  # paced below the configured rate (AIMD: it probes back up slowly)
    assert len(console.sent) == 60 + stats["throttled"]


def test_the_limiter_paces_a_client_across_threads(make_client, clock):
    client, console = make_client(
        lambda request, sent: answer(200, {"message": "m", "data": {"id": "x"}}), rate_limit_requests=4, rate_limit_window=2.0
    )
    permits: list[Permit] = []
    original = client.rate_limiter.acquire
    lock = threading.Lock()

    def recording_acquire(background: bool = False):
        permit = original(background=background)
        with lock:
            permits.append(permit)
        return permit

    client.rate_limiter.acquire = recording_acquire
    threads = [threading.Thread(target=lambda: [client.get_gate("g") for _ in range(10)]) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert len(console.sent) == 60
    assert max_in_any_window([p.started_at for p in permits], 2.0) == 4
    assert client.stats.snapshot()["throttle_wait_s"] > 0


def test_an_answer_whose_round_trip_is_known_frees_its_slot_a_shortest_round_trip_sooner(clock):
    """The service counted the request at least the shortest round trip (less the jitter allowance)
    before the answer came: the slot is held a window from then, not from the answer."""
    from gatehouse.sources.console.constants import RATE_LIMIT_ARRIVAL_JITTER_S as jitter

    limiter = limiter_on(clock, 1, window=1.0)
    first = limiter.acquire()
    sent = clock()
    clock.advance(0.05)
    limiter.release(first, sent_at=sent, answered_at=clock())  # a 50 ms round trip, the shortest so far
    permit = limiter.acquire()
    assert permit.started_at == pytest.approx(sent + 0.05 - (0.05 - jitter) + 1.001)
    # A slower one keeps the credit of the shortest: held from its answer less the same credit.
    sent = clock()
    clock.advance(0.2)
    limiter.release(permit, sent_at=sent, answered_at=clock())
    assert limiter.acquire().started_at == pytest.approx(sent + 0.2 - (0.05 - jitter) + 1.001)


def test_a_transport_that_reports_no_times_gets_the_slot_held_a_window_after_the_answer(clock):
    limiter = limiter_on(clock, 1, window=1.0)
    permit = limiter.acquire()
    clock.advance(0.05)
    limiter.release(permit, sent_at=None, answered_at=None)
    assert limiter.acquire().started_at == pytest.approx(1000.05 + 1.001)


@pytest.mark.parametrize("count_at", [0.0, 0.5, 1.0])
def test_with_round_trips_learned_the_service_never_counts_more_than_n_in_a_window(clock, count_at):
    """Requests of varied round trips, counted by the service at a fixed point of each (`count_at` of the
    way from sending to answering: on arrival, half way, just before answering): never more than N."""
    limiter = limiter_on(clock, 5, window=1.0)
    counted: list[float] = []
    for index in range(200):
        permit = limiter.acquire()
        round_trip = 0.05 + 0.03 * (index % 4)  # 50 to 140 ms
        sent = clock()
        counted.append(sent + count_at * round_trip)
        clock.advance(round_trip)
        limiter.release(permit, sent_at=sent, answered_at=clock())
    assert max_in_any_window(counted, 1.0) <= 5
    # and the learning is used: 200 requests in fewer windows than if each held a round trip longer
    assert clock() - 1000.0 < 200 / 5 * (1.001 + 0.05)


def test_a_429_halves_the_credit_for_time_after_the_service_counted(clock):
    from gatehouse.sources.console.constants import RATE_LIMIT_ARRIVAL_JITTER_S as jitter

    limiter = limiter_on(clock, 10, window=1.0)
    permit = limiter.acquire()
    sent = clock()
    clock.advance(0.05)
    limiter.release(permit, sent_at=sent, answered_at=clock())
    limiter.on_throttled(limiter.acquire())  # the credit was 50 - 10 ms; now half of that
    credit = (0.05 - jitter) / 2
    permit = limiter.acquire()
    sent = clock()
    clock.advance(0.05)
    limiter.release(permit, sent_at=sent, answered_at=clock())
    assert limiter._expiries[-1] == pytest.approx(sent + 0.05 - credit + 1.001)


def test_a_read_ahead_takes_a_free_slot_when_nobody_else_waits(clock):
    limiter = limiter_on(clock, 2)
    take(limiter)
    assert limiter.acquire(background=True).waited == 0


def test_a_read_ahead_lets_a_caller_that_waits_go_first(clock):
    # The caller that needs its slot now sleeps (fake time) only once the read ahead has yielded to it: however
    # the threads are scheduled, it is still waiting when the read ahead looks.
    read_ahead_yielded = threading.Event()
    main = threading.current_thread()

    def sleep(seconds: float) -> None:
        if threading.current_thread() is main:
            read_ahead_yielded.set()
        else:
            assert read_ahead_yielded.wait(30), "the read ahead never yielded"
        clock.sleep(seconds)

    limiter = SlidingWindowRateLimiter(1, 10.0, clock=clock, sleep=sleep)
    take(limiter)  # the window is full until 1010.01
    order: list[str] = []
    first: list[Permit] = []

    def needed_now():
        permit = limiter.acquire()
        order.append("needed now")
        first.append(permit)
        limiter.release(permit)

    waiting = threading.Thread(target=needed_now)
    waiting.start()
    while limiter._waiting == 0:  # the other caller is in acquire (and stays there until the read ahead yields)
        time.sleep(0.001)
    permit = limiter.acquire(background=True)
    order.append("read ahead")
    waiting.join(timeout=30)
    # the read ahead waited as long as the other caller, then for the slot that caller's answer holds
    assert order == ["needed now", "read ahead"]
    assert permit.started_at >= first[0].started_at + 10.0


def test_the_wait_on_the_rate_limit_is_wall_clock_time_not_a_sum_over_threads(monkeypatch):
    from gatehouse.sources.console import client as client_module
    from gatehouse.sources.console.client import ClientStats

    now = [100.0]
    monkeypatch.setattr(client_module.time, "monotonic", lambda: now[0])
    stats = ClientStats()
    # three threads wait 2 s each, ending together; then one more alone, a second later
    for _ in range(3):
        stats.record_throttle_wait(2.0)
    now[0] = 103.0
    stats.record_throttle_wait(0.5)
    assert stats.throttle_wait_s == pytest.approx(2.5)
    assert stats.snapshot()["throttle_wait_s"] == 2.5
