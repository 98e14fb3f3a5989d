"""`wh-connection set`: settings as options, secrets from a file, the environment or a hidden prompt, never echoed."""

from __future__ import annotations

import json

import pytest
import yaml

from tests.commands.conftest import SECRETS

DATABRICKS = [
    "--databricks",
    "--host",
    "dbc-1234.cloud.databricks.com",
    "--path",
    "/sql/1.0/warehouses/abc",
    "--staging-database",
    "gh_staging",
]
SNOWFLAKE = [
    "--snowflake",
    "--account-name",
    "acme-eu",
    "--service-user-name",
    "SVC_GH",
    "--staging-database-name",
    "ANALYTICS",
    "--staging-schema-name",
    "GH_STAGING",
    "--compute-warehouse",
    "GH_WH",
]
BIGQUERY = ["--bigquery", "--project", "acme-exp", "--staging-dataset", "gh_staging", "--console-compute-project", "acme-console"]

DATABRICKS_FIELDS = {"host": "dbc-1234.cloud.databricks.com", "path": "/sql/1.0/warehouses/abc", "stagingDatabase": "gh_staging"}
SNOWFLAKE_FIELDS = {
    "accountName": "acme-eu",
    "serviceUserName": "SVC_GH",
    "stagingDatabaseName": "ANALYTICS",
    "stagingSchemaName": "GH_STAGING",
    "computeWarehouse": "GH_WH",
}
BIGQUERY_FIELDS = {"project": "acme-exp", "stagingDataset": "gh_staging", "consoleComputeProject": "acme-console"}

# name -> (options, environment, secrets file content or None, body sent)
CONNECTIONS = {
    "databricks from the environment": (
        DATABRICKS,
        {"GATEHOUSE_DATABRICKS_ACCESS_TOKEN": SECRETS["databricks_access_token"]},
        None,
        {"databricks": {**DATABRICKS_FIELDS, "accessToken": SECRETS["databricks_access_token"]}},
    ),
    "snowflake password from the environment": (
        SNOWFLAKE,
        {"GATEHOUSE_SNOWFLAKE_PASSWORD": SECRETS["snowflake_password"]},
        None,
        {"snowflake": {**SNOWFLAKE_FIELDS, "serviceUserPassword": SECRETS["snowflake_password"]}},
    ),
    "snowflake key pair from a secrets file": (
        SNOWFLAKE + ["--console-compute-warehouse", "GH_CONSOLE_WH"],
        {},
        {"snowflake": {"privateKey": SECRETS["snowflake_private_key"], "keyPassPhrase": SECRETS["snowflake_key_passphrase"]}},
        {
            "snowflake": {
                **SNOWFLAKE_FIELDS,
                "consoleComputeWarehouse": "GH_CONSOLE_WH",
                "privateKey": SECRETS["snowflake_private_key"],
                "keyPassPhrase": SECRETS["snowflake_key_passphrase"],
            }
        },
    ),
    "bigquery key from the environment": (
        BIGQUERY,
        {"GATEHOUSE_BIGQUERY_PRIVATE_KEY": SECRETS["bigquery_private_key"]},
        None,
        {"bigquery": {**BIGQUERY_FIELDS, "privateKey": SECRETS["bigquery_private_key"]}},
    ),
}
SECRET_FIELDS = {"accessToken", "serviceUserPassword", "privateKey", "keyPassPhrase"}


def arrange(case, monkeypatch, tmp_path) -> list[str]:
    options, environment, secrets_file, _ = CONNECTIONS[case]
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    if secrets_file is None:
        return ["wh-connection", "set", *options]
    path = tmp_path / "secrets.yaml"
    path.write_text(yaml.safe_dump(secrets_file))
    return ["wh-connection", "set", *options, "--secrets-file", str(path)]


@pytest.mark.parametrize("case", CONNECTIONS)
def test_set_sends_the_connection_with_its_secrets(case, twin, gatehouse, monkeypatch, tmp_path):
    run = gatehouse(*arrange(case, monkeypatch, tmp_path))
    assert run.code == 0, run.err
    [request] = twin.requests
    assert (request.method, request.path) == ("PATCH", "/console/v1/wh_connections")
    assert json.loads(request.body) == CONNECTIONS[case][3]
    assert run.json() == {"status": 200, "message": "Connection updated successfully", "data": None}


@pytest.mark.parametrize("case", CONNECTIONS)
def test_dry_run_shows_secrets_as_stars_and_sends_nothing(case, twin, gatehouse, monkeypatch, tmp_path):
    run = gatehouse(*arrange(case, monkeypatch, tmp_path), "--dry-run")
    assert run.code == 0, run.err
    assert twin.requests == []
    shown = run.json()
    assert (shown["method"], shown["path"]) == ("PATCH", "/console/v1/wh_connections")
    [(member, fields)] = shown["body"].items()
    sent = CONNECTIONS[case][3][member]
    assert fields == {name: "***" if name in SECRET_FIELDS else value for name, value in sent.items()}


def test_secrets_file_wins_over_the_environment(twin, gatehouse, monkeypatch, tmp_path):
    monkeypatch.setenv("GATEHOUSE_DATABRICKS_ACCESS_TOKEN", SECRETS["wrong_api_key"])
    path = tmp_path / "secrets.json"
    path.write_text(json.dumps({"databricks": {"accessToken": SECRETS["databricks_access_token"]}}))
    run = gatehouse("wh-connection", "set", *DATABRICKS, "--secrets-file", str(path))
    assert run.code == 0, run.err
    assert json.loads(twin.requests[0].body)["databricks"]["accessToken"] == SECRETS["databricks_access_token"]


