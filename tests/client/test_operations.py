"""Exactly what each of the 13 operations sends: method, path, query, headers, body; dry runs; stats."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, NamedTuple

import pytest

from gatehouse.sources.console.client import PreparedRequest, RequestEvent, WriteResult
from tests.client.conftest import API_KEY, BASE_URL, SCIM_TOKEN, answer, assert_no_secret

PIPELINE = {
    "name": "Pipeline 1",
    "phases": [
        {
            "name": "Phase 1",
            "timeIntervalMs": 3600000,
            "requiredReview": False,
            "rules": [{"name": "everyone", "conditions": [{"type": "public"}], "environments": ["production"]}],
        }
    ],
    "triggerNotice": None,
}
PERMISSIONS = {"create_configs": True, "launch_to_production": False}
WH = {"snowflake": {"accountName": "acme", "stagingSchemaName": "gatehouse", "privateKey": None}}
SCIM = {
    "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
    "Operations": [{"op": "replace", "path": "members", "value": [{"value": "u1", "display": "Ada"}]}],
}
LIST_BODY = {"message": "listed", "data": [{"id": "x", "name": "x"}], "pagination": {"pageNumber": 1, "nextPage": None}}
FIRST_PAGE = {"page": ["1"], "limit": ["2000"]}


def holding(data: Any) -> dict[str, Any]:
    """The console's answer body with `data`."""
    return {"message": "m", "data": data}


class Request(NamedTuple):
    """What an operation must send."""

    method: str
    path: str
    query: dict[str, list[str]] = {}
    body: Any = None


class Operation(NamedTuple):
    """An operation, the request it must send and the body the console answers (None: SCIM's empty body). A write's
    `call` takes `dry_run=True` on to the client, so the dry run is the same call."""

    name: str
    call: Callable[..., Any]
    sends: Request
    reply: dict[str, Any] | None


def read(name: str, call: Callable[..., Any], path: str, data: Any) -> Operation:
    """A single read: a GET answered with `data`."""
    return Operation(name, call, Request("GET", path), holding(data))


def listed(name: str, call: Callable[..., Any], path: str, filters: dict[str, list[str]]) -> Operation:
    """A list read: a GET of the first page, its filters beside it in the query, answered with a page."""
    return Operation(name, call, Request("GET", path, {**filters, **FIRST_PAGE}), LIST_BODY)


OPERATIONS = [
    read("get_gate", lambda c: c.get_gate("g/1"), "/console/v1/gates/g%2F1", {"id": "g/1"}),
    listed("list_gates", lambda c: list(c.list_gates(type="STALE")), "/console/v1/gates", {"type": ["STALE"]}),
    read("get_holdout", lambda c: c.get_holdout("h1"), "/console/v1/holdouts/h1", {"id": "h1"}),
    listed(
        "list_dynamic_configs",
        lambda c: list(c.list_dynamic_configs(creatorName="Ada Lovelace")),
        "/console/v1/dynamic_configs",
        {"creatorName": ["Ada Lovelace"]},
    ),
    Operation(
        "unarchive_dynamic_config",
        lambda c, **dry: c.unarchive_dynamic_config("c1", "needed again", **dry),
        Request("PUT", "/console/v1/dynamic_configs/c1/unarchive", body={"unarchiveReason": "needed again"}),
        holding({"id": "c1"}),
    ),
    Operation(
        "create_release_pipeline",
        lambda c, **dry: c.create_release_pipeline(PIPELINE, **dry),
        Request("POST", "/console/v1/release_pipelines", body=PIPELINE),
        holding({"id": "rp"}),
    ),
    Operation(
        "update_release_pipeline",
        lambda c, **dry: c.update_release_pipeline("rp", PIPELINE, **dry),
        Request("POST", "/console/v1/release_pipelines/rp", body=PIPELINE),
        holding({"id": "rp"}),
    ),
    listed("list_qualifying_events", lambda c: list(c.list_qualifying_events()), "/console/v1/experiments/qualifying_events", {}),
    read(
        "get_cumulative_exposures",
        lambda c: c.get_cumulative_exposures("e1"),
        "/console/v1/experiments/e1/cumulative_exposures",
        [{"groupID": "g"}],
    ),
    read("get_ingestion_run", lambda c: c.get_ingestion_run("r1"), "/console/v1/ingestion/runs/r1", {"runID": "r1"}),
    Operation(
        "create_role",
        lambda c, **dry: c.create_role("Viewer", PERMISSIONS, **dry),
        Request("POST", "/console/v1/roles", body={"name": "Viewer", "permissions": PERMISSIONS}),
        holding({"name": "Viewer"}),
    ),
    Operation(
        "update_wh_connection",
        lambda c, **dry: c.update_wh_connection(WH, **dry),
        Request("PATCH", "/console/v1/wh_connections", body=WH),
        {"message": "Connection updated successfully"},
    ),
    Operation(
        "patch_scim_group",
        lambda c, **dry: c.patch_scim_group("grp1", SCIM, **dry),
        Request("PATCH", "/scim/Groups/grp1", body=SCIM),
        None,
    ),
]
IDS = [op.name for op in OPERATIONS]


