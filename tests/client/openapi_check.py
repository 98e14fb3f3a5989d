"""Validate requests the client sends against the published OpenAPI (contract/console-openapi.json)."""

from __future__ import annotations

import json
from functools import lru_cache
from urllib.parse import parse_qs, urlsplit

import httpx
from openapi_core import OpenAPI
from openapi_core.datatypes import RequestParameters
from werkzeug.datastructures import Headers, ImmutableMultiDict

from gatehouse.contract import OPENAPI_PATH

SPEC_PATH = OPENAPI_PATH


class HttpxOpenAPIRequest:
    """openapi-core's Request protocol over an `httpx.Request`."""

    def __init__(self, request: httpx.Request) -> None:
        self._request = request
        self._url = urlsplit(str(request.url))
        self.parameters = RequestParameters(
            query=ImmutableMultiDict(parse_qs(self._url.query, keep_blank_values=True)),
            header=Headers(dict(request.headers)),
            cookie=ImmutableMultiDict(),
        )

    @property
    def host_url(self) -> str:
        return f"{self._url.scheme}://{self._url.netloc}"

    @property
    def path(self) -> str:
        return self._url.path

    @property
    def method(self) -> str:
        return self._request.method.lower()

    @property
    def body(self) -> bytes | None:
        content = self._request.read()
        return content or None

    @property
    def content_type(self) -> str:
        return self._request.headers.get("Content-Type", "application/json").lower()


@lru_cache(maxsize=8)
def openapi_for(base_url: str) -> OpenAPI:
    """The published spec with its `{base_url}` server replaced by the one under test."""
    spec = json.loads(SPEC_PATH.read_text())
    spec["servers"] = [{"url": base_url}]
    return OpenAPI.from_dict(spec)


def validate_request(base_url: str, request: httpx.Request) -> None:
    """Raise an openapi-core error if `request` does not match the published spec."""
    openapi_for(base_url).validate_request(HttpxOpenAPIRequest(request))