def test_hidden_prompt_when_stdin_is_a_terminal(twin, gatehouse, monkeypatch):
    prompts = []
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("getpass.getpass", lambda prompt: prompts.append(prompt) or SECRETS["snowflake_password"])
    run = gatehouse("wh-connection", "set", *SNOWFLAKE)
    assert run.code == 0, run.err
    assert prompts == ["snowflake serviceUserPassword (not echoed): "]
    assert json.loads(twin.requests[0].body)["snowflake"]["serviceUserPassword"] == SECRETS["snowflake_password"]


MISSING = {
    "databricks": (DATABRICKS, "GATEHOUSE_DATABRICKS_ACCESS_TOKEN"),
    "snowflake": (SNOWFLAKE, "GATEHOUSE_SNOWFLAKE_PASSWORD (or GATEHOUSE_SNOWFLAKE_PRIVATE_KEY)"),
    "bigquery": (BIGQUERY, "GATEHOUSE_BIGQUERY_PRIVATE_KEY"),
}


@pytest.mark.parametrize("warehouse", MISSING)
def test_missing_secret_is_one_line_and_nothing_is_sent(warehouse, twin, gatehouse, monkeypatch):
    prompted = []
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    monkeypatch.setattr("getpass.getpass", lambda prompt: prompted.append(prompt) or "")
    options, variable = MISSING[warehouse]
    run = gatehouse("wh-connection", "set", *options)
    assert run.code == 2
    assert variable in run.error_line and "--secrets-file" in run.error_line
    assert prompted == [] and twin.requests == []


def test_private_keys_are_never_prompted_for(twin, gatehouse, monkeypatch):
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("getpass.getpass", lambda prompt: pytest.fail("prompted for a private key"))
    run = gatehouse("wh-connection", "set", *BIGQUERY)
    assert run.code == 2
    assert "not prompted for" in run.error_line and twin.requests == []


def test_empty_prompt_answer_is_a_missing_secret(twin, gatehouse, monkeypatch):
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("getpass.getpass", lambda prompt: "")
    run = gatehouse("wh-connection", "set", *DATABRICKS)
    assert run.code == 2 and "no databricks accessToken" in run.error_line and twin.requests == []


@pytest.mark.parametrize("option", ["--password", "--access-token", "--private-key", "--key-passphrase", "--token"])
def test_secret_on_the_command_line_is_refused_without_echo(option, twin, gatehouse, monkeypatch):
    monkeypatch.setenv("GATEHOUSE_SNOWFLAKE_PASSWORD", "unused-but-present")
    run = gatehouse("wh-connection", "set", *SNOWFLAKE, option, SECRETS["snowflake_password"])
    assert run.code == 2
    assert f"{option} is not accepted" in run.error_line
    assert twin.requests == []  # and the value is in no output: the gatehouse fixture checks every run


@pytest.mark.parametrize(
    "options, message",
    [
        (["--snowflake", "--account-name", "acme-eu"], "--snowflake needs --service-user-name, --staging-database-name"),
        ([*DATABRICKS, "--project", "acme"], "--project does not apply to --databricks"),
    ],
)
def test_options_must_fit_the_warehouse(options, message, twin, gatehouse, monkeypatch):
    monkeypatch.setenv("GATEHOUSE_DATABRICKS_ACCESS_TOKEN", SECRETS["databricks_access_token"])
    monkeypatch.setenv("GATEHOUSE_SNOWFLAKE_PASSWORD", SECRETS["snowflake_password"])
    run = gatehouse("wh-connection", "set", *options)
    assert run.code == 2 and message in run.error_line and twin.requests == []


@pytest.mark.parametrize(
    "document, message",
    [
        ({"snowflake": {"password": SECRETS["snowflake_password"]}}, "unknown key(s) password"),
        ({"snowflake": {"serviceUserPassword": 12345}}, "snowflake.serviceUserPassword must be text"),
        ({"redshift": {}}, "unknown key(s) redshift"),
        ({"snowflake": "just-a-string"}, "snowflake must be a mapping"),
    ],
)
def test_bad_secrets_file_is_one_line_that_quotes_no_value(document, message, twin, gatehouse, tmp_path):
    path = tmp_path / "secrets.yaml"
    path.write_text(yaml.safe_dump(document))
    run = gatehouse("wh-connection", "set", *SNOWFLAKE, "--secrets-file", str(path))
    assert run.code == 2 and message in run.error_line and twin.requests == []


def test_unparsable_secrets_file_quotes_no_line_of_it(twin, gatehouse, tmp_path):
    path = tmp_path / "secrets.yaml"
    path.write_text(f"snowflake:\n  serviceUserPassword: {SECRETS['snowflake_password']}\n   bad: [indent\n")
    run = gatehouse("wh-connection", "set", *SNOWFLAKE, "--secrets-file", str(path), verbose=True)
    assert run.code == 2 and "is not valid YAML" in run.error_line and "line" in run.error_line
    assert twin.requests == []


def test_forbidden_key_gets_the_warehouse_permission_hint(twin, gatehouse, monkeypatch):
    monkeypatch.setenv("SOURCES__CONSOLE__API_KEY", SECRETS["forbidden_api_key"])
    monkeypatch.setenv("GATEHOUSE_DATABRICKS_ACCESS_TOKEN", SECRETS["databricks_access_token"])
    run = gatehouse("wh-connection", "set", *DATABRICKS, verbose=True)
    assert run.code == 2
    assert "403" in run.error_line and "data_warehouse_ingestion_and_exports_edit_access" in run.error_line
