"""The rate limiter shared by every request of a client, from every thread.

A sliding window, counted the way the service counts: by when a request reached it, which the client
cannot see. It lies between the moment the request was sent and the moment its answer began to come
back; holding each slot until a window after the answer is safe whatever the service does, but costs
one round trip per window (at 50 ms and a 1 s window, 5% of the budget).

So the limiter learns how much of a round trip lies after the service counted: at least the shortest
round trip seen so far (every request spends at least that long on the wire and in the service's own
latency, and the service counts a request before it answers it). A finished request holds its slot
until a window after its answer, less that shortest round trip, less `RATE_LIMIT_ARRIVAL_JITTER_S` for
the difference between one request's time to be counted and another's (each 429 halves what is
credited). It is never shorter than a window after the request was sent. When the transport does not report when a
request was sent and its answer came (a mock), nothing is learned and the slot is held until a window after the answer.

Reads ahead (`acquire(background=True)`) take a slot only when no other caller waits for one: the
requests a run needs now go first, and what it will need later uses the slots they leave.

It adapts to a server whose real limit is lower than configured: a 429 lowers the limit (once
per "generation", so a burst of 429s from requests that all started under the old limit counts
as one signal) and, with `Retry-After`, blocks every caller until then. Each full window without
a 429 gives back a share of the configured rate (AIMD, as TCP does).
"""

from __future__ import annotations

import bisect
import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from gatehouse.sources.console.constants import (
    LOGGER_NAME,
    RATE_LIMIT_ARRIVAL_JITTER_S,
    RATE_LIMIT_DECREASE_FACTOR,
    RATE_LIMIT_RECOVERY_SHARE,
    RATE_LIMIT_WINDOW_MARGIN,
)

log = logging.getLogger(LOGGER_NAME)
# How soon, at the soonest, a read ahead that let another caller go first looks again for a free slot.
BACKGROUND_POLL_S = 0.005


@dataclass(frozen=True)
class Permit:
    """One granted request start: when (limiter clock), how long the caller waited, under which limit."""

    started_at: float
    waited: float
    generation: int


class SlidingWindowRateLimiter:
    def __init__(
        self,
        max_requests: int,
        window: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        min_requests: int = 1,
    ) -> None:
        if max_requests < 1 or window <= 0:
            raise ValueError("a rate limit needs max_requests >= 1 and window > 0")
        self.max_requests = max_requests
        self.window = float(window)
        # How long a finished request keeps its slot: the window plus a hair for clocks that run apart.
        self._hold = self.window * (1 + RATE_LIMIT_WINDOW_MARGIN)
        self.min_requests = max(1, min(min_requests, max_requests))
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._in_flight = 0
        self._expiries: list[float] = []  # when each finished request's slot frees, sorted
        self._waiting = 0  # callers in acquire that are not reading ahead
        # The shortest round trip seen, from the request's first byte sent to its answer's head.
        self._shortest_round_trip = math.inf
        # Widened on every 429: a service that counted a request sooner than the credit supposed.
        self._arrival_jitter = RATE_LIMIT_ARRIVAL_JITTER_S
        self._limit = max_requests
        self._blocked_until = -math.inf
        self._generation = 0
        self._last_change = clock()

    @property
    def limit(self) -> int:
        """The number of requests currently allowed per window (lowered by 429s)."""
        with self._lock:
            return self._limit

    def acquire(self, background: bool = False) -> Permit:
        """Block until a request may start; return the permit (with the time waited).

        Every acquired permit must be given back with `release` once the answer (or failure) came.
        `background`: a read ahead, which waits while any other caller waits.
        """
        first_try = self._clock()
        if not background:
            with self._lock:
                self._waiting += 1
        try:
            while True:
                with self._lock:
                    now = self._clock()
                    self._recover(now)
                    expired = bisect.bisect_right(self._expiries, now)
                    if expired:
                        del self._expiries[:expired]
                    held = self._in_flight + len(self._expiries)
                    # Another caller waiting takes the slot first; the read ahead looks again when it has.
                    yielding = background and self._waiting > 0
                    if now >= self._blocked_until and held < self._limit and not yielding:
                        self._in_flight += 1
                        return Permit(started_at=now, waited=max(0.0, now - first_try), generation=self._generation)
                    wait = self._blocked_until - now
                    if held >= self._limit:
                        finished_needed = held - self._limit + 1
                        if finished_needed <= len(self._expiries):
                            # the finished request that must leave the window before one more fits
                            wait = max(wait, self._expiries[finished_needed - 1] - now)
                        else:
                            # every slot is in flight: look again shortly, an answer frees one
                            wait = max(wait, min(self.window / 20, 0.05))
                    elif yielding:
                        # when the next slot frees (the waiting caller takes this one), at least a poll apart
                        nearest = self._expiries[0] - now if self._expiries else BACKGROUND_POLL_S
                        wait = max(wait, nearest, BACKGROUND_POLL_S)
                self._sleep(max(wait, 1e-6))
        finally:
            if not background:
                with self._lock:
                    self._waiting -= 1

    def release(self, permit: Permit, sent_at: float | None = None, answered_at: float | None = None) -> None:
        """The request of `permit` got its answer (or failed): its slot is held for a window from now, less
        what the shortest round trip shows lay after the service counted it.

        `sent_at`, `answered_at`: when its first byte was sent and its answer's head came (limiter clock), if
        the transport told; the round trip between them teaches the limiter."""
        with self._lock:
            now = self._clock()
            self._in_flight = max(0, self._in_flight - 1)
            if sent_at is not None and answered_at is not None and sent_at <= answered_at <= now:
                self._shortest_round_trip = min(self._shortest_round_trip, answered_at - sent_at)
                after_count = max(0.0, self._shortest_round_trip - self._arrival_jitter)
                # Never before a window after it was sent: it cannot have been counted earlier than that.
                expiry = max(answered_at - after_count, sent_at) + self._hold
            else:
                expiry = now + self._hold
            bisect.insort(self._expiries, expiry)

    def on_throttled(self, permit: Permit | None, retry_after: float | None = None) -> None:
        """A request got 429: slow everyone down, and hold everyone until `Retry-After`."""
        with self._lock:
            now = self._clock()
            if retry_after is not None and retry_after > 0:
                self._blocked_until = max(self._blocked_until, now + retry_after)
            if permit is None or permit.generation == self._generation:
                # The credit for time after the service counted may have been too generous: halve it.
                if math.isfinite(self._shortest_round_trip):
                    self._arrival_jitter += max(0.0, self._shortest_round_trip - self._arrival_jitter) / 2
                new_limit = max(self.min_requests, int(self._limit * RATE_LIMIT_DECREASE_FACTOR))
                if new_limit != self._limit:
                    log.warning(
                        "console throttled (HTTP 429): pacing lowered from %d to %d requests per %.0f s",
                        self._limit,
                        new_limit,
                        self.window,
                    )
                self._limit = new_limit
                self._generation += 1
                self._last_change = now

    def _recover(self, now: float) -> None:
        if self._limit >= self.max_requests:
            self._last_change = now
            return
        windows = int((now - self._last_change) // self.window)
        if windows > 0:
            step = max(1, int(self.max_requests * RATE_LIMIT_RECOVERY_SHARE))
            self._limit = min(self.max_requests, self._limit + windows * step)
            self._last_change += windows * self.window
