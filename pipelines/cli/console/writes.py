"""Write commands: unarchive a config, create or update a release pipeline, create a role, patch a SCIM group.

Every write takes `--dry-run` (print the exact request, send nothing) and
`--respect-review-settings`; the warehouse connection has its own module for its secrets.
"""

from __future__ import annotations

import argparse
import difflib
import logging
import textwrap
from collections.abc import Callable, Mapping
from typing import Any, cast

from gatehouse.contract import ROLE_PERMISSION_FLAGS
from gatehouse.pipelines.cli.console.connection import open_client
from gatehouse.pipelines.cli.console.documents import load_document
from gatehouse.pipelines.cli.console.output import print_json, redacted
from gatehouse.pipelines.cli.parser import add_command, add_command_group
from gatehouse.pipelines.errors import GatehouseError
from gatehouse.sources.console.client import ConsoleClient, PreparedRequest, WriteResult
from gatehouse.sources.console.errors import OutcomeUnknownError

log = logging.getLogger("gatehouse.console")

Send = Callable[[ConsoleClient, bool], "WriteResult | PreparedRequest"]


def write_options() -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_argument_group("write options")
    group.add_argument("--dry-run", action="store_true", help="print the exact request and send nothing")
    group.add_argument(
        "--respect-review-settings",
        action="store_true",
        help="send the x-respect-review-settings header (the change follows the console's review settings)",
    )
    return parent


def send_write(args: argparse.Namespace, send: Send, *, created: str | None = None) -> int:
    """Send one write (or, with --dry-run, print it) and print the console's answer with its message.

    `created` names what a create makes ("role 'Auditor'"), for the advice when its answer never came.
    """
    with open_client(args) as client:
        try:
            result = send(client, args.dry_run)
        except OutcomeUnknownError as err:
            # The interface cannot read roles or release pipelines back, so only the console's UI can tell.
            check = f"; it was sent once and not retried: look for {created} in the console's UI" if created else ""
            raise GatehouseError(f"outcome unknown: {err}{check}") from err
    if isinstance(result, PreparedRequest):
        print_json(
            redacted(
                {
                    "method": result.method,
                    "path": result.path,
                    "url": result.url,
                    "headers": result.headers,
                    "body": result.body,
                }
            )
        )
        log.info("dry run: nothing was sent")
    else:
        print_json(redacted({"status": result.status, "message": result.message, "data": result.data}))
    return 0


def register(commands, parents: list[argparse.ArgumentParser]) -> None:
    writes = [*parents, write_options()]
    _add_unarchive(commands, writes)
    _add_release_pipeline(commands, writes)
    _add_role(commands, writes)
    _add_scim(commands, writes)


def add_write(
    commands,
    name: str,
    writes: list[argparse.ArgumentParser],
    handler: Callable[[argparse.Namespace], int],
    *,
    help: str,
    description: str,
    epilog: str,
    id_help: str | None = None,
    document: str | None = None,
    allow_abbrev: bool = True,
) -> argparse.ArgumentParser:
    """A write command: its ID (`id_help` names what it is), its body from `--file` (`document` names what the file
    holds), the write options; the caller adds what else it takes."""
    parser = add_command(
        commands, name, help=help, description=description, epilog=epilog, parents=writes, allow_abbrev=allow_abbrev
    )
    if id_help is not None:
        parser.add_argument("id", metavar="ID", help=id_help)
    if document is not None:
        parser.add_argument("--file", required=True, metavar="F", help=f"{document} as JSON or YAML (- reads stdin)")
    parser.set_defaults(handler=handler)
    return parser


def _add_unarchive(commands, writes: list[argparse.ArgumentParser]) -> None:
    unarchive = add_write(
        commands,
        "unarchive-config",
        writes,
        _unarchive,
        help="unarchive a dynamic config",
        description="Unarchive an archived dynamic config (PUT /console/v1/dynamic_configs/ID/unarchive).",
        epilog="examples:\n  gatehouse console unarchive-config checkout_copy --reason 'needed for the spring sale'\n"
        "  gatehouse console unarchive-config checkout_copy --dry-run",
        id_help="dynamic config id",
    )
    unarchive.add_argument("--reason", metavar="TEXT", help="why it is unarchived (sent as unarchiveReason)")


