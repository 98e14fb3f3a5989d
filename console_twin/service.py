"""The console's HTTP behaviour, independent of how a request arrives (in-process transport or loopback).

One request goes through: record -> latency -> gateway faults -> route -> throttle -> authenticate ->
operation (under the organisation's lock) -> body faults. Everything answers the service's envelope
`{message, data, pagination?}` or its error body `{status, message, errors?}`. A list page's answer says
which page it was (`Answer.page_served`); the twin then calls the after-page hook, handing it itself.

The service is given what it works with (organisation, clock, settings, request log, throttle, lock) and
knows nothing of the twin that composes them.
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
import math
import random
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from email.utils import format_datetime
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode

from gatehouse.console_twin import bodies
from gatehouse.console_twin.clock import Clock
from gatehouse.console_twin.gates import pass_rate, rollout_rate
from gatehouse.console_twin.generator import base62_id
from gatehouse.console_twin.organisation import ROLE_PERMISSIONS_ANSWERED_ONLY_WHEN_SENT, Organisation
from gatehouse.console_twin.settings import TwinSettings
from gatehouse.console_twin.traffic import RateLimiter, RecordedRequest, RequestLog
from gatehouse.contract import GATE_TYPE_REASONS, GATE_TYPES, RATE_FILTERS, ROLE_PERMISSION_FLAGS

log = logging.getLogger("console_twin")

JSON = "application/json; charset=utf-8"
API = "/console/v1"
DEFAULT_PAGE_SIZE = 100
INVALID_REQUEST = "Invalid request. Please check the request input and try again."
FORBIDDEN = "Forbidden resource"
# PATCH /wh_connections documents a longer text for its 403.
FORBIDDEN_WAREHOUSE = (
    "Forbidden. The request was valid, but the server is refusing action. "
    "You might not have the necessary permissions to access the resource."
)
INVALID_KEY = "This endpoint only accepts an active CONSOLE key, but an invalid key was sent. Key: {key}"
GATEWAY_FAULTS = {"server_error": 500, "bad_gateway": 502, "unavailable": 503}
# What a load balancer sends when the service behind it fails: a page, not JSON.
GATEWAY_PAGES = {
    502: b"<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>",
    503: b"<html><head><title>503 Service Temporarily Unavailable</title></head>"
    b"<body><h1>503 Service Temporarily Unavailable</h1></body></html>",
}
SINGLE_VALUED = ("page", "limit")
ALPHANUMERIC = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


@dataclass
class Answer:
    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": JSON})
    fault: str | None = None  # "drop" or "slow": for the transport to act out
    page_served: tuple[str, int, int, int] | None = None  # (endpoint, page, limit, items) of a list page


class ServiceFailure(Exception):
    """An error answer: `{status, message, errors?}`."""

    def __init__(self, status: int, message: str, errors: list[dict] | None = None, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status, self.message, self.errors, self.headers = status, message, errors, headers or {}

    def answer(self) -> Answer:
        payload: dict = {"status": self.status, "message": self.message}
        if self.errors:
            payload["errors"] = self.errors
        return Answer(self.status, encode(payload), {"Content-Type": JSON, **self.headers})


def encode(payload: object) -> bytes:
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()


def derived_id(*parts: str) -> str:
    """A stable 22-character id from its owner's: a pipeline's phases keep their ids across equal updates."""
    number = int.from_bytes(hashlib.sha256(":".join(parts).encode()).digest(), "big")
    return "".join(ALPHANUMERIC[(number >> (8 * i)) % 62] for i in range(22))


@dataclass
class Call:
    method: str
    path: str
    params: dict[str, str]
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes

    def json_body(self) -> Any:  # any JSON: each operation validates it (bodies.*_errors) before reading it
        if not self.body.strip():
            return None
        try:
            return json.loads(self.body)
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            raise ServiceFailure(400, "Malformed JSON in request body", [bodies.field_error("body", str(err))]) from None

    def values(self, name: str) -> list[str]:
        """A filter's values, repeated or single; empty values count as not given."""
        return [value for value in self.query.get(name, []) if value != ""]