def test_thirteen_operations_are_covered():
    assert len(OPERATIONS) == 13


@pytest.mark.parametrize("name, call, sends, reply", OPERATIONS, ids=IDS)
@pytest.mark.parametrize("respect_review", [False, True], ids=["plain", "respect-review"])
def test_each_operation_sends_exactly_this(make_client, name, call, sends, reply, respect_review):
    def handler(request, sent):
        if reply is None:
            return answer(200, raw=b"")  # SCIM answers 200 without a documented body
        return answer(201 if name == "create_role" else 200, reply)

    method, path, query, body = sends
    client, console = make_client(handler, respect_review_settings=respect_review)
    result = call(client)

    assert len(console.sent) == 1
    sent = console.sent[0]
    assert (sent.method, sent.url.split("?")[0], sent.params, sent.body) == (method, f"{BASE_URL}{path}", query, body)
    if path.startswith("/scim/"):
        assert sent.headers["Authorization"] == f"Bearer {SCIM_TOKEN}"
        assert "SERVICE-API-KEY" not in sent.headers
        assert "x-respect-review-settings" not in sent.headers
    else:
        assert sent.headers["SERVICE-API-KEY"] == API_KEY
        assert "Authorization" not in sent.headers
        assert sent.headers.get("x-respect-review-settings") == ("true" if respect_review else None)
    if body is not None:
        assert sent.headers["Content-Type"] == "application/json"
    if isinstance(result, WriteResult):
        assert result.status == (201 if name == "create_role" else 200)
        assert result.message == (reply or {}).get("message")


def test_unarchive_without_reason_sends_an_empty_object(make_client):
    client, console = make_client(lambda request, sent: answer(200, holding({"id": "c1"})))
    result = client.unarchive_dynamic_config("c1")
    assert console.sent[0].body == {}
    assert result == WriteResult(200, "m", {"id": "c1"})


WRITES = [op for op in OPERATIONS if op.sends.method != "GET"]


@pytest.mark.parametrize("name, call, sends, reply", WRITES, ids=[op.name for op in WRITES])
def test_dry_run_sends_nothing_and_shows_the_request_without_secrets(make_client, name, call, sends, reply):
    method, path, _, body = sends
    client, console = make_client(lambda request, sent: answer())
    prepared = call(client, dry_run=True)

    assert console.sent == []
    assert isinstance(prepared, PreparedRequest)
    assert (prepared.method, prepared.url, prepared.path, prepared.body) == (method, f"{BASE_URL}{path}", path, body)
    secret_header = "Authorization" if path.startswith("/scim/") else "SERVICE-API-KEY"
    assert prepared.headers[secret_header] == "***"
    assert prepared.headers["Content-Type"] == "application/json"
    assert_no_secret(repr(prepared))
    assert client.stats.snapshot()["requests"] == 0


def test_stats_count_requests_retries_and_endpoint_templates(make_client, clock):
    events: list[RequestEvent] = []
    calls = {"n": 0}

    def handler(request, sent):
        calls["n"] += 1
        if calls["n"] == 1:
            return answer(503, {"status": 503, "message": "x"})
        return answer(200, holding({"id": "x"}))

    client, _ = make_client(handler, on_request=events.append)
    client.get_holdout("h1")
    client.get_holdout("h2")
    client.get_gate("g1")

    assert client.stats.snapshot() == {
        "requests": 4,
        "retries": 1,
        "throttled": 0,
        "throttle_wait_s": 0.0,
        "by_endpoint": {"/console/v1/holdouts/{id}": 3, "/console/v1/gates/{id}": 1},
        "retries_by_endpoint": {"/console/v1/holdouts/{id}": 1},
    }
    assert [(e.endpoint, e.status, e.attempt) for e in events] == [
        ("/console/v1/holdouts/{id}", 503, 1),
        ("/console/v1/holdouts/{id}", 200, 2),
        ("/console/v1/holdouts/{id}", 200, 1),
        ("/console/v1/gates/{id}", 200, 1),
    ]


