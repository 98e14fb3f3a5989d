"""Several consoles, one per project: which are configured, and what each one's own section sets.

A project is named in dlt config under `[sources.console.projects.<name>]` (secrets beside it in
.dlt/secrets.toml), or by environment variables `SOURCES__CONSOLE__PROJECTS__<NAME>__<SETTING>`. Its
`base_url` and `api_key` must be its own: a project that inherited another console's key would load that
console. Every other setting the project leaves out comes from `[sources.console]`, through the source's
signature, as for a single console. Each project loads into dataset `console_<name>` through pipeline
`gatehouse_<name>`: its own state, incremental cursors and console identity (docs/decisions.md).
"""

from __future__ import annotations

import inspect
import os
import re
import typing
from typing import Any, Mapping, Optional

import dlt

from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.models.build import DEFAULT_PROJECT, STAGING_SUFFIX
from gatehouse.sources.console import console

PROJECTS_SECTION = "sources.console.projects"
# `gatehouse views --projects all`: every project (so no project may be named so)
ALL_PROJECTS = "all"
_ENV_PREFIX = "SOURCES__CONSOLE__PROJECTS__"
# The name becomes part of a dataset's and a pipeline's name: lower case, short, no double underscore.
_NAME = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")
MAX_NAME_LENGTH = 32
# Settings that name the console: never inherited from [sources.console].
OWN_SETTINGS = ("base_url", "api_key")
SECRET_SETTINGS = ("api_key",)
# The source's test seams and the caller's report: not settings.
_NOT_SETTINGS = ("transport", "report", "client")


def configured_projects() -> list[str]:
    """The projects named in dlt config (toml tables) or the environment, sorted; [] for a single console."""
    names: set[str] = set()
    # Each provider alone: dlt's accessors return the first provider's table, and a project's base URL
    # (config.toml) and key (secrets.toml) sit in two of them.
    section = PROJECTS_SECTION.split(".")
    for provider in dlt.config.config_providers:
        table, _ = provider.get_value(section[-1], Any, None, *section[:-1])
        if isinstance(table, Mapping):
            names.update(str(name) for name in table)
    for variable in os.environ:
        if variable.startswith(_ENV_PREFIX):
            project, _, setting = variable[len(_ENV_PREFIX):].partition("__")
            if project and setting:
                names.add(project.lower())
    for name in names:
        check_name(name)
    return sorted(names)


def check_name(name: str) -> None:
    if not _NAME.fullmatch(name) or len(name) > MAX_NAME_LENGTH:
        raise GatehouseError(
            f"project name {name!r}: use lower-case letters, digits and single underscores, starting with a letter,"
            f" at most {MAX_NAME_LENGTH} characters (it names dataset console_<name>)"
        )
    if name == DEFAULT_PROJECT:
        raise GatehouseError(f"project name {name!r}: the views call the single console (dataset console) {DEFAULT_PROJECT!r}; choose another name")
    if name == ALL_PROJECTS:
        raise GatehouseError(f"project name {name!r}: `gatehouse views --projects {ALL_PROJECTS}` means every project; choose another name")
    if f"_{name}".endswith(STAGING_SUFFIX):
        raise GatehouseError(f"project name {name!r}: dataset console_{name} would end in {STAGING_SUFFIX}, as dlt's staging datasets do; choose another name")


def setting_key(project: str, setting: str) -> str:
    return f"{PROJECTS_SECTION}.{project}.{setting}"


def setting_variable(project: str, setting: str) -> str:
    return f"{_ENV_PREFIX}{project.upper()}__{setting.upper()}"


def project_source_args(project: str) -> dict[str, Any]:
    """What the project's own section sets, as arguments of the `console` source (the rest is injected from
    `[sources.console]`); a missing base URL or key is one line naming the setting."""
    args: dict[str, Any] = {}
    for setting, expected in _source_settings().items():
        accessor = dlt.secrets if setting in SECRET_SETTINGS else dlt.config
        value = accessor.get(setting_key(project, setting), expected)
        if value is not None:
            args[setting] = value
    missing = [setting for setting in OWN_SETTINGS if setting not in args]
    if missing:
        where = ", ".join(f"{setting_key(project, s)} ({setting_variable(project, s)})" for s in missing)
        raise GatehouseError(
            f"missing setting {where}: each project names its own console, never [sources.console]'s;"
            " set it in .dlt/config.toml, .dlt/secrets.toml or the environment"
        )
    return args


def _source_settings() -> dict[str, Optional[type]]:
    """The `console` source's settings and the type each is read as (JSON lists from environment variables)."""
    function = inspect.unwrap(getattr(console, "_f", console))
    hints = typing.get_type_hints(function)
    settings: dict[str, Optional[type]] = {}
    for name in inspect.signature(function).parameters:
        if name in _NOT_SETTINGS:
            continue
        hint = hints.get(name)
        if typing.get_origin(hint) is typing.Union:
            hint = next(arg for arg in typing.get_args(hint) if arg is not type(None))
        origin = typing.get_origin(hint) or hint
        settings[name] = origin if isinstance(origin, type) else None
    return settings