@dataclass(frozen=True)
class Route:
    method: str
    pattern: re.Pattern
    operation: str
    auth: str  # "console", "scim" or "admin"


def _route(method: str, path: str, operation: str, auth: str = "console") -> Route:
    return Route(method, re.compile("^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", path) + "$"), operation, auth)


ROUTES: tuple[Route, ...] = (
    _route("GET", f"{API}/gates", "list_gates"),
    _route("GET", f"{API}/gates/{{id}}", "read_gate"),
    _route("GET", f"{API}/holdouts/{{id}}", "read_holdout"),
    _route("GET", f"{API}/dynamic_configs", "list_dynamic_configs"),
    _route("PUT", f"{API}/dynamic_configs/{{id}}/unarchive", "unarchive_dynamic_config"),
    _route("POST", f"{API}/release_pipelines", "create_release_pipeline"),
    _route("POST", f"{API}/release_pipelines/{{id}}", "update_release_pipeline"),
    _route("GET", f"{API}/experiments/qualifying_events", "list_qualifying_events"),
    _route("GET", f"{API}/experiments/{{id}}/cumulative_exposures", "read_cumulative_exposures"),
    _route("GET", f"{API}/ingestion/runs/{{id}}", "read_ingestion_run"),
    _route("POST", f"{API}/roles", "create_role"),
    _route("PATCH", f"{API}/wh_connections", "update_warehouse_connection"),
    _route("PATCH", "/scim/Groups/{id}", "patch_scim_group", auth="scim"),
    _route("POST", "/_twin/advance", "advance_clock", auth="admin"),
)

GATE_ENUM_FILTERS = {
    "type": GATE_TYPES,
    "typeReason": GATE_TYPE_REASONS,
    "passRate": RATE_FILTERS,
    "rolloutRate": RATE_FILTERS,
}