def test_a_failing_progress_hook_does_not_fail_the_request(make_client):
    client, _ = make_client(lambda request, sent: answer(200, holding({"id": "x"})), on_request=lambda event: 1 / 0)
    assert client.get_gate("x") == {"id": "x"}


def test_server_time_comes_from_the_last_date_header(make_client):
    dates = iter(["Mon, 01 Jan 2024 00:00:00 GMT", "Wed, 03 Jan 2024 12:30:00 GMT"])
    client, _ = make_client(lambda request, sent: answer(200, holding({"id": "x"}), headers={"Date": next(dates)}))
    assert client.server_time is None
    client.get_gate("a")
    client.get_gate("b")
    assert client.server_time == datetime(2024, 1, 3, 12, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda c: c.get_gate("g1"), "an object"),
        (lambda c: c.get_cumulative_exposures("e1"), "an array"),
    ],
)
def test_unexpected_data_shape_is_a_transport_error(make_client, call, expected):
    from gatehouse.sources.console.errors import TransportError

    client, _ = make_client(lambda request, sent: answer(200, holding("surprise")))
    with pytest.raises(TransportError, match=expected):
        call(client)


def test_redirects_are_not_followed(make_client):
    from gatehouse.sources.console.errors import ConsoleError

    client, console = make_client(
        lambda request, sent: answer(302, {"status": 302, "message": "moved"}, headers={"Location": "https://evil.example/"})
    )
    with pytest.raises(ConsoleError, match="unexpected HTTP 302"):
        client.get_gate("g1")
    assert len(console.sent) == 1


@pytest.mark.parametrize("path", ["https://evil.example/console/v1/gates", "//evil.example/x", "console/v1/gates"])
def test_paginate_refuses_paths_that_could_leave_the_base_url(make_client, path):
    from gatehouse.sources.console.errors import ConfigurationError

    client, console = make_client(lambda request, sent: answer())
    with pytest.raises(ConfigurationError):
        list(client.paginate(path))
    assert console.sent == []


@pytest.mark.parametrize(
    "call, path",
    [
        (lambda c: c.get_gate(".."), "/console/v1/gates/%2E%2E"),
        (lambda c: c.get_holdout("."), "/console/v1/holdouts/%2E"),
        (lambda c: c.get_cumulative_exposures(".."), "/console/v1/experiments/%2E%2E/cumulative_exposures"),
        (lambda c: c.get_ingestion_run("..."), "/console/v1/ingestion/runs/..."),
        (lambda c: c.get_gate("a..b"), "/console/v1/gates/a..b"),
    ],
    ids=["gate-dotdot", "holdout-dot", "exposures-dotdot", "three-dots", "dots-inside"],
)
def test_an_id_that_is_a_dot_segment_is_sent_as_an_id(make_client, call, path):
    """`..` sent as it is would be normalised away: GET /gates/.. would ask for /console/v1 instead."""
    client, console = make_client(
        lambda request, sent: answer(200, holding({"id": "x"} if "exposures" not in request.url.path else []))
    )
    call(client)
    assert console.sent[0].request.url.raw_path.decode() == path


def test_data_null_on_a_single_read_is_not_found_and_on_a_series_is_empty(make_client):
    from gatehouse.sources.console.errors import NotFoundError

    client, console = make_client(lambda request, sent: answer(200, holding(None)))
    with pytest.raises(NotFoundError, match="gate 'g1' not found"):
        client.get_gate("g1")
    with pytest.raises(NotFoundError, match="holdout 'h1' not found"):
        client.get_holdout("h1")
    assert client.get_cumulative_exposures("e1") == []
    assert len(console.sent) == 3  # an answer, not a fault: nothing retried


def test_an_update_answered_2xx_with_a_body_that_is_not_json_is_sent_once_and_accepted(make_client):
    # SCIM's answer body is not documented: "OK" as text is a success, and sending the patch again would repeat it.
    client, console = make_client(lambda request, sent: answer(200, raw=b"OK"))
    assert client.patch_scim_group("grp1", SCIM) == WriteResult(200, None, None)
    assert client.unarchive_dynamic_config("c1") == WriteResult(200, None, None)
    assert [s.method for s in console.sent] == ["PATCH", "PUT"]
