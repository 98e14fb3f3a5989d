"""The knobs of a live twin: latency, throttling, injected faults, and the request record tests assert on."""

from __future__ import annotations

import json
import time
from email.utils import parsedate_to_datetime

import httpx
import pytest

from gatehouse.console_twin import TWIN_EPOCH, ConsoleTwin, Fault, TwinSettings

LIST = "/console/v1/gates"


def test_every_request_is_recorded(twin, console):
    console.get(LIST, params={"limit": 2, "tags": ["a", "b"]})
    console.post("/console/v1/roles", json={"name": "R", "permissions": {}})
    console.get("/console/v1/gates/nope")

    first, second, third = twin.requests
    assert (first.seq, first.method, first.path, first.query) == (1, "GET", LIST, {"limit": ["2"], "tags": ["a", "b"]})
    assert first.headers["service-api-key"] == twin.settings.api_key
    assert first.status == 200 and first.fault is None
    assert (second.method, json.loads(second.body), second.status) == ("POST", {"name": "R", "permissions": {}}, 201)
    assert third.status == 404
    assert first.time <= second.time <= third.time

    twin.reset_requests()
    console.get(LIST)
    assert [r.seq for r in twin.requests] == [1]


def test_max_requests_in_window_slides_over_arrival_times(twin, console):
    for _ in range(3):
        console.get(LIST, params={"limit": 1})
    time.sleep(0.6)
    console.get(LIST, params={"limit": 1})

    assert twin.max_requests_in_window(0.5) == 3
    assert twin.max_requests_in_window(10) == 4


def test_latency_is_added_to_every_request(twin, console):
    twin.settings.latency = 0.05
    started = time.perf_counter()
    console.get(LIST, params={"limit": 1})
    assert time.perf_counter() - started >= 0.05


def test_settings_change_on_a_live_twin(twin, console):
    twin.settings.api_key = "console-rotated"
    assert console.get(LIST).status_code == 401
    assert console.get(LIST, headers={"SERVICE-API-KEY": "console-rotated"}).status_code == 200


@pytest.mark.parametrize("form", ["seconds", "http-date", "none"])
def test_throttling_answers_429_with_retry_after_in_each_form(twin, console, conforms, form):
    twin.settings.rate_limit = (5, 30.0)
    twin.settings.retry_after = form
    statuses = [console.get(LIST, params={"limit": 1}).status_code for _ in range(5)]
    throttled = conforms(console.get(LIST, params={"limit": 1}))

    assert statuses == [200] * 5
    assert throttled.status_code == 429
    assert throttled.json() == {"status": 429, "message": "Too many requests: at most 5 requests per 30 seconds"}
    if form == "seconds":
        assert 29 <= int(throttled.headers["retry-after"]) <= 30
    elif form == "http-date":
        # In the service's clock: the wait is Retry-After minus the Date header, not minus the wall clock.
        wait = parsedate_to_datetime(throttled.headers["retry-after"]) - parsedate_to_datetime(throttled.headers["date"])
        assert 29 <= wait.total_seconds() <= 30
    else:
        assert "retry-after" not in throttled.headers


def test_the_window_frees_up_and_throttled_requests_do_not_count(twin, console):
    twin.settings.rate_limit = (2, 1.0)
    assert [console.get(LIST, params={"limit": 1}).status_code for _ in range(4)] == [200, 200, 429, 429]
    time.sleep(1.05)
    assert [console.get(LIST, params={"limit": 1}).status_code for _ in range(3)] == [200, 200, 429]


GATEWAY = [
    ("server_error", 500, "application/json"),
    ("bad_gateway", 502, "text/html"),
    ("unavailable", 503, "text/html"),
]


