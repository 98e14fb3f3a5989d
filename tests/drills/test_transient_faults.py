"""Throttling and flaky networks: the client absorbs them and the load is exactly the fault-free one."""

from __future__ import annotations

import pytest

from console_twin import Fault
from tests.drills.snapshot import assert_same_tables

# The twin's throttle: a burst of this many requests per second, then 429s until the window has room.
# Its Retry-After is whole seconds (1 here), so a throttled run waits about a second per burst.
TWIN_RATE_LIMIT = (8, 1.0)


@pytest.mark.parametrize("retry_after", ["seconds", "http-date", "none"])
def test_429_bursts_are_waited_out(drill, reference, retry_after):
    drill.twin.settings.rate_limit = TWIN_RATE_LIMIT
    drill.twin.settings.retry_after = retry_after

    summary = drill.run()

    assert summary.throttled > 0, "the drill should have met 429s"
    assert_same_tables(drill.snapshot(), reference)


def test_a_rate_limit_lower_than_configured_is_adapted_to(drill, reference):
    # The client is told 30 requests a second; the console allows 8. It halves its pace on each new
    # 429 (AIMD) instead of failing, so only a few requests are throttled.
    drill.twin.settings.rate_limit = TWIN_RATE_LIMIT
    summary = drill.run(rate_limit_requests=30, rate_limit_window=1.0)

    assert 0 < summary.throttled < summary.requests / 4, summary
    assert_same_tables(drill.snapshot(), reference)


@pytest.mark.parametrize("rate", [0.1, 0.3])
@pytest.mark.parametrize("kind", ["server_error", "bad_gateway", "unavailable"])
def test_server_errors_on_random_requests_are_retried(drill, reference, kind, rate):
    drill.twin.settings.faults = [Fault(kind, rate=rate)]
    drill.twin.settings.fault_seed = 1

    summary = drill.run()

    assert summary.retries > 0
    assert_same_tables(drill.snapshot(), reference)


# timeout: the client's per-request timeout (s); a `slow` answer is held longer than that.
@pytest.mark.parametrize("kind", ["drop", "slow", "malformed", "truncated"])
def test_broken_answers_are_retried(drill, reference, kind):
    drill.twin.settings.faults = [Fault(kind, rate=0.1)]
    drill.twin.settings.fault_seed = 2
    drill.twin.settings.slow_seconds = 1.0

    summary = drill.run(timeout=0.5)

    faulted = [r for r in drill.twin.requests if r.fault == kind]
    assert faulted and summary.retries >= len(faulted)
    assert_same_tables(drill.snapshot(), reference)