def _add_release_pipeline(commands, writes: list[argparse.ArgumentParser]) -> None:
    actions = add_command_group(
        commands,
        "release-pipeline",
        help="create or update a release pipeline",
        metavar="ACTION",
        description=f"Create or update a release pipeline from a JSON or YAML file.\n\n{PIPELINE_FILE_HELP}",
        epilog="examples:\n  gatehouse console release-pipeline create --file pipeline.yaml --dry-run\n"
        "  gatehouse console release-pipeline update rp_42 --file pipeline.json",
    )
    add_write(
        actions,
        "create",
        writes,
        _create_pipeline,
        help="create a release pipeline (sent once: never retried)",
        description=f"Create a release pipeline (POST /console/v1/release_pipelines).\n\n{PIPELINE_FILE_HELP}",
        epilog="example:\n  gatehouse console release-pipeline create --file pipeline.yaml",
        document="the pipeline",
    )
    add_write(
        actions,
        "update",
        writes,
        _update_pipeline,
        help="update a release pipeline",
        description=f"Update a release pipeline (POST /console/v1/release_pipelines/ID).\n\n{PIPELINE_FILE_HELP}",
        epilog="example:\n  gatehouse console release-pipeline update rp_42 --file pipeline.yaml --respect-review-settings",
        id_help="release pipeline id",
        document="the pipeline",
    )


def _add_role(commands, writes: list[argparse.ArgumentParser]) -> None:
    actions = add_command_group(
        commands,
        "role",
        help="create a custom role",
        metavar="ACTION",
        description="Create a custom role with permission flags.",
        epilog="example:\n  gatehouse console role create 'Release manager'"
        " --allow create_release_pipelines --allow approve_reviews",
    )
    role_create = add_write(
        actions,
        "create",
        writes,
        _create_role,
        help="create a role (sent once: never retried)",
        description=f"Create a custom role (POST /console/v1/roles).\n\n{ROLE_HELP}",
        epilog="examples:\n  gatehouse console role create 'Release manager' --allow create_release_pipelines,approve_reviews\n"
        "  gatehouse console role create --file role.yaml --dry-run",
    )
    role_create.add_argument("name", metavar="NAME", nargs="?", help="role name (or `name` in --file)")
    source = role_create.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--allow",
        metavar="FLAG",
        action="append",
        help="a permission to grant (repeat, or separate with commas); every other flag is sent as false",
    )
    source.add_argument("--file", metavar="F", help="the role as JSON or YAML: name and permissions (- reads stdin)")


def _add_scim(commands, writes: list[argparse.ArgumentParser]) -> None:
    actions = add_command_group(
        commands,
        "scim",
        help="provision groups through the SCIM endpoint",
        metavar="ACTION",
        description="Group provisioning (SCIM). Authenticates with sources.console.scim_token "
        "(SOURCES__CONSOLE__SCIM_TOKEN), not with the console API key.",
        epilog="example:\n  gatehouse console scim group-patch grp_7 --file members.yaml",
    )
    add_write(
        actions,
        "group-patch",
        writes,
        _patch_scim_group,
        help="patch a group (PATCH /scim/Groups/ID)",
        description=f"Patch a group (PATCH /scim/Groups/ID) with SCIM operations.\n\n{SCIM_FILE_HELP}",
        epilog="example:\n  gatehouse console scim group-patch grp_7 --file members.yaml --dry-run",
        id_help="group id",
        document="the patch",
    )


