"""Every write validates its body locally, lists every problem, and sends nothing when invalid."""

from __future__ import annotations

import pytest

from gatehouse.contract import ROLE_PERMISSION_FLAGS
from gatehouse.sources.console.errors import LocalValidationError
from tests.client.conftest import answer

PHASE = {"name": "Phase 1", "timeIntervalMs": 0, "requiredReview": True, "rules": []}


def pipeline(**changes):
    return {"name": "p", "phases": [dict(PHASE)], **changes}


INVALID = [
    # (id, call, expected field errors as {property: substring of errorMessage})
    ("pipeline-no-name", lambda c: c.create_release_pipeline({"phases": []}), {"name": "required"}),
    ("pipeline-empty-name", lambda c: c.create_release_pipeline({"name": "  "}), {"name": "must not be empty"}),
    ("pipeline-not-object", lambda c: c.create_release_pipeline(["p"]), {"": "must be an object"}),
    (
        "pipeline-phase-fields",
        lambda c: c.create_release_pipeline(
            {"name": "p", "phases": [{"name": "x", "timeIntervalMs": -1, "requiredReview": "yes"}]}
        ),
        {
            "phases[0].timeIntervalMs": "non-negative integer",
            "phases[0].requiredReview": "must be a boolean",
            "phases[0].rules": "required",
        },
    ),
    (
        "pipeline-interval-not-integer",
        lambda c: c.update_release_pipeline("rp", pipeline(phases=[{**PHASE, "timeIntervalMs": 1.5}])),
        {"phases[0].timeIntervalMs": "non-negative integer"},
    ),
    (
        "pipeline-interval-bool",
        lambda c: c.update_release_pipeline("rp", pipeline(phases=[{**PHASE, "timeIntervalMs": True}])),
        {"phases[0].timeIntervalMs": "non-negative integer"},
    ),
    (
        "pipeline-rule-and-condition",
        lambda c: c.create_release_pipeline(
            pipeline(
                phases=[
                    {**PHASE, "rules": [{"conditions": [{"type": "moon_phase"}, {"operator": "any", "targetValue": [1, "a"]}]}]}
                ]
            )
        ),
        {
            "phases[0].rules[0].name": "required",
            "phases[0].rules[0].conditions[0].type": "unknown condition type 'moon_phase'; valid: app_version",
            "phases[0].rules[0].conditions[1].type": "required",
            "phases[0].rules[0].conditions[1].targetValue": "array of strings",
        },
    ),
    (
        "pipeline-unknown-fields",
        lambda c: c.create_release_pipeline({"name": "p", "phase": [], "phases": [{**PHASE, "timeInterval": 5}]}),
        {"phase": "unknown property; valid: name, phases, triggerNotice", "phases[0].timeInterval": "unknown property"},
    ),
    (
        "pipeline-trigger-notice",
        lambda c: c.create_release_pipeline({"name": "p", "triggerNotice": 3}),
        {"triggerNotice": "must be a string"},
    ),
    ("pipeline-update-empty-id", lambda c: c.update_release_pipeline("", {"name": "p"}), {"release pipeline id": "non-empty"}),
    (
        "role-unknown-flags",
        lambda c: c.create_role("R", {"create_configs": True, "make_coffee": True, "fly": False}),
        {
            "permissions.make_coffee": "unknown permission flag; valid flags: invitation_access",
            "permissions.fly": "manual_whn_reload",
        },
    ),
    ("role-non-bool", lambda c: c.create_role("R", {"create_configs": "yes"}), {"permissions.create_configs": "true or false"}),
    ("role-no-name", lambda c: c.create_role("", {}), {"name": "must not be empty"}),
    ("role-permissions-not-object", lambda c: c.create_role("R", ["create_configs"]), {"permissions": "object of boolean flags"}),
    (
        "wh-unknown-member-and-fields",
        lambda c: c.update_wh_connection(
            {"redshift": {}, "bigquery": {"project": 1, "dataset": "x"}, "snowflake": {"privateKey": None, "accountName": None}}
        ),
        {
            "redshift": "unknown property; valid: databricks, snowflake, bigquery",
            "bigquery.project": "must be a string",
            "bigquery.dataset": "unknown property; valid: privateKey, project, consoleComputeProject, stagingDataset",
            "snowflake.accountName": "not null",
        },
    ),
    ("wh-empty", lambda c: c.update_wh_connection({}), {"": "at least one of databricks, snowflake, bigquery"}),
    ("wh-member-not-object", lambda c: c.update_wh_connection({"databricks": "host=x"}), {"databricks": "must be an object"}),
    ("scim-no-operations", lambda c: c.patch_scim_group("g", {"schemas": []}), {"Operations": "required"}),
    ("scim-empty-operations", lambda c: c.patch_scim_group("g", {"Operations": []}), {"Operations": "at least one"}),
    (
        "scim-operation-fields",
        lambda c: c.patch_scim_group("g", {"Operations": [{"op": "merge", "value": [{"value": "u1"}, "u2"]}], "schemas": [1]}),
        {
            "Operations[0].op": "unknown op 'merge'; valid: replace, add, remove",
            "Operations[0].path": "required",
            "Operations[0].value[0].display": "required",
            "Operations[0].value[1]": "must be an object",
            "schemas[0]": "must be a string",
        },
    ),
    (
        "scim-empty-id",
        lambda c: c.patch_scim_group(" ", {"Operations": [{"op": "add", "path": "members", "value": []}]}),
        {"group id": "non-empty"},
    ),
    ("unarchive-reason-not-string", lambda c: c.unarchive_dynamic_config("c1", 42), {"unarchiveReason": "must be a string"}),
    ("get-empty-id", lambda c: c.get_gate(""), {"gate id": "non-empty"}),
]