class ConsoleService:
    def __init__(
        self,
        *,
        organisation: Organisation,
        clock: Clock,
        settings: TwinSettings,
        request_log: RequestLog,
        rate_limiter: RateLimiter,
        lock: threading.RLock,
        write_ids: random.Random,
    ) -> None:
        self.organisation = organisation
        self.clock = clock
        # A live twin may replace `settings` and `rate_limiter` (it sets them here): both are read again
        # on each request.
        self.settings = settings
        self.rate_limiter = rate_limiter
        self.request_log = request_log
        self.lock = lock
        # Ids of entities created through the API: deterministic for a given sequence of writes.
        self._write_ids = write_ids

    # --- one request -------------------------------------------------------------------------------
    def handle(self, method: str, target: str, headers: dict[str, str], body: bytes) -> Answer:
        path, _, query_string = target.partition("?")
        query = parse_qs(query_string, keep_blank_values=True)
        record = self.request_log.arrive(method, path, query, headers, body)
        settings = self.settings
        if settings.latency:
            time.sleep(settings.latency)
        fault = self._fault_for(settings, record)
        if fault in GATEWAY_FAULTS:
            answer = self._gateway_error(GATEWAY_FAULTS[fault])
        else:
            answer = self._serve(settings, method, path, query, headers, body)
            if fault in ("malformed", "truncated"):
                answer.body = _spoil(answer.body, fault)
            elif fault in ("drop", "slow"):
                answer.fault = fault
        record.status = None if fault == "drop" else answer.status
        record.fault = fault
        log.debug("%s %s -> %s%s", method, target, record.status, f" ({fault})" if fault else "")
        return answer

    def _serve(self, settings: TwinSettings, method: str, path: str, query: dict, headers: dict, body: bytes) -> Answer:
        try:
            route, params = _match(method, path)
            if route is None or (route.auth == "admin" and not settings.admin):
                raise ServiceFailure(404, f"Cannot {method} {path}")
            # The throttle guards the service's routes, before the key is looked at; the admin path is the
            # harness's, not a client's, and is never throttled.
            if route.auth != "admin" and (wait := self.rate_limiter.admit(settings.rate_limit)) is not None:
                raise self._throttled(settings, wait)
            self._authenticate(settings, route, headers)
            call = Call(method, path, {k: unquote(v) for k, v in params.items()}, query, headers, body)
            with self.lock:
                return getattr(self, route.operation)(call)
        except ServiceFailure as failure:
            return failure.answer()

    def _fault_for(self, settings: TwinSettings, record: RecordedRequest) -> str | None:
        for index, fault in enumerate(settings.faults):
            if fault.path_prefix and not record.path.startswith(fault.path_prefix):
                continue
            if fault.path_suffix and not record.path.endswith(fault.path_suffix):
                continue
            if record.seq in fault.on_requests:
                return fault.kind
            # One draw per (seed, request, how many times it came, fault), never per arrival number: the
            # same requests and retries meet the same faults in whatever order a client's threads send them.
            draw = random.Random(f"{settings.fault_seed}:{record.identity}:{record.repeat}:{index}")
            if fault.rate and draw.random() < fault.rate:
                return fault.kind
        return None

    def _gateway_error(self, status: int) -> Answer:
        if status in GATEWAY_PAGES:
            return Answer(status, GATEWAY_PAGES[status], {"Content-Type": "text/html"})
        return ServiceFailure(status, "Internal server error").answer()

    def _throttled(self, settings: TwinSettings, wait: float) -> ServiceFailure:
        assert settings.rate_limit is not None  # only a rate-limited twin throttles
        requests, window = settings.rate_limit
        seconds = max(1, math.ceil(wait))
        headers = {}
        if settings.retry_after == "seconds":
            headers["Retry-After"] = str(seconds)
        elif settings.retry_after == "http-date":
            # In the service's own clock, the one its Date header shows.
            headers["Retry-After"] = format_datetime(self.clock.now + timedelta(seconds=seconds), usegmt=True)
        message = f"Too many requests: at most {requests} requests per {window:g} seconds"
        return ServiceFailure(429, message, headers=headers)

    def _authenticate(self, settings: TwinSettings, route: Route, headers: dict[str, str]) -> None:
        if route.auth == "console":
            key = headers.get("service-api-key")
            if key is not None and key in settings.forbidden_keys:
                raise ServiceFailure(403, FORBIDDEN_WAREHOUSE if route.operation == "update_warehouse_connection" else FORBIDDEN)
            if key != settings.api_key:
                # Production quotes the key it was sent; a client must never log this text unredacted.
                raise ServiceFailure(401, INVALID_KEY.format(key="undefined" if key is None else key))
        elif route.auth == "scim" and headers.get("authorization") != f"Bearer {settings.scim_token}":
            raise ServiceFailure(401, "Unauthorized: a valid SCIM bearer token is required")

    # --- lists ---------------------------------------------------------------------------------------
    def _page(self, call: Call, endpoint: str, items: list[dict], page: int, limit: int) -> Answer:
        settings = self.settings
        if settings.max_limit is not None:
            limit = min(limit, settings.max_limit)
        style = settings.pagination_for(endpoint)
        if settings.unlisted:
            items = [item for item in items if item.get("id") not in settings.unlisted]
        # an empty page inserted at `empty_page`: the items it would hold move one page on
        shifted = style.empty_page is not None and page > style.empty_page
        start = (page - 1 - shifted) * limit
        served = [] if page == style.empty_page else [self._shaped(endpoint, item) for item in items[start : start + limit]]
        if page == style.short_page:
            served = served[1:]
        pagination: dict = {"itemsPerPage": limit, "pageNumber": page}
        if style.total_items:
            pagination["totalItems"] = len(items) + style.total_items_offset
        if style.next_page == "stuck":
            pagination["nextPage"] = self._link(call, style.next_page, page, limit)
        elif style.next_page == "back" and page >= 2:
            pagination["nextPage"] = self._link(call, style.next_page, 1, limit)  # back to the first page
        else:
            more = start + limit < len(items) or page == style.empty_page
            pagination["nextPage"] = self._link(call, style.next_page, page + 1, limit) if more else None
        pagination["previousPage"] = self._link(call, style.next_page, page - 1, limit) if page > 1 else None
        pagination["all"] = "" if style.all == "empty" else call.path
        message = {
            "gates": "Gates listed successfully.",
            "dynamic_configs": "Dynamic Configs listed successfully.",
            "qualifying_events": "Qualifying events listed successfully.",
        }[endpoint]
        envelope: dict[str, Any] = {"message": message, "data": None if page == style.null_data_page else served}
        if page == style.missing_data_page:
            del envelope["data"]
        if not style.omitted:
            envelope["pagination"] = pagination
        answer = Answer(200, encode(envelope))
        answer.page_served = (endpoint, page, limit, len(served))
        return answer

    def _link(self, call: Call, form: str, page: int, limit: int) -> str:
        # Filters ride along, so a client that follows the link as it is keeps its filters.
        paging: list[tuple[str, int | str]] = [("page", page)] if form == "nolimit" else [("page", page), ("limit", limit)]
        filters: list[tuple[str, int | str]] = [
            (name, value) for name, values in call.query.items() if name not in SINGLE_VALUED for value in values
        ]
        query = urlencode(paging + filters)
        if form == "query":
            return f"?{query}"
        if form == "host":
            return f"{call.headers.get('host', 'localhost')}{call.path}?{query}"
        return f"{call.path}?{query}"

    def _shaped(self, endpoint: str, item: dict) -> dict:
        transform = self.settings.transform_item
        return item if transform is None else transform(endpoint, copy.deepcopy(item))

    def list_gates(self, call: Call) -> Answer:
        page, limit = _list_query(call, GATE_ENUM_FILTERS)
        org = self.organisation
        facts = org.gate_facts
        gates = org.listed_gates()
        # each filter given: what of a gate it compares with its values
        keys = {name: _member(name) for name in ("idType", "type", "typeReason", "creatorName", "creatorID")}
        keys["passRate"] = lambda gate: pass_rate(gate, facts[gate["id"]])
        keys["rolloutRate"] = lambda gate: rollout_rate(gate["rules"])
        keys["releasePipelineID"] = lambda gate: facts[gate["id"]].release_pipeline_id
        wanted = {name: set(call.values(name)) for name in (*keys, "tags")}
        wanted = {name: values for name, values in wanted.items() if values}
        if wanted:
            gates = [
                gate
                for gate in gates
                if all(
                    values.intersection(gate["tags"]) if name == "tags" else keys[name](gate) in values
                    for name, values in wanted.items()
                )
            ]
        return self._page(call, "gates", gates, page, limit)

    def list_dynamic_configs(self, call: Call) -> Answer:
        page, limit = _list_query(call, {})
        configs = self.organisation.listed_dynamic_configs()
        for name in ("releasePipelineID", "creatorName", "creatorID"):
            if wanted := set(call.values(name)):
                configs = [config for config in configs if config[name] in wanted]
        if wanted := set(call.values("tags")):
            configs = [config for config in configs if wanted.intersection(config["tags"])]
        return self._page(call, "dynamic_configs", configs, page, limit)

    def list_qualifying_events(self, call: Call) -> Answer:
        page, limit = _list_query(call, {})
        return self._page(call, "qualifying_events", self.organisation.qualifying_events, page, limit)

    # --- single reads --------------------------------------------------------------------------------
    def read_gate(self, call: Call) -> Answer:
        gate = self.organisation.gates.get(call.params["id"])
        if gate is None:
            raise ServiceFailure(404, f"Gate {call.params['id']} not found")
        # The single read has no `version` (list items do); an archived gate is still readable by id.
        single = {name: value for name, value in gate.items() if name != "version"}
        return _ok("Gate read successfully.", self._shaped("gate", single))

    def read_holdout(self, call: Call) -> Answer:
        holdout = self.organisation.holdouts.get(call.params["id"])
        if holdout is None:
            raise ServiceFailure(404, f"Holdout {call.params['id']} not found")
        return _ok("Holdout read successfully.", self._shaped("holdout", holdout))

    def read_cumulative_exposures(self, call: Call) -> Answer:
        org = self.organisation
        series = org.cumulative_exposures(call.params["id"])
        if series is None:
            raise ServiceFailure(404, f"Experiment {call.params['id']} not found")
        if delay := self.settings.exposure_delay_days:
            # The days the late computation has not reached yet are not in the series at all.
            computed_through = (org.today - timedelta(days=delay)).isoformat()
            series = [
                {**group, "results": [point for point in group["results"] if point["date"] <= computed_through]}
                for group in series
            ]
        groups = [self._shaped("cumulative_exposures", group) for group in series]
        return _ok("Successfully loaded Cumulative Exposures", groups)

    def read_ingestion_run(self, call: Call) -> Answer:
        run = self.organisation.ingestion_run(call.params["id"])
        if run is None:
            raise ServiceFailure(404, f"runID {call.params['id']} not found")
        return _ok("Ingestion Run Read Successfully", self._shaped("ingestion_run", run))

    # --- writes --------------------------------------------------------------------------------------
    def unarchive_dynamic_config(self, call: Call) -> Answer:
        body = call.json_body()
        _raise_if_invalid(bodies.unarchive_errors(body))
        org = self.organisation
        config_id = call.params["id"]
        config = org.dynamic_configs.get(config_id)
        if config is None:
            raise ServiceFailure(404, f"Dynamic config {config_id} not found")
        if config["status"] != "Archived":
            raise ServiceFailure(
                400, f"Dynamic config {config_id} is not archived", [bodies.field_error("id", "is not archived")]
            )
        org.unarchive_dynamic_config(config_id)
        return _ok("Dynamic config unarchived successfully.", self._shaped("dynamic_config", config))

    def create_release_pipeline(self, call: Call) -> Answer:
        body = call.json_body()
        _raise_if_invalid(bodies.release_pipeline_errors(body, creating=True))
        org = self.organisation
        pipeline_id = base62_id(self._write_ids)
        pipeline = {
            "id": pipeline_id,
            "name": body["name"],
            "creatorID": org.console_api.person_id,
            "createdTime": org.now_ms,
            "lastModifierID": org.console_api.person_id,
            "phases": _stored_phases(pipeline_id, body.get("phases", [])),
        }
        org.release_pipelines[pipeline_id] = pipeline
        org.trigger_notices[pipeline_id] = body.get("triggerNotice")
        return _ok("Pipeline created successfully.", self._shaped("release_pipeline", pipeline))

    def update_release_pipeline(self, call: Call) -> Answer:
        body = call.json_body()
        org = self.organisation
        pipeline_id = call.params["id"]
        pipeline = org.release_pipelines.get(pipeline_id)
        if pipeline is None:
            raise ServiceFailure(404, f"Release pipeline {pipeline_id} not found")
        _raise_if_invalid(bodies.release_pipeline_errors(body, creating=False))
        # Members left out keep their values: sending the same body twice gives the same pipeline.
        if "name" in body:
            pipeline["name"] = body["name"]
        if "phases" in body:
            pipeline["phases"] = _stored_phases(pipeline_id, body["phases"])
        if "triggerNotice" in body:
            org.trigger_notices[pipeline_id] = body["triggerNotice"]
        pipeline["lastModifierID"] = org.console_api.person_id
        return _ok("Get pipeline success", self._shaped("release_pipeline", pipeline))

    def create_role(self, call: Call) -> Answer:
        body = call.json_body()
        _raise_if_invalid(bodies.role_errors(body))
        org = self.organisation
        if body["name"] in org.roles:
            raise ServiceFailure(400, f"Role {body['name']} already exists", [bodies.field_error("name", "already exists")])
        sent = body["permissions"]
        org.roles[body["name"]] = {
            "name": body["name"],
            "permissions": {f: bool(sent.get(f, False)) for f in ROLE_PERMISSION_FLAGS},
        }
        answered = {
            flag: bool(sent.get(flag, False))
            for flag in ROLE_PERMISSION_FLAGS
            if flag not in ROLE_PERMISSIONS_ANSWERED_ONLY_WHEN_SENT or flag in sent
        }
        role = {"name": body["name"], "permissions": answered}
        answer = _ok("Role created successfully.", self._shaped("role", role))
        answer.status = 201
        return answer

    def update_warehouse_connection(self, call: Call) -> Answer:
        body = call.json_body()
        if body is None:
            body = {}
        _raise_if_invalid(bodies.warehouse_connection_errors(body))
        self.organisation.update_warehouse_connection(body)
        # Only a message: the stored parameters hold secrets and are never answered.
        return Answer(200, encode({"message": "Connection updated successfully"}))

    def patch_scim_group(self, call: Call) -> Answer:
        body = call.json_body()
        _raise_if_invalid(bodies.scim_patch_errors(body))
        org = self.organisation
        group_id = call.params["id"]
        if group_id not in org.scim_groups:
            raise ServiceFailure(404, f"Group {group_id} not found")
        group = org.patch_scim_group(group_id, body["Operations"])
        return Answer(200, encode(self._shaped("scim_group", group)))

    def advance_clock(self, call: Call) -> Answer:
        raw = (call.query.get("days") or ["1"])[-1]
        if not raw.isdigit():
            raise ServiceFailure(400, INVALID_REQUEST, [bodies.field_error("days", "must be a non-negative integer")])
        self.clock.advance(days=int(raw))
        return _ok("Twin clock advanced.", {"now": self.clock.now.isoformat(), "daysAdvanced": self.clock.days_advanced})


