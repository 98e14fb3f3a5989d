"""The rate limiter shared by every request of a client, from every thread.

A sliding window, counted the way the service counts: a request holds its slot from the moment
it starts until `window` seconds after its answer arrived. The service counts a request when it
arrives, somewhere between the two, so however late a request arrives (thread scheduling, the
GIL, the network), no window of the service ever sees more than `limit` of ours. Holding the slot
through the answer costs the latency once per window: 50 ms on a 10 s window is 0.5%.

It adapts to a server whose real limit is lower than configured: a 429 lowers the limit (once
per "generation", so a burst of 429s from requests that all started under the old limit counts
as one signal) and, with `Retry-After`, blocks every caller until then. Each full window without
a 429 gives back a share of the configured rate (AIMD, as TCP does).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Callable

from gatehouse.sources.console.settings import (
    LOGGER_NAME,
    RATE_LIMIT_DECREASE_FACTOR,
    RATE_LIMIT_RECOVERY_SHARE,
    RATE_LIMIT_WINDOW_MARGIN,
)

log = logging.getLogger(LOGGER_NAME)


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
        # How long a finished request keeps its slot: the window plus a hair for clock granularity.
        self._hold = self.window * (1 + RATE_LIMIT_WINDOW_MARGIN)
        self.min_requests = max(1, min(min_requests, max_requests))
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._in_flight = 0
        self._finished: deque[float] = deque()  # answer times, in order
        self._limit = max_requests
        self._blocked_until = -math.inf
        self._generation = 0
        self._last_change = clock()

    @property
    def limit(self) -> int:
        """The number of requests currently allowed per window (lowered by 429s)."""
        with self._lock:
            return self._limit

    def acquire(self) -> Permit:
        """Block until a request may start; return the permit (with the time waited).

        Every acquired permit must be given back with `release` once the answer (or failure) came.
        """
        first_try = self._clock()
        while True:
            with self._lock:
                now = self._clock()
                self._recover(now)
                while self._finished and self._finished[0] <= now - self._hold:
                    self._finished.popleft()
                held = self._in_flight + len(self._finished)
                if now >= self._blocked_until and held < self._limit:
                    self._in_flight += 1
                    return Permit(started_at=now, waited=max(0.0, now - first_try), generation=self._generation)
                wait = self._blocked_until - now
                if held >= self._limit:
                    finished_needed = held - self._limit + 1
                    if finished_needed <= len(self._finished):
                        # the finished request that must leave the window before one more fits
                        wait = max(wait, self._finished[finished_needed - 1] + self._hold - now)
                    else:
                        # every slot is in flight: look again shortly, an answer frees one
                        wait = max(wait, min(self.window / 20, 0.05))
            self._sleep(max(wait, 1e-6))

    def release(self, permit: Permit) -> None:
        """The request of `permit` got its answer (or failed): its slot counts from now on for a window."""
        with self._lock:
            self._in_flight = max(0, self._in_flight - 1)
            self._finished.append(self._clock())

    def on_throttled(self, permit: Permit | None, retry_after: float | None = None) -> None:
        """A request got 429: slow everyone down, and hold everyone until `Retry-After`."""
        with self._lock:
            now = self._clock()
            if retry_after is not None and retry_after > 0:
                self._blocked_until = max(self._blocked_until, now + retry_after)
            if permit is None or permit.generation == self._generation:
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
