"""A secret typed as an option of any console command, in any spelling, is refused in one line that names the
option and never the value, and nothing is sent. The `gatehouse` fixture fails any run whose output holds a
sentinel secret (tests/commands/conftest.py), so each case also proves the value was not echoed."""

from __future__ import annotations

import pytest

from tests.commands.conftest import SECRETS

REFUSED = (
    "gatehouse: error: {} is not accepted: secrets are never taken from the command line, where shell history and"
    " process lists keep them (rotate it if it was real); the console's API key and SCIM token come from"
    " .dlt/secrets.toml or SOURCES__CONSOLE__*, a warehouse's secrets from --secrets-file or GATEHOUSE_* (see the"
    " command's --help)"
)
DATABRICKS = ["wh-connection", "set", "--databricks", "--host", "h", "--path", "p", "--staging-database", "s"]
SNOWFLAKE = ["wh-connection", "set", "--snowflake", "--account-name", "acme-eu", "--service-user-name", "SVC",
             "--staging-database-name", "DB", "--staging-schema-name", "GH", "--compute-warehouse", "WH"]  # fmt: skip
TOKEN = SECRETS["databricks_access_token"]
PASSWORD = SECRETS["snowflake_password"]


@pytest.mark.parametrize(("command", "typed", "option"), [
    # the interface's own spellings, as the help's group titles show them
    (DATABRICKS, ["--accessToken", TOKEN], "--accessToken"),
    (SNOWFLAKE, [f"--serviceUserPassword={PASSWORD}"], "--serviceUserPassword"),
    (SNOWFLAKE, ["--privateKey", SECRETS["snowflake_private_key"]], "--privateKey"),
    (SNOWFLAKE, ["--keyPassPhrase", SECRETS["snowflake_key_passphrase"]], "--keyPassPhrase"),
    # snake_case, dashed, any case, with `=` or apart, a value that starts with a dash
    (DATABRICKS, ["--access_token", TOKEN], "--access_token"),
    (DATABRICKS, [f"--ACCESS-TOKEN={TOKEN}"], "--ACCESS-TOKEN"),
    (DATABRICKS, ["--token", f"-{TOKEN}"], "--token"),
    (SNOWFLAKE, ["--key_pass_phrase", SECRETS["snowflake_key_passphrase"]], "--key_pass_phrase"),
    (SNOWFLAKE, ["--password", PASSWORD, "--dry-run"], "--password"),
    # before the warehouse's options, and anywhere else among the console's commands
    (["wh-connection", "set", "--privatekey", SECRETS["bigquery_private_key"], "--bigquery"], None, "--privatekey"),
    (["gates", "--type", "STALE"], ["--api-key", SECRETS["api_key"]], "--api-key"),
    (["gate", "--apiKey", SECRETS["api_key"], "some_gate"], None, "--apiKey"),
    (["scim", "group-patch", "grp_7", "--file", "members.yaml"], [f"--scim_token={SECRETS['scim_token']}"], "--scim_token"),
    (["role", "create", "Reviewer", "--allow", "approve_reviews"], ["--secret", SECRETS["api_key"]], "--secret"),
])  # fmt: skip
def test_a_secret_typed_as_an_option_is_refused_in_one_line_without_its_value(command, typed, option, twin, gatehouse):
    run = gatehouse(*command, *(typed or []))
    assert (run.code, run.out, run.err) == (2, "", REFUSED.format(option) + "\n")
    assert twin.requests == []


def test_a_secret_before_the_command_is_refused_too(twin, gatehouse):
    run = gatehouse("--token", TOKEN, "gates")
    assert (run.code, run.err) == (2, REFUSED.format("--token") + "\n")
    assert twin.requests == []


def test_an_option_a_command_has_is_not_taken_for_a_secret(twin, gatehouse, tmp_path, monkeypatch):
    # `--secrets-file` names a secret but is one: it is read as always
    secrets = tmp_path / "secrets.yaml"
    secrets.write_text(f"databricks:\n  accessToken: {TOKEN}\n", encoding="utf-8")
    run = gatehouse(*DATABRICKS, "--secrets-file", str(secrets), "--dry-run")
    assert run.code == 0, run.err
    assert '"accessToken": "***"' in run.out and twin.requests == []


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--api-key", "console-sentinel-key-0001", "--no-progress"],
        ["sql", "--password=sentinel-password-0002", "select 1"],
        ["report", "--token", "-sentinel-token-0003"],
        ["--apiKey", "console-sentinel-key-0004", "views"],
    ],
    ids=["run", "sql", "report", "before any command"],
)
def test_a_secret_typed_as_an_option_of_any_command_is_refused_without_its_value(argv, capsys):
    from gatehouse.pipelines.cli.main import main

    assert main(argv) == 2
    captured = capsys.readouterr()
    option = next(argument.split("=")[0] for argument in argv if argument.startswith("--") and "progress" not in argument)
    assert captured.err.strip().splitlines()[-1] == REFUSED.format(option)
    assert "sentinel" not in captured.err + captured.out