def _match(method: str, path: str) -> tuple[Route | None, dict[str, str]]:
    for route in ROUTES:
        if route.method == method and (found := route.pattern.match(path)):
            return route, found.groupdict()
    return None, {}


def _ok(message: str, data: object) -> Answer:
    return Answer(200, encode({"message": message, "data": data}))


def _raise_if_invalid(errors: list[dict]) -> None:
    if errors:
        raise ServiceFailure(400, INVALID_REQUEST, errors)


def _list_query(call: Call, enums: dict[str, tuple[str, ...]]) -> tuple[int, int]:
    """(page, limit) of a list request, after checking them and the enum filters together."""
    errors, numbers = [], {}
    for name, default in (("page", 1), ("limit", DEFAULT_PAGE_SIZE)):
        # A repeated page or limit counts by its last value.
        raw = call.query.get(name, [str(default)])[-1]
        if not raw.isdigit() or int(raw) < 1:
            errors.append(bodies.field_error(name, f"{name} must be a positive integer"))
        else:
            numbers[name] = int(raw)
    for name, allowed in enums.items():
        for value in call.values(name):
            if value not in allowed:
                errors.append(bodies.field_error(name, f"{name} must be one of {', '.join(allowed)}"))
    _raise_if_invalid(errors)
    return numbers["page"], numbers["limit"]


