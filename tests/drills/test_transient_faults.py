"""Throttling and flaky networks: the client absorbs them and the load is exactly the fault-free one."""

from __future__ import annotations

import re

import pytest

from gatehouse.console_twin import Fault
from gatehouse.console_twin.settings import RetryAfterForm
from tests.drills.conftest import ThrottleBurst
from tests.drills.snapshot import assert_same_tables

pytestmark = pytest.mark.usefixtures("quick_backoff")


# Three 429s in a row for each form of Retry-After, one burst after the other in one run: the arrivals (1-based, in
# the order they reach the throttle) each form's burst answers.
BURSTS: dict[RetryAfterForm, range] = {"seconds": range(6, 9), "http-date": range(26, 29), "none": range(46, 49)}


def test_a_burst_of_429s_is_waited_out_whatever_its_retry_after(drill, reference):
    # Three 429s in a row (Retry-After: 1 s when sent), three times: the first met by the list pages, which are read
    # one after the other, so a single request may meet all three and still has attempts left. Each burst lowers the
    # client's pace, which then recovers by a share of the configured rate per window: the client's window is 1 s
    # here so that the drill takes seconds (the default 10 s window would slow this small run to most of a minute;
    # see docs/reliability.md).
    drill.twin.settings.rate_limit = (1, 1.0)  # only the 429's message reads it
    throttle = ThrottleBurst(drill.twin.settings, BURSTS)
    drill.twin.rate_limiter = throttle

    summary = drill.run(rate_limit_requests=100, rate_limit_window=1.0)

    assert throttle.met == [form for form, arrivals in BURSTS.items() for _ in arrivals], "every burst was served"
    assert summary.throttled == len(throttle.met)
    assert_same_tables(drill.snapshot(), reference)


@pytest.mark.parametrize("retry_after", ["seconds", "none"])
def test_a_rate_limit_lower_than_configured_is_adapted_to(drill, reference, retry_after):
    # The client is told 40 requests a second; the console allows 20. Each new 429 halves the
    # client's pace (AIMD) instead of failing the run, so most requests pass at the first try.
    drill.twin.settings.rate_limit = (20, 1.0)
    drill.twin.settings.retry_after = retry_after

    summary = drill.run(rate_limit_requests=40, rate_limit_window=1.0)

    statuses = [r.status for r in drill.twin.requests]
    assert 0 < statuses.count(429) < statuses.count(200) / 2, statuses
    assert summary.throttled == statuses.count(429)
    assert_same_tables(drill.snapshot(), reference)


@pytest.mark.parametrize("rate", [0.1, 0.3])
def test_server_errors_on_random_requests_are_retried(drill, reference, rate):
    # 500 with a JSON body, 502 and 503 with a load balancer's HTML page, a third of `rate` each.
    kinds = ("server_error", "bad_gateway", "unavailable")
    drill.twin.settings.faults = [Fault(kind, rate=rate / 3) for kind in kinds]
    drill.twin.settings.fault_seed = 1

    summary = drill.run()

    met = {r.fault for r in drill.twin.requests}
    assert met >= set(kinds), met
    assert summary.retries == sum(1 for r in drill.twin.requests if r.fault)
    assert_same_tables(drill.snapshot(), reference)


BROKEN_ANSWERS = ("drop", "slow", "malformed", "truncated")


def test_broken_answers_are_retried(drill, reference):
    # drop: the socket closes without an answer; slow: the answer comes after the client's timeout;
    # malformed / truncated: a 200 whose JSON body cannot be parsed. Every kind in one run, each on a tenth of the
    # requests: each answer is retried on its own, whatever the kind of the one before.
    drill.twin.settings.faults = [Fault(kind, rate=0.1) for kind in BROKEN_ANSWERS]
    drill.twin.settings.fault_seed = 30  # meets every kind, no request more than twice in a row
    drill.twin.settings.slow_seconds = 3.0

    # the slow answer needs a short timeout: with it, a connection the busy machine accepts late (a full test run on
    # two cores, a run normalising one phase while it reads the next) is one more retry than the twin's faults. A
    # timeout of 1 s let an answer the busy machine delayed time out too; 2 s stays under 3 s slow.
    summary = drill.run(timeout=2.0)

    faulted = {kind: sum(1 for r in drill.twin.requests if r.fault == kind) for kind in BROKEN_ANSWERS}
    assert all(faulted.values()), f"every kind met: {faulted}"
    assert summary.retries == sum(faulted.values()), f"one retry per broken answer: {summary.retries} for {faulted}"
    assert_same_tables(drill.snapshot(), reference)


def test_a_console_failing_everything_stops_after_two_endpoints_gave_up_with_no_thread_left_behind(
    drill, reference_path, quick_backoff, monkeypatch
):
    from collections import Counter

    from dlt.common import logger as dlt_logger

    drill.start_loaded(reference_path)  # the state a scheduled run has: the next run starts its per-id reads ahead
    drill.twin.settings.faults = [Fault("server_error", rate=1.0)]
    drill.twin.reset_requests()
    said: list[str] = []
    monkeypatch.setattr(dlt_logger, "error", lambda message, *args, **kwargs: said.append(str(message)))
    message = drill.run_failing()
    assert "(HTTP 500" in message and "gave up after 6 attempts" in message, message
    # one request at a time asks an endpoint that fails, its other ids wait for it and stop when it gave up (every
    # endpoint stops once two did: tests/client/test_retries.py): before, each of the 13 holdouts, series and runs
    # this twin's state names could spend its own 6 attempts side by side (about 100 requests; 52 to the runs alone
    # on a slow machine)
    endpoint = re.compile(r"/[^/]+(?=/cumulative_exposures$)|(?<=/holdouts)/[^/]+$|(?<=/runs)/[^/]+$")
    asked = Counter(endpoint.sub("/{id}", request.path) for request in drill.twin.requests)
    assert max(asked.values()) == 6, asked
    assert not [line for line in said if "thread pool" in line], said
