"""Every operation of the interface through the in-process transport: envelopes, statuses, error bodies,
and every answer validated against the published OpenAPI description."""

from __future__ import annotations

import json

import httpx
import pytest

from gatehouse.console_twin import ConsoleTwin
from gatehouse.contract import OPENAPI_PATH, ROLE_PERMISSION_FLAGS
from tests.twin.conftest import scim_headers

PIPELINE = {
    "name": "Checkout rollout",
    "triggerNotice": "Rolling out in three phases",
    "phases": [
        {
            "name": "Phase 1",
            "timeIntervalMs": 3_600_000,
            "requiredReview": False,
            "rules": [
                {
                    "name": "Rule",
                    "conditions": [{"type": "app_version", "targetValue": ["1", "222"], "operator": "any"}],
                }
            ],
        }
    ],
}


def archived_config_id(twin: ConsoleTwin) -> str:
    return next(c["id"] for c in twin.organisation.dynamic_configs.values() if c["status"] == "Archived")


def any_pipeline_id(twin: ConsoleTwin) -> str:
    return next(iter(twin.organisation.release_pipelines))


def scim_group_id(twin: ConsoleTwin) -> str:
    return next(iter(twin.organisation.scim_groups))


# (operation, method, path, JSON body) for every console operation; paths take the twin.
CONSOLE_OPERATIONS = [
    ("list gates", "GET", lambda t: "/console/v1/gates?limit=3", None),
    ("read gate", "GET", lambda t: f"/console/v1/gates/{t.organisation.listed_gates()[0]['id']}", None),
    ("read holdout", "GET", lambda t: f"/console/v1/holdouts/{t.holdout_ids[0]}", None),
    ("list dynamic configs", "GET", lambda t: "/console/v1/dynamic_configs?limit=3", None),
    (
        "unarchive dynamic config",
        "PUT",
        lambda t: f"/console/v1/dynamic_configs/{archived_config_id(t)}/unarchive",
        {"unarchiveReason": "needed again"},
    ),
    ("create release pipeline", "POST", lambda t: "/console/v1/release_pipelines", PIPELINE),
    ("update release pipeline", "POST", lambda t: f"/console/v1/release_pipelines/{any_pipeline_id(t)}", PIPELINE),
    ("list qualifying events", "GET", lambda t: "/console/v1/experiments/qualifying_events?limit=2", None),
    (
        "cumulative exposures",
        "GET",
        lambda t: f"/console/v1/experiments/{t.experiment_ids[0]}/cumulative_exposures",
        None,
    ),
    ("read ingestion run", "GET", lambda t: f"/console/v1/ingestion/runs/{t.ingestion_run_ids[0]}", None),
    (
        "create role",
        "POST",
        lambda t: "/console/v1/roles",
        {"name": "Auditor", "permissions": {"verify_metrics": True}},
    ),
    (
        "update warehouse connection",
        "PATCH",
        lambda t: "/console/v1/wh_connections",
        {"snowflake": {"accountName": "acme", "serviceUserPassword": "hunter2-secret"}},
    ),
]
SUCCESS_STATUS = {"create role": 201}


@pytest.mark.parametrize("operation, method, path, body", CONSOLE_OPERATIONS, ids=[o[0] for o in CONSOLE_OPERATIONS])
def test_every_console_operation_answers_its_documented_success(twin, console, conforms, operation, method, path, body):
    answer = conforms(console.request(method, path(twin), json=body))

    assert answer.status_code == SUCCESS_STATUS.get(operation, 200)
    payload = answer.json()
    assert isinstance(payload["message"], str) and payload["message"]
    if operation == "update warehouse connection":
        assert payload == {"message": "Connection updated successfully"}
    else:
        assert "data" in payload
    assert ("pagination" in payload) == operation.startswith("list")
    assert answer.headers["date"] == "Mon, 02 Nov 2026 06:00:00 GMT"


