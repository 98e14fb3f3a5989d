"""`wh-connection set`: the warehouse connection, with its secrets kept off the command line.

Secrets (access token, password, private key, key passphrase) come from `--secrets-file`, else
from an environment variable, else (single-line secrets only, and only when stdin is a terminal)
from a hidden prompt. They are registered for redaction as soon as they are read, so neither the
dry-run output nor any error or log line can show them. One typed as an option, in any spelling, is
refused before anything is read (`pipelines/cli/secret_options.py`).
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from dataclasses import dataclass

from gatehouse.pipelines.cli.console.documents import load_document
from gatehouse.pipelines.cli.console.writes import add_write, send_write, write_options
from gatehouse.pipelines.cli.parser import add_command_group
from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.logs import redacting_filter
from gatehouse.sources.console.errors import register_secret


@dataclass(frozen=True)
class Setting:
    """A non-secret field of a warehouse, given as an option."""

    field: str  # as the interface names it
    option: str
    help: str
    required: bool = False


@dataclass(frozen=True)
class Secret:
    field: str
    env: str
    promptable: bool = True  # a private key spans lines: no prompt


@dataclass(frozen=True)
class Warehouse:
    name: str
    settings: tuple[Setting, ...]
    secrets: tuple[Secret, ...]
    # At least one of these secrets is needed (the first is the one prompted for); the others are optional.
    credentials: tuple[str, ...]

    def secret(self, field: str) -> Secret:
        return next(secret for secret in self.secrets if secret.field == field)


WAREHOUSES: dict[str, Warehouse] = {
    warehouse.name: warehouse
    for warehouse in (
        Warehouse(
            "databricks",
            (
                Setting("host", "--host", "workspace host, e.g. dbc-1234.cloud.databricks.com", required=True),
                Setting("path", "--path", "HTTP path of the SQL warehouse", required=True),
                Setting("stagingDatabase", "--staging-database", "database for intermediate tables (writable)", required=True),
                Setting("oauthClientID", "--oauth-client-id", "OAuth client id"),
                Setting("consoleComputePath", "--console-compute-path", "separate path for the console's interactive queries"),
            ),
            (Secret("accessToken", "GATEHOUSE_DATABRICKS_ACCESS_TOKEN"),),
            ("accessToken",),
        ),
        Warehouse(
            "snowflake",
            (
                Setting("accountName", "--account-name", "Snowflake account name", required=True),
                Setting("serviceUserName", "--service-user-name", "service user", required=True),
                Setting("stagingDatabaseName", "--staging-database-name", "database holding the staging schema", required=True),
                Setting("stagingSchemaName", "--staging-schema-name", "schema for intermediate tables (writable)", required=True),
                Setting("computeWarehouse", "--compute-warehouse", "warehouse that runs the queries", required=True),
                Setting("consoleComputeWarehouse", "--console-compute-warehouse", "separate warehouse for the console's queries"),
            ),
            (
                Secret("serviceUserPassword", "GATEHOUSE_SNOWFLAKE_PASSWORD"),
                Secret("privateKey", "GATEHOUSE_SNOWFLAKE_PRIVATE_KEY", promptable=False),
                Secret("keyPassPhrase", "GATEHOUSE_SNOWFLAKE_KEY_PASSPHRASE"),
            ),
            ("serviceUserPassword", "privateKey"),  # password or key-pair authentication
        ),
        Warehouse(
            "bigquery",
            (
                Setting("project", "--project", "project that runs the queries", required=True),
                Setting("stagingDataset", "--staging-dataset", "dataset for intermediate tables (writable)", required=True),
                Setting("consoleComputeProject", "--console-compute-project", "separate project for the console's queries"),
            ),
            (Secret("privateKey", "GATEHOUSE_BIGQUERY_PRIVATE_KEY", promptable=False),),
            ("privateKey",),
        ),
    )
}

SECRETS_HELP = """\
secrets are never taken from the command line; each comes from --secrets-file, else
its environment variable, else a hidden prompt (when run in a terminal; private keys,
which span lines, are not prompted for):

  databricks accessToken          GATEHOUSE_DATABRICKS_ACCESS_TOKEN
  snowflake  serviceUserPassword  GATEHOUSE_SNOWFLAKE_PASSWORD
             privateKey           GATEHOUSE_SNOWFLAKE_PRIVATE_KEY
             keyPassPhrase        GATEHOUSE_SNOWFLAKE_KEY_PASSPHRASE
  bigquery   privateKey           GATEHOUSE_BIGQUERY_PRIVATE_KEY

snowflake needs a password or a private key (key-pair authentication; the passphrase
only if the key is encrypted). A secrets file is JSON or YAML keyed like the request:

  snowflake:
    privateKey: |
      -----BEGIN ENCRYPTED PRIVATE KEY-----
      ...
    keyPassPhrase: ...

examples:
  GATEHOUSE_DATABRICKS_ACCESS_TOKEN=... gatehouse console wh-connection set --databricks \\
      --host dbc-1234.cloud.databricks.com --path /sql/1.0/warehouses/abc --staging-database gh_staging
  gatehouse console wh-connection set --snowflake --account-name acme-eu --service-user-name SVC_GH \\
      --staging-database-name ANALYTICS --staging-schema-name GH_STAGING --compute-warehouse GH_WH \\
      --secrets-file ~/.config/gatehouse/snowflake.yaml --dry-run