PIPELINE_FILE_HELP = """\
The file holds the pipeline as the interface writes it, e.g. in YAML:

  name: Staged rollout               # required
  triggerNotice: Rolling out in three steps
  phases:
    - name: Internal
      timeIntervalMs: 86400000       # a non-negative integer (milliseconds)
      requiredReview: false
      rules:
        - name: Employees
          environments: [production]
          conditions:
            - type: environment_tier # app_version, country, custom_field, email, ...
              operator: any
              targetValue: [staging]

It is checked before anything is sent; every problem found is listed."""

ROLE_HELP = f"""\
Grant flags with --allow (every other flag is sent as false), or give a file:

  name: Release manager
  permissions:                       # flags to grant, or a mapping of flag: true/false
    - create_release_pipelines
    - approve_reviews

The {len(ROLE_PERMISSION_FLAGS)} flags:
{textwrap.fill(", ".join(ROLE_PERMISSION_FLAGS), width=88, initial_indent="  ", subsequent_indent="  ")}"""

SCIM_FILE_HELP = """\
The file holds the SCIM patch, e.g. in YAML:

  schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"]
  Operations:
    - op: add                        # replace, add or remove
      path: members
      value:
        - {value: user_123, display: Ada Lovelace}

The SCIM token comes from sources.console.scim_token in .dlt/secrets.toml or the
environment variable SOURCES__CONSOLE__SCIM_TOKEN."""


def _unarchive(args: argparse.Namespace) -> int:
    return send_write(args, lambda client, dry_run: client.unarchive_dynamic_config(args.id, args.reason, dry_run=dry_run))


def _create_pipeline(args: argparse.Namespace) -> int:
    body = load_document(args.file, "release pipeline file")
    return send_write(
        args,
        lambda client, dry_run: client.create_release_pipeline(body, dry_run=dry_run),
        created=f"release pipeline {body.get('name')!r}",
    )


def _update_pipeline(args: argparse.Namespace) -> int:
    body = load_document(args.file, "release pipeline file")
    return send_write(args, lambda client, dry_run: client.update_release_pipeline(args.id, body, dry_run=dry_run))


def _create_role(args: argparse.Namespace) -> int:
    if args.file:
        document = load_document(args.file, "role file")
        unknown = sorted(set(document) - {"name", "permissions"})
        if unknown:
            raise GatehouseError(f"role file {args.file}: unknown field(s) {', '.join(unknown)}; a role has name and permissions")
        name = args.name or document.get("name")
        permissions = document.get("permissions")
        if isinstance(permissions, list):
            permissions = _granted_permissions(permissions)
    else:
        name = args.name
        permissions = _granted_permissions(flag.strip() for value in args.allow for flag in value.split(",") if flag.strip())
    if not name:
        raise GatehouseError("a role needs a name: give NAME (or `name` in --file)")
    # validate_role checks what a file gave (a mapping of flags, else a one-line error)
    granted = cast(Mapping[str, bool], permissions)
    return send_write(args, lambda client, dry_run: client.create_role(name, granted, dry_run=dry_run), created=f"role {name!r}")


def _granted_permissions(flags: Any) -> dict[str, bool]:
    """Every known flag, true for those granted. Unknown flags are rejected with the valid ones."""
    granted = list(flags)
    unknown = [flag for flag in granted if flag not in ROLE_PERMISSION_FLAGS]
    if unknown:
        named = []
        for flag in unknown:
            close = difflib.get_close_matches(str(flag), ROLE_PERMISSION_FLAGS, n=1)
            named.append(f"{flag!r}" + (f" (did you mean {close[0]}?)" if close else ""))
        raise GatehouseError(
            f"unknown role flag{'s' if len(unknown) > 1 else ''} {', '.join(named)}, nothing sent; "
            f"valid flags: {', '.join(ROLE_PERMISSION_FLAGS)}"
        )
    return {flag: flag in granted for flag in ROLE_PERMISSION_FLAGS}


def _patch_scim_group(args: argparse.Namespace) -> int:
    body = load_document(args.file, "SCIM patch file")
    return send_write(args, lambda client, dry_run: client.patch_scim_group(args.id, body, dry_run=dry_run))
