"""What the twin remembers of its traffic: every request as it arrived, and the throttle's window."""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass


@dataclass
class RecordedRequest:
    seq: int  # 1-based, counted since the twin started or since reset_requests()
    time: float  # time.monotonic() at arrival
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]  # lower-case names
    body: bytes
    status: int | None = None  # None: no answer was sent (a dropped connection) or none yet
    fault: str | None = None  # the injected fault, if any
    repeat: int = 1  # how many times this method, path and query have arrived, this one included

    @property
    def identity(self) -> str:
        """The request as a client would name it: the same for its retries, whatever order threads send in."""
        query = "&".join(f"{name}={value}" for name in sorted(self.query) for value in self.query[name])
        return f"{self.method} {self.path}?{query}"


class RequestLog:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._records: list[RecordedRequest] = []
        self._seen: dict[str, int] = {}

    def arrive(
        self, method: str, path: str, query: dict[str, list[str]], headers: dict[str, str], body: bytes
    ) -> RecordedRequest:
        with self._lock:
            record = RecordedRequest(len(self._records) + 1, time.monotonic(), method, path, query, headers, body)
            record.repeat = self._seen[record.identity] = self._seen.get(record.identity, 0) + 1
            self._records.append(record)
            return record

    def records(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._records)

    def reset(self) -> None:
        with self._lock:
            self._records = []
            self._seen = {}

    def max_in_window(self, seconds: float) -> int:
        """The most requests that arrived within any `seconds`-long sliding window."""
        arrivals = sorted(record.time for record in self.records())
        most, first = 0, 0
        for last, arrived in enumerate(arrivals):
            while arrived - arrivals[first] >= seconds:
                first += 1
            most = max(most, last - first + 1)
        return most


class RateLimiter:
    """A sliding window over the requests it let through; throttled requests do not count."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._admitted: deque[float] = deque()

    def admit(self, limit: tuple[int, float] | None) -> float | None:
        """None if the request may pass, else the seconds until the window has room again."""
        if limit is None:
            return None
        requests, window = limit
        now = time.monotonic()
        with self._lock:
            while self._admitted and now - self._admitted[0] >= window:
                self._admitted.popleft()
            if len(self._admitted) >= requests:
                return self._admitted[0] + window - now
            self._admitted.append(now)
            return None
