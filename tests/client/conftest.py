"""Offline fixtures for the console client: a fake clock and a recording mock console."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest

from gatehouse.sources.console.client import ClientOptions, ConsoleClient

BASE_URL = "https://console.test"
API_KEY = "console-Zq8vR2mK5tY7wX1pL4nB6cD9"
SCIM_TOKEN = "scim-Hk3Jd8Lw2Qp9Vx7Rt5Ny1Mz4"
DATE = "Tue, 02 Jan 2024 03:04:05 GMT"


class FakeClock:
    """A monotonic clock that moves only when someone sleeps. Thread-safe."""

    def __init__(self, start: float = 1000.0) -> None:
        self._now = start
        self._lock = threading.Lock()
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        with self._lock:
            return self._now

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.sleeps.append(seconds)
            self._now += seconds
        time.sleep(0)  # let other threads run; no real waiting

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._now += seconds


@dataclass
class Sent:
    method: str
    path: str
    params: dict[str, list[str]]
    headers: httpx.Headers
    body: Any
    url: str
    request: httpx.Request


@dataclass
class MockConsole:
    """Records every request, answers with `handler(request, sent) -> httpx.Response`."""

    handler: Callable[[httpx.Request, Sent], httpx.Response]
    sent: list[Sent] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        raw = request.read()
        record = Sent(
            method=request.method,
            path=request.url.path,
            params=parse_qs(request.url.query.decode(), keep_blank_values=True),
            headers=request.headers,
            body=json.loads(raw) if raw else None,
            url=str(request.url),
            request=request,
        )
        with self.lock:
            self.sent.append(record)
        return self.handler(request, record)

    @property
    def paths(self) -> list[str]:
        return [s.path for s in self.sent]


def answer(
    status: int = 200, body: Any = None, *, headers: dict[str, str] | None = None, raw: bytes | None = None
) -> httpx.Response:
    all_headers = {"Date": DATE, **(headers or {})}
    if raw is not None:
        return httpx.Response(status, content=raw, headers={"Content-Type": "application/json", **all_headers})
    return httpx.Response(status, json=body if body is not None else {"message": "ok", "data": {}}, headers=all_headers)


def page_answer(
    items: list[dict], page: int, *, next_page: Any = "omit", total: int | None = None, per_page: int | None = None
) -> httpx.Response:
    pagination: dict[str, Any] = {"pageNumber": page, "previousPage": None if page == 1 else f"?page={page - 1}"}
    if per_page is not None:
        pagination["itemsPerPage"] = per_page
    if total is not None:
        pagination["totalItems"] = total
    if next_page != "omit":
        pagination["nextPage"] = next_page
    return answer(200, {"message": "listed", "data": items, "pagination": pagination})


def items(*ids: Any) -> list[dict]:
    return [{"id": str(i), "name": f"item {i}"} for i in ids]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def make_client(clock: FakeClock):
    """make_client(handler, **options) -> (client, console). Jitter is fixed at 1.0 (the backoff ceiling)."""
    made: list[ConsoleClient] = []

    def factory(
        handler: Callable[[httpx.Request, Sent], httpx.Response], *, on_request: Callable | None = None, **options: Any
    ) -> tuple[ConsoleClient, MockConsole]:
        console = MockConsole(handler)
        opts = {"base_url": BASE_URL, "api_key": API_KEY, "scim_token": SCIM_TOKEN, **options}
        client = ConsoleClient(
            ClientOptions(**opts),
            transport=httpx.MockTransport(console),
            sleep=clock.sleep,
            clock=clock,
            jitter=lambda: 1.0,
            on_request=on_request,
        )
        made.append(client)
        return client, console

    yield factory
    for client in made:
        client.close()


def secret_fragments(length: int = 8) -> set[str]:
    return {s[i : i + length].lower() for s in (API_KEY, SCIM_TOKEN) for i in range(len(s) - length + 1)}


def assert_no_secret(text: str) -> None:
    lowered = text.lower()
    leaked = [f for f in secret_fragments() if f in lowered]
    assert not leaked, f"secret fragment(s) {leaked} in {text!r}"
