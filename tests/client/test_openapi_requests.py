"""Every request of the 13 operations matches the published OpenAPI (openapi-core), offline."""

from __future__ import annotations

import httpx
import pytest
from openapi_core.exceptions import OpenAPIError

from tests.client.conftest import BASE_URL, answer
from tests.client.openapi_check import validate_request
from tests.client.test_operations import IDS, OPERATIONS

KEY = {"SERVICE-API-KEY": "k"}


@pytest.mark.parametrize("name, call, sends, reply", OPERATIONS, ids=IDS)
@pytest.mark.parametrize("respect_review", [False, True], ids=["plain", "respect-review"])
def test_requests_match_the_published_openapi(make_client, name, call, sends, reply, respect_review):
    client, console = make_client(
        lambda request, sent: answer(200, reply) if reply else answer(200, raw=b""), respect_review_settings=respect_review
    )
    call(client)
    assert len(console.sent) == 1
    validate_request(BASE_URL, console.sent[0].request)


@pytest.mark.parametrize(
    "request_off_spec",
    [
        pytest.param(httpx.Request("GET", f"{BASE_URL}/console/v1/gates/x"), id="no-api-key"),
        pytest.param(
            httpx.Request("POST", f"{BASE_URL}/console/v1/roles", headers=KEY, json={"name": "x"}), id="role-without-permissions"
        ),
        pytest.param(httpx.Request("GET", f"{BASE_URL}/console/v1/gates?type=BOGUS", headers=KEY), id="bad-enum"),
        pytest.param(
            httpx.Request("PUT", f"{BASE_URL}/console/v1/dynamic_configs/c/unarchive", headers=KEY, json={"unarchiveReason": 5}),
            id="bad-type",
        ),
    ],
)
def test_the_spec_check_has_teeth(request_off_spec):
    with pytest.raises(OpenAPIError):
        validate_request(BASE_URL, request_off_spec)