@pytest.mark.parametrize("call, expected", [case[1:] for case in INVALID], ids=[case[0] for case in INVALID])
def test_invalid_bodies_list_every_problem_and_send_nothing(make_client, call, expected):
    client, console = make_client(lambda request, sent: answer())
    with pytest.raises(LocalValidationError) as raised:
        call(client)
    err = raised.value
    got = {e["property"]: e["errorMessage"] for e in err.field_errors}
    assert set(got) == set(expected), got
    for prop, text in expected.items():
        assert text in got[prop]
    assert "nothing sent" in str(err) or "non-empty" in str(err)
    assert "\n" not in str(err)
    assert console.sent == []


@pytest.mark.parametrize(
    "dry_call",
    [
        lambda c: c.create_role("R", {"make_coffee": True}, dry_run=True),
        lambda c: c.create_release_pipeline({"phases": []}, dry_run=True),
        lambda c: c.update_wh_connection({"redshift": {}}, dry_run=True),
        lambda c: c.patch_scim_group("g", {"Operations": [{"op": "merge"}]}, dry_run=True),
    ],
)
def test_dry_runs_validate_like_real_sends(make_client, dry_call):
    client, console = make_client(lambda request, sent: answer())
    with pytest.raises(LocalValidationError):
        dry_call(client)
    assert console.sent == []


def test_the_summary_names_each_list_of_valid_values_once(make_client):
    client, _ = make_client(lambda request, sent: answer())
    with pytest.raises(LocalValidationError) as raised:
        client.create_role("R", {"make_coffee": True, "fly": False})
    text = str(raised.value)
    assert text.startswith(
        "invalid role (2 problems, nothing sent): permissions.make_coffee: unknown permission flag; "
        "permissions.fly: unknown permission flag (valid flags: invitation_access, "
    )
    assert text.count("invitation_access") == 1 and text.endswith("manual_whn_reload)")


def test_every_known_permission_flag_is_accepted(make_client):
    client, console = make_client(lambda request, sent: answer(201, {"message": "Role created successfully.", "data": {}}))
    permissions = {flag: i % 2 == 0 for i, flag in enumerate(ROLE_PERMISSION_FLAGS)}
    assert len(permissions) == 27
    client.create_role("All", permissions)
    assert console.sent[0].body == {"name": "All", "permissions": permissions}


@pytest.mark.parametrize(
    "target",
    [None, "1.2.3", 3, 2.5, ["a", "b"], [1, 2.5], []],
)
def test_condition_target_values_of_every_documented_shape_are_accepted(make_client, target):
    client, console = make_client(lambda request, sent: answer())
    body = pipeline(
        phases=[
            {
                **PHASE,
                "rules": [
                    {
                        "name": "r",
                        "conditions": [
                            {"type": "app_version", "targetValue": target, "operator": "any", "field": None, "customID": None}
                        ],
                        "environments": None,
                    }
                ],
            }
        ]
    )
    client.create_release_pipeline(body)
    assert console.sent[0].body == body


def test_a_release_pipeline_update_may_leave_out_the_name(make_client):
    # ReleasePipelineUpdateDto requires nothing (the create's DTO requires `name`): an update of the
    # phases alone is valid and is sent as given.
    client, console = make_client(lambda request, sent: answer(200, {"message": "Get pipeline success", "data": {"id": "rp"}}))
    result = client.update_release_pipeline("rp", {"phases": [dict(PHASE)]})
    assert result.status == 200
    assert [(s.method, s.path, s.body) for s in console.sent] == [
        ("POST", "/console/v1/release_pipelines/rp", {"phases": [PHASE]})
    ]


@pytest.mark.parametrize("name", ["  ", None, 3])
def test_a_release_pipeline_update_that_names_it_still_needs_a_non_empty_string(make_client, name):
    client, console = make_client(lambda request, sent: answer(200))
    with pytest.raises(LocalValidationError) as failure:
        client.update_release_pipeline("rp", {"name": name})
    assert [e["property"] for e in failure.value.field_errors] == ["name"]
    assert console.sent == []