def _stored_phases(pipeline_id: str, phases: list[dict]) -> list[dict]:
    stored = []
    for phase_index, phase in enumerate(phases):
        phase_id = phase.get("id") or derived_id(pipeline_id, str(phase_index))
        stored.append(
            {
                "id": phase_id,
                "name": phase["name"],
                "timeIntervalMs": phase["timeIntervalMs"],
                "requiredReview": phase["requiredReview"],
                "rules": [
                    {
                        "id": rule.get("id") or derived_id(pipeline_id, str(phase_index), str(rule_index)),
                        "name": rule["name"],
                        "conditions": copy.deepcopy(rule["conditions"]),
                        "environments": copy.copy(rule.get("environments")),
                    }
                    for rule_index, rule in enumerate(phase["rules"])
                ],
            }
        )
    return stored


def _spoil(body: bytes, fault: str) -> bytes:
    if fault == "truncated":
        # Cut before the end: the top-level object never closes, whatever the body held.
        return body[: max(1, len(body) // 2)]
    # A body that was never JSON: single-quoted, as a Python repr would write it.
    return body.replace(b'"', b"'") if b'"' in body else b"{'message': 'malformed'"


def _member(name: str) -> Callable[[dict], object]:
    """A gate's member `name`, as a list filter compares it."""
    return lambda gate: gate[name]
