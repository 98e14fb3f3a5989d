"""Write commands against the twin over loopback: the one request sent, dry runs, and the console's refusals."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from gatehouse.contract import ROLE_PERMISSION_FLAGS
from tests.commands.conftest import SECRETS

PIPELINE = {
    "name": "Staged rollout",
    "triggerNotice": "Rolling out in two steps",
    "phases": [
        {
            "name": "Internal",
            "timeIntervalMs": 86_400_000,
            "requiredReview": False,
            "rules": [
                {
                    "name": "Staff",
                    "environments": ["production"],
                    "conditions": [{"type": "environment_tier", "operator": "any", "targetValue": ["staging"]}],
                }
            ],
        },
        {"name": "Everyone", "timeIntervalMs": 0, "requiredReview": True, "rules": []},
    ],
}
SCIM_PATCH = {
    "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
    "Operations": [{"op": "add", "path": "members", "value": [{"value": "user_123", "display": "Ada Lovelace"}]}],
}


def role_body(name: str, *granted: str) -> dict:
    return {"name": name, "permissions": {flag: flag in granted for flag in ROLE_PERMISSION_FLAGS}}


def archived_config(twin) -> str:
    return next(id_ for id_, config in twin.organisation.dynamic_configs.items() if config["status"] == "Archived")


def any_pipeline(twin) -> str:
    return next(iter(twin.organisation.release_pipelines))


def any_group(twin) -> str:
    return next(iter(twin.organisation.scim_groups))


def write_file(directory: Path, name: str, document: object) -> str:
    path = directory / name
    path.write_text(json.dumps(document) if name.endswith(".json") else yaml.safe_dump(document, sort_keys=False))
    return str(path)


@dataclass(frozen=True)
class Write:
    argv: Callable  # (twin, tmp_path) -> argv
    method: str
    path: Callable  # twin -> the path asked
    body: dict
    scim: bool = False
    create: bool = False


WRITES = {
    "unarchive-config": Write(
        lambda twin, tmp: ["unarchive-config", archived_config(twin), "--reason", "needed for the spring sale"],
        "PUT",
        lambda twin: f"/console/v1/dynamic_configs/{archived_config(twin)}/unarchive",
        {"unarchiveReason": "needed for the spring sale"},
    ),
    "release-pipeline create": Write(
        lambda twin, tmp: ["release-pipeline", "create", "--file", write_file(tmp, "pipeline.yaml", PIPELINE)],
        "POST",
        lambda twin: "/console/v1/release_pipelines",
        PIPELINE,
        create=True,
    ),
    "release-pipeline update": Write(
        lambda twin, tmp: [
            "release-pipeline",
            "update",
            any_pipeline(twin),
            "--file",
            write_file(tmp, "pipeline.json", PIPELINE),
        ],
        "POST",
        lambda twin: f"/console/v1/release_pipelines/{any_pipeline(twin)}",
        PIPELINE,
    ),
    "role create --allow": Write(
        lambda twin, tmp: [
            "role",
            "create",
            "Release manager",
            "--allow",
            "create_release_pipelines,approve_reviews",
            "--allow",
            "verify_metrics",
        ],
        "POST",
        lambda twin: "/console/v1/roles",
        role_body("Release manager", "create_release_pipelines", "approve_reviews", "verify_metrics"),
        create=True,
    ),
    "role create --file": Write(
        lambda twin, tmp: [
            "role",
            "create",
            "--file",
            write_file(tmp, "role.yaml", {"name": "Auditor", "permissions": ["use_metrics_explorer"]}),
        ],
        "POST",
        lambda twin: "/console/v1/roles",
        role_body("Auditor", "use_metrics_explorer"),
        create=True,
    ),
    "scim group-patch": Write(
        lambda twin, tmp: ["scim", "group-patch", any_group(twin), "--file", write_file(tmp, "patch.yaml", SCIM_PATCH)],
        "PATCH",
        lambda twin: f"/scim/Groups/{any_group(twin)}",
        SCIM_PATCH,
        scim=True,
    ),
}
CREATES = [name for name, write in WRITES.items() if write.create]


@pytest.mark.parametrize("name", WRITES)
def test_write_sends_one_request_and_prints_the_answer(name, twin, gatehouse, tmp_path):
    write = WRITES[name]
    path = write.path(twin)
    run = gatehouse(*write.argv(twin, tmp_path))
    assert run.code == 0, run.err
    [request] = twin.requests
    assert (request.method, request.path) == (write.method, path)
    assert json.loads(request.body) == write.body
    if write.scim:
        assert request.headers["authorization"] == f"Bearer {SECRETS['scim_token']}"
        assert "service-api-key" not in request.headers
    else:
        assert request.headers["service-api-key"] == SECRETS["api_key"]
    assert "x-respect-review-settings" not in request.headers
    answer = run.json()
    assert answer["status"] == request.status
    if write.scim:  # the SCIM answer is the group itself, without a message: shown as the data
        group_id = any_group(twin)
        assert answer["message"] is None
        assert answer["data"]["id"] == group_id
        assert {"value": "user_123", "display": "Ada Lovelace"} in answer["data"]["members"], "the group as patched"
    else:
        assert answer["message"]


def test_created_role_is_in_the_console(twin, gatehouse):
    run = gatehouse("role", "create", "Viewer", "--allow", "use_metrics_explorer")
    assert run.code == 0, run.err
    assert run.json()["status"] == 201 and run.json()["message"] == "Role created successfully."
    stored = twin.organisation.roles["Viewer"]["permissions"]
    assert [flag for flag, granted in stored.items() if granted] == ["use_metrics_explorer"]


def test_role_file_may_give_a_mapping_and_name_on_the_command_line_wins(twin, gatehouse, tmp_path):
    path = write_file(tmp_path, "role.json", {"name": "ignored", "permissions": {"create_teams": True, "create_configs": False}})
    run = gatehouse("role", "create", "Team lead", "--file", path)
    assert run.code == 0, run.err
    assert json.loads(twin.requests[0].body) == {
        "name": "Team lead",
        "permissions": {"create_teams": True, "create_configs": False},
    }


def test_file_from_stdin(twin, gatehouse, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(PIPELINE)))
    run = gatehouse("release-pipeline", "create", "--file", "-")
    assert run.code == 0, run.err
    assert json.loads(twin.requests[0].body) == PIPELINE


@pytest.mark.parametrize("name", WRITES)
def test_dry_run_prints_the_exact_request_and_sends_nothing(name, twin, gatehouse, tmp_path, base_url):
    write = WRITES[name]
    run = gatehouse(*write.argv(twin, tmp_path), "--dry-run", "--respect-review-settings")
    assert run.code == 0, run.err
    assert twin.requests == []
    shown = run.json()
    assert (shown["method"], shown["path"]) == (write.method, write.path(twin))
    assert shown["url"] == base_url + write.path(twin)
    assert shown["body"] == write.body
    credential = "Authorization" if write.scim else "SERVICE-API-KEY"
    assert shown["headers"][credential] == "***"
    if not write.scim:
        assert shown["headers"]["x-respect-review-settings"] == "true"
    assert "dry run: nothing was sent" in run.err


@pytest.mark.parametrize("name", WRITES)
def test_respect_review_settings_sends_the_header(name, twin, gatehouse, tmp_path):
    write = WRITES[name]
    run = gatehouse(*write.argv(twin, tmp_path), "--respect-review-settings")
    assert run.code == 0, run.err
    [request] = twin.requests
    if write.scim:  # the SCIM endpoint documents no such header; the client leaves it out
        assert "x-respect-review-settings" not in request.headers
    else:
        assert request.headers["x-respect-review-settings"] == "true"


@pytest.mark.parametrize("fault", ["drop", "slow"])
@pytest.mark.parametrize("name", CREATES)
def test_create_without_answer_is_outcome_unknown_and_not_retried(name, fault, twin, gatehouse, tmp_path, monkeypatch):
    from gatehouse.console_twin.settings import Fault

    write = WRITES[name]
    monkeypatch.setenv("SOURCES__CONSOLE__TIMEOUT", "0.3")
    twin.settings.faults = [Fault(fault, on_requests={1})]
    run = gatehouse(*write.argv(twin, tmp_path), verbose=True)
    assert run.code == 2
    assert run.error_line.startswith("gatehouse: error: outcome unknown:")
    assert "may or may not have been created" in run.error_line
    assert "sent once and not retried: look for" in run.error_line and "in the console's UI" in run.error_line
    assert len(twin.requests) == 1  # sent once, never again


def test_update_is_retried_when_its_answer_is_lost(twin, gatehouse, tmp_path):
    from gatehouse.console_twin.settings import Fault

    twin.settings.faults = [Fault("drop", on_requests={1})]
    run = gatehouse(*WRITES["release-pipeline update"].argv(twin, tmp_path))
    assert run.code == 0, run.err
    assert len(twin.requests) == 2


REJECTED = {
    # name -> (arrange the twin, argv, field error shown)
    "role that exists": (
        lambda twin, tmp: twin.organisation.roles.setdefault("Existing", {"name": "Existing", "permissions": {}}),
        lambda twin, tmp: ["role", "create", "Existing", "--allow", "create_configs"],
        "name: already exists",
    ),
    "config not archived": (
        lambda twin, tmp: None,
        lambda twin, tmp: ["unarchive-config", twin.organisation.listed_dynamic_configs()[0]["id"]],
        "id: is not archived",
    ),
    "SCIM path the console refuses": (
        lambda twin, tmp: None,
        lambda twin, tmp: [
            "scim",
            "group-patch",
            any_group(twin),
            "--file",
            write_file(
                tmp,
                "patch.json",
                {"Operations": [{"op": "replace", "path": "displayName", "value": [{"value": "a", "display": "b"}]}]},
            ),
        ],
        "Operations[0].path: must be one of members",
    ),
}


@pytest.mark.parametrize("case", REJECTED)
def test_400_shows_the_console_field_errors(case, twin, gatehouse, tmp_path):
    arrange, argv, field_error = REJECTED[case]
    arrange(twin, tmp_path)
    before = json.dumps(
        [twin.organisation.roles, twin.organisation.dynamic_configs, twin.organisation.scim_groups], sort_keys=True
    )
    run = gatehouse(*argv(twin, tmp_path))
    assert run.code == 2
    assert "400" in run.error_line and field_error in run.error_line
    assert [r.status for r in twin.requests] == [400]
    assert (
        json.dumps([twin.organisation.roles, twin.organisation.dynamic_configs, twin.organisation.scim_groups], sort_keys=True)
        == before
    )


@pytest.mark.parametrize("name", WRITES)
def test_rejected_credential_names_the_setting_and_never_the_secret(name, twin, gatehouse, tmp_path, monkeypatch):
    write = WRITES[name]
    monkeypatch.setenv("SOURCES__CONSOLE__API_KEY", SECRETS["wrong_api_key"])
    monkeypatch.setenv("SOURCES__CONSOLE__SCIM_TOKEN", SECRETS["wrong_scim_token"])
    run = gatehouse(*write.argv(twin, tmp_path), verbose=True)
    assert run.code == 2
    assert "401" in run.error_line
    setting = "sources.console.scim_token" if write.scim else "sources.console.api_key"
    assert setting in run.error_line
    assert len(twin.requests) == 1


@pytest.mark.parametrize("name", [name for name, write in WRITES.items() if not write.scim])
def test_forbidden_key_says_which_permission_is_needed(name, twin, gatehouse, tmp_path, monkeypatch):
    write = WRITES[name]
    monkeypatch.setenv("SOURCES__CONSOLE__API_KEY", SECRETS["forbidden_api_key"])
    run = gatehouse(*write.argv(twin, tmp_path))
    assert run.code == 2
    assert "403" in run.error_line and "needs" in run.error_line


NOT_FOUND = {
    "unarchive-config": lambda tmp: ["unarchive-config", "no-such-config"],
    "release-pipeline update": lambda tmp: [
        "release-pipeline",
        "update",
        "no-such-pipeline",
        "--file",
        write_file(tmp, "p.json", PIPELINE),
    ],
    "scim group-patch": lambda tmp: ["scim", "group-patch", "no-such-group", "--file", write_file(tmp, "p.json", SCIM_PATCH)],
}


@pytest.mark.parametrize("name", NOT_FOUND)
def test_unknown_id_is_one_line_naming_it(name, twin, gatehouse, tmp_path):
    run = gatehouse(*NOT_FOUND[name](tmp_path))
    assert run.code == 2
    assert "404" in run.error_line and "not found" in run.error_line and "no-such-" in run.error_line
