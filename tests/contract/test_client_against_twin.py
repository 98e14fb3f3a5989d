"""The console client against the console twin over real loopback HTTP: each of the 13 operations,
one success and one error, with every request the client sends validated against the published
OpenAPI (contract/console-openapi.json) by openapi-core."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator

import httpx
import pytest

from gatehouse.console_twin import ConsoleTwin, TwinSettings
from gatehouse.sources.console.client import ENDPOINTS, ClientOptions, ConsoleClient, Endpoint, WriteResult
from gatehouse.sources.console.errors import AuthError, ForbiddenError, NotFoundError, ValidationError
from tests.client.openapi_check import validate_request

# Random-looking like real keys: a secret made of words would (rightly) mask those words in messages too.
FORBIDDEN_KEY = "console-Fq7Lw2Xz9Rk4Tb6Yp1Vn"
WRONG_KEY = "console-Hd3Ms8Qc5Wj2Ze7Ua4Gx"
WRONG_TOKEN = "scim-Pk9Nt4Rb7Ly2Cv5Jw8Es"


def assert_never_shown(secret: str, text: str) -> None:
    fragments = {secret[i : i + 8].lower() for i in range(len(secret) - 7)}
    assert not [f for f in fragments if f in text.lower()], text


class RecordingTransport(httpx.BaseTransport):
    """Real HTTP, remembering every request so the test can check it against the spec."""

    def __init__(self) -> None:
        self._http = httpx.HTTPTransport()
        self._lock = threading.Lock()
        self.requests: list[httpx.Request] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.read()
        with self._lock:
            self.requests.append(request)
        return self._http.handle_request(request)

    def close(self) -> None:
        self._http.close()


@pytest.fixture(scope="module")
def twin() -> Iterator[tuple[ConsoleTwin, str]]:
    console = ConsoleTwin(size="small", seed=0, settings=TwinSettings(forbidden_keys={FORBIDDEN_KEY}))
    with console.serve() as base_url:
        yield console, base_url


@pytest.fixture
def connect(twin):
    """connect(api_key=..., scim_token=...) -> client; afterwards every request sent is checked against the spec."""
    console, base_url = twin
    transports: list[RecordingTransport] = []
    clients: list[ConsoleClient] = []

    def factory(api_key: str | None = None, scim_token: str | None = None) -> ConsoleClient:
        transport = RecordingTransport()
        options = ClientOptions(
            base_url=base_url,
            api_key=api_key or console.settings.api_key,
            scim_token=scim_token or console.settings.scim_token,
            page_size=7,  # several pages even for a small organisation
            max_attempts=2,
            max_retry_time=5.0,
        )
        client = ConsoleClient(options, transport=transport)
        transports.append(transport)
        clients.append(client)
        return client

    yield factory
    for client in clients:
        client.close()
    sent = [request for transport in transports for request in transport.requests]
    assert sent, "the test sent nothing"
    for request in sent:
        validate_request(base_url, request)
        if request.url.path.startswith("/scim/"):
            assert request.headers["Authorization"].startswith("Bearer ") and "SERVICE-API-KEY" not in request.headers
        else:
            assert "SERVICE-API-KEY" in request.headers and "Authorization" not in request.headers


def organisation(twin):
    return twin[0].organisation


PIPELINE = {
    "name": "Contract pipeline",
    "phases": [
        {
            "name": "Canary",
            "timeIntervalMs": 3_600_000,
            "requiredReview": False,
            "rules": [{"name": "everyone", "conditions": [{"type": "public"}], "environments": ["production"]}],
        }
    ],
    "triggerNotice": "rolling out",
}
SCIM_PATCH = {
    "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
    "Operations": [{"op": "add", "path": "members", "value": [{"value": "u-contract", "display": "Contract Tester"}]}],
}


# ------------------------------------------------------------------ reads


def test_get_gate(twin, connect):
    gate_id = organisation(twin).listed_gates()[0]["id"]
    assert connect().get_gate(gate_id)["id"] == gate_id


def test_list_gates_reads_every_page(twin, connect):
    client = connect()
    pages = list(client.list_gates())
    got = [gate["id"] for page in pages for gate in page]
    assert len(pages) > 1
    assert sorted(got) == sorted(gate["id"] for gate in organisation(twin).listed_gates())
    assert len(got) == len(set(got))


def test_list_gates_with_a_wrong_key_is_an_auth_error_without_the_key(connect):
    with pytest.raises(AuthError) as raised:
        list(connect(api_key=WRONG_KEY).list_gates())
    assert str(raised.value).startswith("the console rejected the API key (HTTP 401)")
    assert "***" in str(raised.value)  # the twin echoes the key, as production does
    assert_never_shown(WRONG_KEY, str(raised.value))


def test_get_holdout(twin, connect):
    holdout_id = twin[0].holdout_ids[0]
    assert connect().get_holdout(holdout_id)["id"] == holdout_id


def test_list_dynamic_configs(twin, connect):
    got = [config["id"] for page in connect().list_dynamic_configs() for config in page]
    assert sorted(got) == sorted(config["id"] for config in organisation(twin).listed_dynamic_configs())


def test_list_qualifying_events(twin, connect):
    got = [event["name"] for page in connect().list_qualifying_events() for event in page]
    assert sorted(got) == sorted(event["name"] for event in organisation(twin).qualifying_events)


def test_get_cumulative_exposures(twin, connect):
    series = connect().get_cumulative_exposures(twin[0].experiment_ids[0])
    assert isinstance(series, list) and series and {"groupID", "groupName", "results"} <= set(series[0])


def test_get_ingestion_run(twin, connect):
    run_id = twin[0].ingestion_run_ids[0]
    assert connect().get_ingestion_run(run_id)["runID"] == run_id


@pytest.mark.parametrize(
    ("read", "unknown_id", "message"),
    [
        ("get_gate", "no-such-gate", "gate 'no-such-gate' not found"),
        ("get_holdout", "nope", "holdout 'nope' not found"),
        ("get_cumulative_exposures", "nope", "experiment 'nope' not found"),
        ("get_ingestion_run", "nope", "runID nope not found"),
    ],
)
def test_a_read_by_an_unknown_id_is_not_found(connect, read, unknown_id, message):
    with pytest.raises(NotFoundError, match=message):
        getattr(connect(), read)(unknown_id)


@pytest.mark.parametrize(
    ("read", "message"),
    [
        ("list_dynamic_configs", "HTTP 403: Forbidden resource"),
        ("list_qualifying_events", None),
    ],
)
def test_a_list_read_with_a_forbidden_key_is_forbidden(connect, read, message):
    with pytest.raises(ForbiddenError, match=message):
        list(getattr(connect(api_key=FORBIDDEN_KEY), read)())


# ------------------------------------------------------------------ writes


def test_unarchive_dynamic_config(twin, connect):
    console = twin[0]
    org = console.organisation
    with console.lock:
        config_id = org.listed_dynamic_configs()[-1]["id"]
        org.archive_dynamic_config(config_id, org.console_api, org.now_ms)
    result = connect().unarchive_dynamic_config(config_id, "needed again")
    assert isinstance(result, WriteResult) and result.status == 200
    assert result.data["id"] == config_id and result.data["status"] != "Archived"


def test_unarchive_a_live_config_is_refused(twin, connect):
    config_id = organisation(twin).listed_dynamic_configs()[0]["id"]
    with pytest.raises(ValidationError, match="HTTP 400") as raised:
        connect().unarchive_dynamic_config(config_id)
    assert raised.value.field_errors


def test_create_and_update_release_pipeline(connect):
    client = connect()
    created = client.create_release_pipeline(PIPELINE)
    assert created.status == 200 and created.data["name"] == PIPELINE["name"]
    pipeline_id = created.data["id"]
    updated = client.update_release_pipeline(pipeline_id, {**PIPELINE, "name": "Contract pipeline v2"})
    assert updated.status == 200 and (updated.data["id"], updated.data["name"]) == (pipeline_id, "Contract pipeline v2")


def test_create_release_pipeline_with_a_wrong_key_is_sent_once(twin, connect):
    client = connect(api_key=WRONG_KEY)
    before = len(twin[0].requests)
    with pytest.raises(AuthError):
        client.create_release_pipeline(PIPELINE)
    assert len(twin[0].requests) == before + 1


def test_update_release_pipeline_unknown_is_not_found(connect):
    with pytest.raises(NotFoundError, match="release pipeline 'nope' not found"):
        connect().update_release_pipeline("nope", PIPELINE)


def test_create_role(connect):
    result = connect().create_role("Contract reader", {"create_configs": False, "manual_whn_reload": True})
    assert result.status == 201
    assert result.data["name"] == "Contract reader" and result.data["permissions"]["manual_whn_reload"] is True


def test_create_role_twice_is_a_validation_error(connect):
    client = connect()
    client.create_role("Contract twin", {"create_configs": True})
    with pytest.raises(ValidationError, match="already exists"):
        client.create_role("Contract twin", {"create_configs": True})


def test_update_wh_connection(connect):
    result = connect().update_wh_connection({"bigquery": {"project": "contract-project", "stagingDataset": "staging"}})
    assert (result.status, result.message) == (200, "Connection updated successfully")


def test_update_wh_connection_with_a_forbidden_key(connect):
    with pytest.raises(ForbiddenError, match="data_warehouse_ingestion_and_exports_edit_access"):
        connect(api_key=FORBIDDEN_KEY).update_wh_connection({"bigquery": {"project": "p"}})


def test_patch_scim_group(twin, connect):
    group_id = next(iter(organisation(twin).scim_groups))
    result = connect().patch_scim_group(group_id, SCIM_PATCH)
    assert result.status == 200
    assert any(m["value"] == "u-contract" for m in organisation(twin).scim_groups[group_id]["members"])


def test_patch_scim_group_with_a_wrong_token(twin, connect):
    group_id = next(iter(organisation(twin).scim_groups))
    with pytest.raises(AuthError, match="sources.console.scim_token") as raised:
        connect(scim_token=WRONG_TOKEN).patch_scim_group(group_id, SCIM_PATCH)
    assert_never_shown(WRONG_TOKEN, str(raised.value))


def test_server_time_is_the_twins_clock(twin, connect):
    client = connect()
    client.get_holdout(twin[0].holdout_ids[0])
    assert client.server_time == twin[0].now.replace(microsecond=0)


def test_every_operation_answered_both_success_and_error(twin):
    """Runs last in this module: the twin saw each of the 13 operations succeed and fail."""
    templates = {(e.method, re.compile("^" + re.sub(r"\{id\}", "[^/]+", e.template) + "$")): e for e in ENDPOINTS}
    outcomes: dict[Endpoint, set[bool]] = {e: set() for e in ENDPOINTS}
    for record in twin[0].requests:
        for (method, pattern), endpoint in templates.items():
            if record.method == method and pattern.match(record.path) and record.status is not None:
                outcomes[endpoint].add(200 <= record.status < 300)
    assert len(ENDPOINTS) == 13
    missing = {f"{e.method} {e.template}": sorted(seen) for e, seen in outcomes.items() if seen != {True, False}}
    assert not missing
