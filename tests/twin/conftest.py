"""Fixtures for the console twin's tests: a fresh small twin, an httpx client on its in-process
transport, and the published OpenAPI description to validate every answer against."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass

import httpx
import pytest
from openapi_core import OpenAPI
from openapi_core.datatypes import RequestParameters
from werkzeug.datastructures import Headers, ImmutableMultiDict

from gatehouse.console_twin import ConsoleTwin
from gatehouse.contract import OPENAPI_PATH

SPEC_PATH = OPENAPI_PATH
BASE_URL = "http://console.test"

# The error body of gap-decisions.md: {status, message, errors?: [{property, errorMessage}]}.
ERROR_BODY = {
    "type": "object",
    "properties": {
        "status": {"type": "integer"},
        "message": {"type": "string"},
        "errors": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"property": {"type": "string"}, "errorMessage": {"type": "string"}},
                "required": ["property", "errorMessage"],
            },
        },
    },
    "required": ["status", "message"],
}


def patched_spec(published: dict) -> dict:
    """The published OpenAPI with the quirks openapi-core cannot read as meant, each patched in memory."""
    spec = copy.deepcopy(published)
    # `servers` is the bare template "{base_url}" with no variables: match any host instead.
    spec["servers"] = [{"url": "/"}]
    # SingleDataResponse declares `data` an object, but the cumulative-exposures answer puts an array in
    # it (the interface: data is "object, array, or any"); allOf of both could never pass.
    del spec["components"]["schemas"]["SingleDataResponse"]["properties"]["data"]["type"]

    # `nullable: true` beside `oneOf` (a condition's targetValue) is meant to allow null, but openapi-core
    # applies it to no branch; a branch that only null matches says what the spec means.
    def allow_null(node: object) -> None:
        if isinstance(node, dict):
            if node.get("nullable") and "oneOf" in node:
                node["oneOf"].append({"enum": [None]})
            for child in node.values():
                allow_null(child)
        elif isinstance(node, list):
            for child in node:
                allow_null(child)

    allow_null(spec)
    # Each operation documents only some of its error statuses; gap-decisions.md gives the one error
    # body every status shares, so it becomes each operation's `default` answer.
    for operation in (op for path in spec["paths"].values() for op in path.values()):
        operation["responses"].setdefault(
            "default",
            {
                "description": "error (gap-decisions.md)",
                "content": {"application/json": {"schema": ERROR_BODY}},
            },
        )
    return spec


@dataclass
class _SpecRequest:
    host_url: str
    path: str
    method: str
    parameters: RequestParameters
    content_type: str
    body: bytes | None


@dataclass
class _SpecResponse:
    status_code: int
    content_type: str
    headers: Headers
    data: bytes


class SpecChecker:
    def __init__(self) -> None:
        self.api = OpenAPI.from_dict(patched_spec(json.loads(SPEC_PATH.read_text())))

    def __call__(self, response: httpx.Response) -> httpx.Response:
        """Validates an answer against the operation it answers; returns it for chaining."""
        request = response.request
        spec_request = _SpecRequest(
            host_url=f"{request.url.scheme}://{request.url.netloc.decode()}",
            path=request.url.path,
            method=request.method.lower(),
            parameters=RequestParameters(
                query=ImmutableMultiDict(list(request.url.params.multi_items())),
                header=Headers(dict(request.headers)),
                cookie=ImmutableMultiDict(),
            ),
            content_type=request.headers.get("content-type", ""),
            body=request.content or None,
        )
        spec_response = _SpecResponse(
            response.status_code,
            response.headers.get("content-type", ""),
            Headers(dict(response.headers)),
            response.content,
        )
        self.api.validate_response(spec_request, spec_response)
        return response


@pytest.fixture(scope="session")
def conforms() -> SpecChecker:
    return SpecChecker()


@pytest.fixture
def twin() -> ConsoleTwin:
    return ConsoleTwin("small", seed=0)


@pytest.fixture
def console(twin: ConsoleTwin):
    with httpx.Client(
        transport=twin.transport(), base_url=BASE_URL, headers={"SERVICE-API-KEY": twin.settings.api_key}
    ) as client:
        yield client


def scim_headers(twin: ConsoleTwin) -> dict[str, str]:
    return {"Authorization": f"Bearer {twin.settings.scim_token}"}


def read_all(client: httpx.Client, path: str, params: dict | None = None, limit: int = 100) -> list[dict]:
    """Every item of a list, page by page (page numbers, not nextPage links)."""
    items, page = [], 1
    while True:
        answer = client.get(path, params={**(params or {}), "page": page, "limit": limit})
        assert answer.status_code == 200, answer.text
        body = answer.json()
        items += body["data"]
        if body["pagination"]["nextPage"] is None:
            return items
        page += 1