"""


def register(commands, parents: list[argparse.ArgumentParser]) -> None:
    actions = add_command_group(
        commands,
        "wh-connection",
        help="set the data-warehouse connection",
        metavar="ACTION",
        description="The data-warehouse connection the console's experimentation pipeline uses.",
        epilog="example:\n  gatehouse console wh-connection set --bigquery --project acme-exp "
        "--staging-dataset gh_staging --secrets-file bq.yaml",
    )
    parser = add_write(
        actions,
        "set",
        [*parents, write_options()],
        _set_connection,
        help="update the connection of one warehouse (PATCH /console/v1/wh_connections)",
        description="Update the connection parameters of one warehouse (PATCH /console/v1/wh_connections).\n"
        "Options marked (required) must be given for the chosen warehouse; the whole connection is sent.",
        epilog=SECRETS_HELP,
        allow_abbrev=False,
    )
    which = parser.add_mutually_exclusive_group(required=True)
    for name in WAREHOUSES:
        which.add_argument(f"--{name}", dest="warehouse", action="store_const", const=name, help=f"set the {name} connection")
    for warehouse in WAREHOUSES.values():
        group = parser.add_argument_group(f"{warehouse.name} ({', '.join(s.field for s in warehouse.secrets)}: see below)")
        for setting in warehouse.settings:
            group.add_argument(
                setting.option,
                dest=f"field_{setting.field}",
                metavar=setting.field,
                help=f"{setting.help}{' (required)' if setting.required else ''}",
            )
    parser.add_argument("--secrets-file", metavar="F", help="JSON or YAML file with the secrets (see below)")


def _set_connection(args: argparse.Namespace) -> int:
    warehouse = WAREHOUSES[args.warehouse]
    member = _settings(args, warehouse)
    # Secrets are read once the client's settings are known to be good, so nobody is prompted
    # for a password only to be told the API key is missing; still before anything is sent.
    return send_write(
        args,
        lambda client, dry_run: client.update_wh_connection(
            {warehouse.name: {**member, **_secrets(args, warehouse)}}, dry_run=dry_run
        ),
    )


def _settings(args: argparse.Namespace, warehouse: Warehouse) -> dict[str, str]:
    foreign = [
        setting.option
        for other in WAREHOUSES.values()
        if other is not warehouse
        for setting in other.settings
        if getattr(args, f"field_{setting.field}") is not None
    ]
    if foreign:
        raise GatehouseError(f"{', '.join(foreign)} do{'es' if len(foreign) == 1 else ''} not apply to --{warehouse.name}")
    missing = [
        setting.option for setting in warehouse.settings if setting.required and getattr(args, f"field_{setting.field}") is None
    ]
    if missing:
        raise GatehouseError(f"--{warehouse.name} needs {', '.join(missing)}")
    return {
        setting.field: value for setting in warehouse.settings if (value := getattr(args, f"field_{setting.field}")) is not None
    }


def _secrets(args: argparse.Namespace, warehouse: Warehouse) -> dict[str, str]:
    from_file = _secrets_file(args.secrets_file, warehouse) if args.secrets_file else {}
    found = {}
    for secret in warehouse.secrets:
        value = from_file.get(secret.field) or os.environ.get(secret.env) or None
        if value:
            found[secret.field] = _registered(value)

    if not any(field in found for field in warehouse.credentials):
        first, *alternatives = (warehouse.secret(field) for field in warehouse.credentials)
        found[first.field] = _prompt(warehouse, first, alternatives)
    return found


def _secrets_file(path: str, warehouse: Warehouse) -> dict[str, str]:
    document = load_document(path, "secrets file")
    unknown_members = sorted(set(document) - set(WAREHOUSES))
    if unknown_members:
        raise GatehouseError(
            f"secrets file {path}: unknown key(s) {', '.join(map(str, unknown_members))}; expected {', '.join(WAREHOUSES)}"
        )
    member = document.get(warehouse.name) or {}
    if not isinstance(member, dict):
        raise GatehouseError(f"secrets file {path}: {warehouse.name} must be a mapping of secret fields")
    fields = [secret.field for secret in warehouse.secrets]
    unknown = sorted(set(member) - set(fields))
    if unknown:
        raise GatehouseError(
            f"secrets file {path}: {warehouse.name} has unknown key(s) {', '.join(map(str, unknown))}; "
            f"it holds only secrets: {', '.join(fields)}"
        )
    not_text = [f"{warehouse.name}.{field}" for field, value in member.items() if not isinstance(value, str)]
    if not_text:
        raise GatehouseError(f"secrets file {path}: {', '.join(not_text)} must be text")
    return member


def _prompt(warehouse: Warehouse, secret: Secret, alternatives: list[Secret]) -> str:
    if secret.promptable and sys.stdin.isatty():
        value = getpass.getpass(f"{warehouse.name} {secret.field} (not echoed): ")
        if value:
            return _registered(value)
    fields = " or ".join(s.field for s in (secret, *alternatives))
    variables = f"{secret.env}" + "".join(f" (or {s.env})" for s in alternatives)
    unprompted = "" if secret.promptable else " (a private key is not prompted for)"
    raise GatehouseError(
        f"no {warehouse.name} {fields}: set {variables} or put it under {warehouse.name}: in --secrets-file{unprompted}"
    )


def _registered(secret: str) -> str:
    register_secret(secret)
    redacting_filter.add(secret)
    return secret