@pytest.mark.parametrize("kind, status, content_type", GATEWAY, ids=[g[0] for g in GATEWAY])
def test_gateway_faults_answer_5xx_on_the_chosen_requests_without_acting(twin, console, kind, status, content_type):
    twin.settings.faults = [Fault(kind, on_requests={2})]
    first = console.post("/console/v1/roles", json={"name": "A", "permissions": {}})
    second = console.post("/console/v1/roles", json={"name": "B", "permissions": {}})

    assert first.status_code == 201
    assert second.status_code == status and second.headers["content-type"].startswith(content_type)
    assert "B" not in twin.organisation.roles
    assert [(r.status, r.fault) for r in twin.requests] == [(201, None), (status, kind)]


@pytest.mark.parametrize("kind, error", [("drop", httpx.RemoteProtocolError), ("slow", httpx.ReadTimeout)])
def test_lost_answers_raise_in_process_after_the_service_acted(twin, console, kind, error):
    twin.settings.faults = [Fault(kind, on_requests={1})]
    with pytest.raises(error):
        console.post("/console/v1/roles", json={"name": "Lost", "permissions": {}})

    assert "Lost" in twin.organisation.roles  # the create happened; only its answer was lost
    assert twin.requests[0].fault == kind
    assert twin.requests[0].status == (None if kind == "drop" else 201)


@pytest.mark.parametrize("kind", ["malformed", "truncated"])
def test_spoiled_bodies_cannot_be_parsed(twin, console, kind):
    twin.settings.faults = [Fault(kind, on_requests={1})]
    answer = console.get(LIST, params={"limit": 3})

    assert answer.status_code == 200
    with pytest.raises(json.JSONDecodeError):
        json.loads(answer.content)
    assert int(answer.headers["content-length"]) == len(answer.content)


def test_faults_at_a_rate_are_seeded_and_can_target_a_path():
    def faulted_requests(seed: int) -> list[int]:
        twin = ConsoleTwin("small", 0, TwinSettings(faults=[Fault("unavailable", rate=0.3, path_prefix=LIST)], fault_seed=seed))
        with httpx.Client(
            transport=twin.transport(),
            base_url="http://console.test",
            headers={"SERVICE-API-KEY": twin.settings.api_key},
        ) as client:
            for number in range(60):
                client.get(LIST if number % 2 else f"/console/v1/holdouts/{twin.holdout_ids[0]}")
        assert all(r.path == LIST for r in twin.requests if r.fault)
        return [r.seq for r in twin.requests if r.fault]

    assert faulted_requests(1) == faulted_requests(1)
    assert faulted_requests(1) != faulted_requests(2)
    assert 3 <= len(faulted_requests(1)) <= 20


def test_faults_at_a_rate_follow_the_request_and_its_retries_not_the_arrival_order():
    def faults_by_request(order: list[str]) -> dict[tuple[str, int], str | None]:
        twin = ConsoleTwin("small", 0, TwinSettings(faults=[Fault("unavailable", rate=0.5)], fault_seed=3))
        with httpx.Client(
            transport=twin.transport(),
            base_url="http://console.test",
            headers={"SERVICE-API-KEY": twin.settings.api_key},
        ) as client:
            for target in order:
                client.get(target)
        return {(f"{r.path}?{r.query}", r.repeat): r.fault for r in twin.requests}

    targets = [f"{LIST}?page={page}&limit=5" for page in range(1, 9)] * 3  # each page asked three times
    forwards, backwards = faults_by_request(targets), faults_by_request(targets[::-1])
    assert forwards == backwards
    assert sorted(repeat for _, repeat in forwards) == [1] * 8 + [2] * 8 + [3] * 8
    assert {"unavailable", None} == set(forwards.values())


def test_faults_are_checked_when_configured():
    with pytest.raises(ValueError):
        Fault("explode")
    with pytest.raises(ValueError):
        Fault("drop", rate=2)


def test_date_headers_show_the_twins_clock_not_the_wall_clock(twin, console):
    assert parsedate_to_datetime(console.get(LIST).headers["date"]) == twin.now == TWIN_EPOCH
