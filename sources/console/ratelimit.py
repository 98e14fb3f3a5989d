"""The rate limiter shared by every request of a client, from every thread.

A sliding window: at most `limit` requests start in any `window` seconds (each start holds
its slot a small margin longer, see RATE_LIMIT_WINDOW_MARGIN). It adapts to a server whose
real limit is lower than configured: a 429 lowers the limit (once per
"generation", so a burst of 429s from requests that all started under the old limit
counts as one signal) and, with `Retry-After`, blocks every caller until then. Each full
window without a 429 gives back a small share of the configured rate, so the limit
recovers slowly towards the configured one (AIMD, as TCP does).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Callable

from sources.console.settings import (
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
        # How long a start holds its slot: the window plus the arrival-jitter margin.
        self._hold = self.window * (1 + RATE_LIMIT_WINDOW_MARGIN)
        self.min_requests = max(1, min(min_requests, max_requests))
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._starts: deque[float] = deque()
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
        """Block until a request may start; return the permit (with the time waited)."""
        first_try = self._clock()
        while True:
            with self._lock:
                now = self._clock()
                self._recover(now)
                while self._starts and self._starts[0] <= now - self._hold:
                    self._starts.popleft()
                if now >= self._blocked_until and len(self._starts) < self._limit:
                    self._starts.append(now)
                    return Permit(started_at=now, waited=max(0.0, now - first_try), generation=self._generation)
                wait = self._blocked_until - now
                if len(self._starts) >= self._limit:
                    # the oldest start that must leave the window before one more fits
                    expiring = self._starts[len(self._starts) - self._limit]
                    wait = max(wait, expiring + self._hold - now)
            self._sleep(max(wait, 1e-6))

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