def test_scim_group_patch_authenticates_with_the_bearer_token_and_applies_each_op(twin, console, conforms):
    group_id = scim_group_id(twin)
    alice = {"value": "alice-id", "display": "Alice"}
    bob = {"value": "bob-id", "display": "Bob"}

    def patch(op: str, members: list[dict]) -> httpx.Response:
        body = {
            "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
            "Operations": [{"op": op, "path": "members", "value": members}],
        }
        return conforms(console.patch(f"/scim/Groups/{group_id}", json=body, headers=scim_headers(twin)))

    assert patch("replace", [alice]).json()["members"] == [alice]
    assert patch("add", [bob, alice]).json()["members"] == [alice, bob]
    answer = patch("remove", [alice])
    assert answer.status_code == 200
    assert answer.json()["members"] == [bob]
    assert twin.organisation.scim_groups[group_id]["members"] == [bob]


def test_scim_refuses_the_console_key_and_a_wrong_token(twin, console):
    path = f"/scim/Groups/{scim_group_id(twin)}"
    body = {"Operations": [{"op": "add", "path": "members", "value": []}]}
    assert console.patch(path, json=body).status_code == 401  # the console key is no SCIM token
    wrong = console.patch(path, json=body, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401
    assert wrong.json()["status"] == 401


@pytest.mark.parametrize("operation, method, path, body", CONSOLE_OPERATIONS, ids=[o[0] for o in CONSOLE_OPERATIONS])
@pytest.mark.parametrize("key", ["console-wrong-key", None], ids=["wrong key", "no key"])
def test_a_bad_key_gets_401_quoting_the_key_sent(twin, conforms, operation, method, path, body, key):
    headers = {"SERVICE-API-KEY": key} if key else {}
    with httpx.Client(transport=twin.transport(), base_url="http://console.test", headers=headers) as client:
        answer = conforms(client.request(method, path(twin), json=body))

    assert answer.status_code == 401
    assert answer.json() == {
        "status": 401,
        "message": f"This endpoint only accepts an active CONSOLE key, but an invalid key was sent. Key: {key or 'undefined'}",
    }


@pytest.mark.parametrize("operation, method, path, body", CONSOLE_OPERATIONS, ids=[o[0] for o in CONSOLE_OPERATIONS])
def test_a_forbidden_key_gets_403(twin, conforms, operation, method, path, body):
    twin.settings.forbidden_keys.add("console-read-only")
    with httpx.Client(
        transport=twin.transport(), base_url="http://console.test", headers={"SERVICE-API-KEY": "console-read-only"}
    ) as client:
        answer = conforms(client.request(method, path(twin), json=body))

    assert answer.status_code == 403
    expected = "Forbidden resource"
    if operation == "update warehouse connection":
        expected = (
            "Forbidden. The request was valid, but the server is refusing action. "
            "You might not have the necessary permissions to access the resource."
        )
    assert answer.json() == {"status": 403, "message": expected}


# a run id of the service's form that no run has
NO_SUCH_RUN = "de941fa2-3e0f-44ec-a44c-5c51eed07e0z"
NOT_FOUND = [
    ("/console/v1/gates/no_such_gate", "GET", "Gate no_such_gate not found"),
    ("/console/v1/holdouts/no_such_holdout", "GET", "Holdout no_such_holdout not found"),
    ("/console/v1/experiments/nope/cumulative_exposures", "GET", "Experiment nope not found"),
    (f"/console/v1/ingestion/runs/{NO_SUCH_RUN}", "GET", f"runID {NO_SUCH_RUN} not found"),
    ("/console/v1/dynamic_configs/nope/unarchive", "PUT", "Dynamic config nope not found"),
    ("/console/v1/release_pipelines/nope", "POST", "Release pipeline nope not found"),
    ("/console/v1/no_such_endpoint", "GET", "Cannot GET /console/v1/no_such_endpoint"),
    ("/console/v1/gates", "DELETE", "Cannot DELETE /console/v1/gates"),
    ("/_twin/advance", "POST", "Cannot POST /_twin/advance"),  # the admin path is off by default
]


@pytest.mark.parametrize("path, method, message", NOT_FOUND, ids=[n[0] for n in NOT_FOUND])
def test_unknown_ids_and_paths_get_404_with_a_specific_text(console, path, method, message):
    answer = console.request(method, path, json={} if method in ("PUT", "POST") else None)
    assert answer.status_code == 404
    assert answer.json() == {"status": 404, "message": message}


def test_scim_unknown_group_gets_404(twin, console):
    body = {"Operations": [{"op": "add", "path": "members", "value": [{"value": "x", "display": "X"}]}]}
    answer = console.patch("/scim/Groups/nope", json=body, headers=scim_headers(twin))
    assert answer.json() == {"status": 404, "message": "Group nope not found"}


INVALID_BODIES = [
    ("/console/v1/roles", "POST", {"permissions": {}}, [("name", "Required")]),
    ("/console/v1/roles", "POST", {"name": "Viewer"}, [("permissions", "Required")]),
    ("/console/v1/roles", "POST", {"name": "", "permissions": {}}, [("name", "must not be empty")]),
    (
        "/console/v1/roles",
        "POST",
        {"name": "Viewer", "permissions": {"fly": True, "create_configs": "yes"}},
        [("permissions.fly", "is not a permission"), ("permissions.create_configs", "must be a boolean")],
    ),
    ("/console/v1/release_pipelines", "POST", {"phases": []}, [("name", "Required")]),
    ("/console/v1/release_pipelines", "POST", {"name": 7}, [("name", "must be a string")]),
    (
        "/console/v1/release_pipelines",
        "POST",
        {"name": "P", "phases": [{"name": "One"}]},
        [
            ("phases[0].timeIntervalMs", "Required"),
            ("phases[0].requiredReview", "Required"),
            ("phases[0].rules", "Required"),
        ],
    ),
    (
        "/console/v1/release_pipelines",
        "POST",
        {
            "name": "P",
            "phases": [
                {
                    "name": "One",
                    "timeIntervalMs": "soon",
                    "requiredReview": "no",
                    "rules": [{"name": "R", "conditions": [{"type": "moon_phase"}, {"targetValue": [1, "a"]}]}],
                }
            ],
        },
        [
            ("phases[0].timeIntervalMs", "must be a non-negative number"),
            ("phases[0].requiredReview", "must be a boolean"),
            ("phases[0].rules[0].conditions[0].type", None),
            ("phases[0].rules[0].conditions[1].type", "Required"),
            ("phases[0].rules[0].conditions[1].targetValue", None),
        ],
    ),
    (
        "/console/v1/release_pipelines",
        "POST",
        {"name": "P", "triggerNotice": 5},
        [("triggerNotice", "must be a string")],
    ),
    ("/console/v1/release_pipelines", "POST", ["not", "an", "object"], [("", "must be an object")]),
    ("/console/v1/wh_connections", "PATCH", {"redshift": {}}, [("redshift", None)]),
    (
        "/console/v1/wh_connections",
        "PATCH",
        {"bigquery": {"project": 5, "region": "eu"}},
        [("bigquery.project", "must be a string"), ("bigquery.region", "is not a connection parameter")],
    ),
    (
        "/console/v1/dynamic_configs/{archived}/unarchive",
        "PUT",
        {"unarchiveReason": 5},
        [("unarchiveReason", "must be a string")],
    ),
]


@pytest.mark.parametrize(
    "path, method, body, errors", INVALID_BODIES, ids=[f"{b[0]} {json.dumps(b[2])[:40]}" for b in INVALID_BODIES]
)
def test_invalid_bodies_get_400_with_field_errors(twin, console, conforms, path, method, body, errors):
    path = path.replace("{archived}", archived_config_id(twin))
    answer = conforms(console.request(method, path, json=body))

    assert answer.status_code == 400
    payload = answer.json()
    assert payload["status"] == 400
    assert payload["message"] == "Invalid request. Please check the request input and try again."
    assert [
        (e["property"], None if expected is None else e["errorMessage"])
        for e, (_, expected) in zip(payload["errors"], errors, strict=True)
    ] == errors


SCIM_INVALID = [
    ({}, [("Operations", "Required")]),
    ({"Operations": []}, [("Operations", "must be a non-empty array")]),
    (
        {"Operations": [{"op": "merge", "path": "members", "value": []}]},
        [("Operations[0].op", "must be one of replace, add, remove")],
    ),
    (
        {"Operations": [{"op": "add", "path": "displayName", "value": [{"value": "x"}]}]},
        [("Operations[0].path", "must be one of members"), ("Operations[0].value[0].display", "Required")],
    ),
    (
        {"schemas": "x", "Operations": [{"op": "add", "path": "members"}]},
        [("schemas", "must be an array of strings"), ("Operations[0].value", "Required")],
    ),
]


@pytest.mark.parametrize("body, errors", SCIM_INVALID, ids=[json.dumps(b)[:50] for b, _ in SCIM_INVALID])
def test_invalid_scim_patches_get_400(twin, console, body, errors):
    answer = console.patch(f"/scim/Groups/{scim_group_id(twin)}", json=body, headers=scim_headers(twin))
    assert answer.status_code == 400
    assert [(e["property"], e["errorMessage"]) for e in answer.json()["errors"]] == errors


WRITES = [
    ("PUT", "/console/v1/dynamic_configs/{archived}/unarchive", False),
    ("POST", "/console/v1/release_pipelines", False),
    ("POST", "/console/v1/release_pipelines/{pipeline}", False),
    ("POST", "/console/v1/roles", False),
    ("PATCH", "/console/v1/wh_connections", False),
    ("PATCH", "/scim/Groups/{group}", True),
]


@pytest.mark.parametrize("method, path, scim", WRITES, ids=[w[1] for w in WRITES])
def test_malformed_json_bodies_get_400(twin, console, method, path, scim):
    path = path.format(archived=archived_config_id(twin), pipeline=any_pipeline_id(twin), group=scim_group_id(twin))
    headers = {"Content-Type": "application/json", **(scim_headers(twin) if scim else {})}
    answer = console.request(method, path, content=b'{"name": "unterminated', headers=headers)

    assert answer.status_code == 400
    payload = answer.json()
    assert payload["message"] == "Malformed JSON in request body"
    assert payload["errors"][0]["property"] == "body"


BAD_QUERIES = [
    ("/console/v1/gates", {"page": "two"}, [("page", "page must be a positive integer")]),
    ("/console/v1/gates", {"page": "0"}, [("page", "page must be a positive integer")]),
    ("/console/v1/gates", {"limit": "-5"}, [("limit", "limit must be a positive integer")]),
    (
        "/console/v1/gates",
        {"limit": "1.5", "type": "OLD"},
        [
            ("limit", "limit must be a positive integer"),
            ("type", "type must be one of TEMPORARY, PERMANENT, STALE, TEMPLATE"),
        ],
    ),
    ("/console/v1/gates", {"passRate": ["0", "50"]}, [("passRate", "passRate must be one of 0, 100, INBETWEEN")]),
    ("/console/v1/gates", {"rolloutRate": "ALL"}, [("rolloutRate", "rolloutRate must be one of 0, 100, INBETWEEN")]),
    ("/console/v1/gates", {"typeReason": "STALE"}, [("typeReason", None)]),
    ("/console/v1/dynamic_configs", {"limit": "many"}, [("limit", "limit must be a positive integer")]),
    ("/console/v1/experiments/qualifying_events", {"page": "x"}, [("page", "page must be a positive integer")]),
]


@pytest.mark.parametrize("path, params, errors", BAD_QUERIES, ids=[f"{q[0]} {q[1]}" for q in BAD_QUERIES])
def test_bad_query_values_get_400(console, conforms, path, params, errors):
    answer = conforms(console.get(path, params=params))
    assert answer.status_code == 400
    assert [
        (e["property"], None if expected is None else e["errorMessage"])
        for e, (_, expected) in zip(answer.json()["errors"], errors, strict=True)
    ] == errors


def test_read_gate_has_no_version_and_archived_gates_stay_readable(twin, console):
    listed = twin.organisation.listed_gates()[0]
    single = console.get(f"/console/v1/gates/{listed['id']}").json()["data"]
    assert single == {name: value for name, value in listed.items() if name != "version"}

    archived = next(g for g in twin.organisation.gates.values() if g["status"] == "Archived")
    assert console.get(f"/console/v1/gates/{archived['id']}").json()["data"]["status"] == "Archived"


def test_unarchive_restores_an_archived_config_to_the_list(twin, console):
    config_id = archived_config_id(twin)
    before = twin.organisation.dynamic_configs[config_id]["version"]

    def listed() -> set[str]:
        return {c["id"] for c in console.get("/console/v1/dynamic_configs", params={"limit": 1000}).json()["data"]}

    assert config_id not in listed()

    answer = console.put(f"/console/v1/dynamic_configs/{config_id}/unarchive", json={"unarchiveReason": "back"})

    data = answer.json()["data"]
    assert data["status"] in ("Enabled", "Disabled")
    assert data["isEnabled"] == (data["status"] == "Enabled")
    assert data["version"] == before + 1
    assert data["lastModifierName"] == "CONSOLE API"
    assert config_id in listed()
    again = console.put(f"/console/v1/dynamic_configs/{config_id}/unarchive", json={})
    assert again.status_code == 400
    assert again.json()["message"] == f"Dynamic config {config_id} is not archived"


def test_unarchive_accepts_an_empty_body(twin, console):
    answer = console.put(f"/console/v1/dynamic_configs/{archived_config_id(twin)}/unarchive")
    assert answer.status_code == 200


def test_release_pipelines_are_stored_and_updates_are_idempotent(twin, console):
    created = console.post("/console/v1/release_pipelines", json=PIPELINE)
    assert created.status_code == 200
    pipeline = created.json()["data"]
    assert pipeline["name"] == "Checkout rollout"
    assert "triggerNotice" not in pipeline  # written, never answered
    assert pipeline["phases"][0]["id"] and pipeline["phases"][0]["rules"][0]["id"]
    assert pipeline["phases"][0]["rules"][0]["environments"] is None
    assert twin.organisation.release_pipelines[pipeline["id"]] == pipeline
    assert twin.organisation.trigger_notices[pipeline["id"]] == "Rolling out in three phases"

    update = {**PIPELINE, "name": "Checkout rollout v2"}
    first = console.post(f"/console/v1/release_pipelines/{pipeline['id']}", json=update)
    second = console.post(f"/console/v1/release_pipelines/{pipeline['id']}", json=update)
    assert first.status_code == second.status_code == 200
    assert first.json() == second.json()
    assert first.json()["message"] == "Get pipeline success"
    assert first.json()["data"]["name"] == "Checkout rollout v2"
    assert first.json()["data"]["createdTime"] == pipeline["createdTime"]


def test_roles_answer_201_with_every_flag_but_the_two_production_omits(twin, console):
    answer = console.post("/console/v1/roles", json={"name": "Analyst", "permissions": {"use_metrics_explorer": True}})

    assert answer.status_code == 201
    permissions = answer.json()["data"]["permissions"]
    assert set(permissions) == set(ROLE_PERMISSION_FLAGS) - {"event_dimensions_access", "manual_whn_reload"}
    assert [flag for flag, granted in permissions.items() if granted] == ["use_metrics_explorer"]
    assert len(twin.organisation.roles["Analyst"]["permissions"]) == 27

    sent_all = {flag: True for flag in ROLE_PERMISSION_FLAGS}
    full = console.post("/console/v1/roles", json={"name": "Admin", "permissions": sent_all}).json()["data"]
    assert full["permissions"] == sent_all

    duplicate = console.post("/console/v1/roles", json={"name": "Analyst", "permissions": {}})
    assert duplicate.status_code == 400
    assert duplicate.json()["message"] == "Role Analyst already exists"


def test_warehouse_connection_is_merged_and_never_echoed(twin, console):
    secret = "-----BEGIN PRIVATE KEY-----abc"
    first = console.patch("/console/v1/wh_connections", json={"bigquery": {"project": "p1", "privateKey": secret}})
    second = console.patch(
        "/console/v1/wh_connections", json={"bigquery": {"project": "p2"}, "snowflake": {"keyPassPhrase": None}}
    )

    for answer in (first, second):
        assert answer.json() == {"message": "Connection updated successfully"}
        assert secret not in answer.text
    assert twin.organisation.warehouse_connection == {
        "bigquery": {"project": "p2", "privateKey": secret},
        "snowflake": {"keyPassPhrase": None},
    }


def test_cumulative_exposures_and_runs_answer_the_organisation(twin, console):
    experiment_id = twin.experiment_ids[0]
    exposures = console.get(f"/console/v1/experiments/{experiment_id}/cumulative_exposures").json()
    assert exposures["message"] == "Successfully loaded Cumulative Exposures"
    assert exposures["data"] == twin.organisation.cumulative_exposures(experiment_id)

    run_id = twin.ingestion_run_ids[-1]
    run = console.get(f"/console/v1/ingestion/runs/{run_id}").json()
    assert run["data"] == twin.organisation.ingestion_run(run_id)


def test_the_optional_review_header_is_accepted_and_recorded(twin, console):
    answer = console.get("/console/v1/gates", params={"limit": 1}, headers={"x-respect-review-settings": "true"})
    assert answer.status_code == 200
    assert twin.requests[-1].headers["x-respect-review-settings"] == "true"


def sample(path: str, method: str = "get", status: str = "200") -> object:
    """The response example the published OpenAPI gives for an operation."""
    spec = json.loads(OPENAPI_PATH.read_text())
    return spec["paths"][path][method]["responses"][status]["content"]["application/json"]["example"]["data"]


def test_items_have_the_fields_of_the_published_samples_in_their_order(twin, console):
    gate = console.get("/console/v1/gates", params={"limit": 1}).json()["data"][0]
    single = console.get(f"/console/v1/gates/{gate['id']}").json()["data"]
    holdout = console.get(f"/console/v1/holdouts/{twin.holdout_ids[0]}").json()["data"]
    event = console.get("/console/v1/experiments/qualifying_events").json()["data"][0]
    run = console.get(f"/console/v1/ingestion/runs/{twin.ingestion_run_ids[0]}").json()["data"]
    config = console.get("/console/v1/dynamic_configs").json()["data"][0]

    assert list(gate) == list(sample("/console/v1/gates")[0])
    assert list(single) == list(sample("/console/v1/gates/{id}"))
    assert list(holdout) == list(sample("/console/v1/holdouts/{id}"))
    assert list(event) == list(sample("/console/v1/experiments/qualifying_events")[0])
    assert list(run) == list(sample("/console/v1/ingestion/runs/{id}"))
    # The config sample leaves out members the interface lists (owner, teamID, status...): they come after.
    config_sample = list(sample("/console/v1/dynamic_configs")[0])
    assert [name for name in config if name in config_sample] == config_sample
    assert set(config) - set(config_sample) == {"teamID", "owner", "releasePipelineID", "isTemplate", "status"}
