"""Bad input ends with one clear line, exit code 2, and not a single request to the console."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.commands.conftest import SECRETS
from tests.commands.test_writes import PIPELINE, SCIM_PATCH

# Commands that read a body from --file: argv before the file, given a twin.
FILE_COMMANDS = {
    "release-pipeline create": lambda twin: ["release-pipeline", "create"],
    "release-pipeline update": lambda twin: ["release-pipeline", "update", next(iter(twin.organisation.release_pipelines))],
    "role create": lambda twin: ["role", "create", "Reviewer"],
    "scim group-patch": lambda twin: ["scim", "group-patch", next(iter(twin.organisation.scim_groups))],
}


def _directory(tmp: Path) -> str:
    (tmp / "body.yaml").mkdir()
    return str(tmp / "body.yaml")


def _written(name: str, content: bytes):
    def make(tmp: Path) -> str:
        (tmp / name).write_bytes(content)
        return str(tmp / name)

    return make


BAD_FILES = {
    "missing": (lambda tmp: str(tmp / "nowhere.yaml"), "does not exist"),
    "a directory": (_directory, "is a directory"),
    "not UTF-8": (_written("body.yaml", b"name: \xff\xfe\n"), "is not UTF-8 text"),
    "invalid JSON": (_written("body.json", b'{"name": "x",}'), "is not valid JSON: Expecting property name"),
    "invalid YAML": (_written("body.yaml", b"name: [unclosed\nphases: 3\n"), "is not valid YAML or JSON"),
    "empty": (_written("body.yaml", b"# nothing here\n"), "is empty"),
    "not an object": (_written("body.json", b'["name", "phases"]'), "must hold an object"),
    # both parsers keep the last of a key given twice: the first would be dropped, never sent
    "a JSON key twice": (_written("body.json", b'{"name": "first", "name": "second"}'), "gives field 'name' twice"),
    "a YAML key twice": (_written("body.yaml", b"name: x\nname: y\n"), "gives field 'name' twice (line 2)"),
    "a YAML list as a key": (_written("body.yaml", b"name: x\n? [a, b]\n: 1\n"), "found unhashable key at line 2"),
}


@pytest.mark.parametrize("problem", BAD_FILES)
@pytest.mark.parametrize("command", FILE_COMMANDS)
def test_bad_file_is_one_line_naming_it(command, problem, twin, gatehouse, tmp_path):
    make, message = BAD_FILES[problem]
    path = make(tmp_path)
    run = gatehouse(*FILE_COMMANDS[command](twin), "--file", path)
    assert run.code == 2
    assert message in run.error_line and path in run.error_line
    assert run.out == "" and twin.requests == []


INVALID_BODIES = {
    "release-pipeline create": (
        {
            "phases": [
                {
                    "name": "Internal",
                    "timeIntervalMs": -5,
                    "requiredReview": "no",
                    "rules": [{"name": "r", "conditions": [{"type": "moon_phase"}, {"operator": "any"}]}],
                }
            ],
            "trigger": "typo",
        },
        [
            "name: required",
            "phases[0].timeIntervalMs: must be a non-negative integer",
            "phases[0].requiredReview: must be a boolean",
            "phases[0].rules[0].conditions[0].type: unknown condition type 'moon_phase'",
            "phases[0].rules[0].conditions[1].type: required",
            "trigger: unknown property",
        ],
    ),
    "release-pipeline update": (
        {"name": "Staged", "phases": [{"name": "One", "timeIntervalMs": 1.5, "requiredReview": False, "rules": []}]},
        ["phases[0].timeIntervalMs: must be a non-negative integer"],
    ),
    "role create": (
        {"permissions": {"create_configs": "yes", "make_coffee": True}},
        ["permissions.create_configs: must be true or false", "permissions.make_coffee: unknown permission flag"],
    ),
    "scim group-patch": (
        {"Operations": [{"op": "merge", "path": "members", "value": [{"value": "u1"}]}]},
        ["Operations[0].op: unknown op 'merge'", "replace, add, remove", "Operations[0].value[0].display: required"],
    ),
}


@pytest.mark.parametrize("command", INVALID_BODIES)
def test_body_failing_local_validation_lists_every_problem(command, twin, gatehouse, tmp_path):
    body, problems = INVALID_BODIES[command]
    path = tmp_path / "body.json"
    path.write_text(json.dumps(body))
    run = gatehouse(*FILE_COMMANDS[command](twin), "--file", str(path))
    assert run.code == 2
    assert "nothing sent" in run.error_line
    for problem in problems:
        assert problem in run.error_line
    assert twin.requests == []


@pytest.mark.parametrize("command", INVALID_BODIES)
def test_invalid_body_is_refused_in_a_dry_run_too(command, twin, gatehouse, tmp_path):
    path = tmp_path / "body.json"
    path.write_text(json.dumps(INVALID_BODIES[command][0]))
    run = gatehouse(*FILE_COMMANDS[command](twin), "--file", str(path), "--dry-run")
    assert run.code == 2 and "nothing sent" in run.error_line and run.out == ""


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--allow", "create_config"], "unknown role flag 'create_config' (did you mean create_configs?)"),
        (
            ["--allow", "create_configs,fly_rockets", "--allow", "approve_review"],
            "unknown role flags 'fly_rockets', 'approve_review' (did you mean approve_reviews?)",
        ),
    ],
)
def test_unknown_role_flag_lists_the_valid_ones(argv, message, twin, gatehouse):
    run = gatehouse("role", "create", "Reviewer", *argv)
    assert run.code == 2
    assert message in run.error_line
    assert "valid flags: invitation_access, create_configs," in run.error_line and "manual_whn_reload" in run.error_line
    assert twin.requests == []


def test_unknown_role_flag_in_a_file_list(twin, gatehouse, tmp_path):
    path = tmp_path / "role.yaml"
    path.write_text("name: Reviewer\npermissions: [approve_reviews, fly]\n")
    run = gatehouse("role", "create", "--file", str(path))
    assert run.code == 2 and "unknown role flag 'fly'" in run.error_line and twin.requests == []


@pytest.mark.parametrize(
    "argv, message",
    [
        (["role", "create", "--allow", "create_configs"], "a role needs a name"),
        (["role", "create", "--file", "ROLE"], "unknown field(s) members"),
        (["unarchive-config", " "], "config id: must be a non-empty string"),
    ],
)
def test_incomplete_write_is_refused(argv, message, twin, gatehouse, tmp_path):
    role = tmp_path / "role.yaml"
    role.write_text("name: Reviewer\npermissions: [approve_reviews]\nmembers: [a]\n")
    run = gatehouse(*[str(role) if arg == "ROLE" else arg for arg in argv])
    assert run.code == 2 and message in run.error_line and twin.requests == []


def test_a_yaml_merge_key_is_no_key_given_twice(twin, gatehouse, tmp_path):
    # `<<: *base` merges a mapping; a key after it overrides the merged one, as YAML means
    path = tmp_path / "role.yaml"
    path.write_text("base: &base {name: Draft, permissions: [approve_reviews]}\nrole:\n  <<: *base\n  name: Reviewer\n")
    from gatehouse.pipelines.cli.console.documents import load_document

    assert load_document(str(path), "role file")["role"] == {"name": "Reviewer", "permissions": ["approve_reviews"]}


def test_role_needs_flags_or_a_file(twin, gatehouse):
    with pytest.raises(SystemExit) as stop:
        gatehouse("role", "create", "Reviewer")
    assert stop.value.code == 2 and twin.requests == []


# Configuration problems: the command says which setting to fix and sends nothing.
def test_missing_api_key_names_the_setting(twin, gatehouse, monkeypatch):
    monkeypatch.setenv("SOURCES__CONSOLE__API_KEY", "")
    run = gatehouse("role", "create", "Reviewer", "--allow", "approve_reviews")
    assert run.code == 2
    assert "sources.console.api_key" in run.error_line and "SOURCES__CONSOLE__API_KEY" in run.error_line
    assert twin.requests == []


def test_missing_scim_token_names_the_setting(twin, gatehouse, monkeypatch, tmp_path):
    monkeypatch.delenv("SOURCES__CONSOLE__SCIM_TOKEN")
    path = tmp_path / "patch.json"
    path.write_text(json.dumps(SCIM_PATCH))
    run = gatehouse("scim", "group-patch", "g1", "--file", str(path), "--dry-run")
    assert run.code == 2
    assert "sources.console.scim_token" in run.error_line and "SOURCES__CONSOLE__SCIM_TOKEN" in run.error_line
    assert twin.requests == []


def test_missing_base_url_names_the_setting_and_the_option(twin, gatehouse):
    run = gatehouse("gate", "g1", with_base_url=False)
    assert run.code == 2
    assert "sources.console.base_url" in run.error_line and "SOURCES__CONSOLE__BASE_URL" in run.error_line
    assert "--base-url" in run.error_line
    assert twin.requests == []


def test_base_url_from_the_environment_and_after_the_command(twin, gatehouse, base_url, monkeypatch, tmp_path):
    monkeypatch.setenv("SOURCES__CONSOLE__BASE_URL", base_url)
    gate = twin.organisation.listed_gates()[0]["id"]
    assert gatehouse("gate", gate, with_base_url=False).code == 0
    monkeypatch.setenv("SOURCES__CONSOLE__BASE_URL", "http://127.0.0.1:9")
    assert gatehouse("gate", gate, "--base-url", base_url, with_base_url=False).code == 0
    assert len(twin.requests) == 2


def test_base_url_with_the_api_prefix_is_refused(twin, gatehouse, base_url):
    run = gatehouse("--base-url", f"{base_url}/console/v1", "gate", "g1", with_base_url=False)
    assert run.code == 2 and "must be the service root" in run.error_line and twin.requests == []


def test_unreachable_console_is_one_line(gatehouse, monkeypatch):
    run = gatehouse("--base-url", "http://127.0.0.1:9", "holdout", "h1", with_base_url=False)
    assert run.code == 2 and "could not connect" in run.error_line


def test_no_traceback_even_when_verbose(twin, gatehouse, monkeypatch):
    monkeypatch.setenv("SOURCES__CONSOLE__API_KEY", SECRETS["wrong_api_key"])
    run = gatehouse("gate", "g1", verbose=True)
    assert run.code == 2
    # -vv logs the failure's details for debugging; the key is redacted there too (checked for every run).
    assert run.err.strip().splitlines()[-1] == run.error_line


def test_valid_pipeline_file_passes(twin, gatehouse, tmp_path):
    path = tmp_path / "pipeline.yml"
    path.write_text(json.dumps(PIPELINE))  # YAML reads JSON too
    assert gatehouse("release-pipeline", "create", "--file", str(path), "--dry-run").code == 0
