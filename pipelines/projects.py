"""Several consoles, one per project: which are configured, and what each one's own section sets.

A project is named in dlt config under `[sources.console.projects.<name>]` (secrets beside it in
.dlt/secrets.toml), or by environment variables `SOURCES__CONSOLE__PROJECTS__<NAME>__<SETTING>`. Its
`base_url` and `api_key` must be its own: a project that inherited another console's key would load that
console. Every other setting the project leaves out comes from `[sources.console]` (sources/console/settings.py,
the one declaration of the settings). Each project loads into dataset `console_<name>` through pipeline
`gatehouse_<name>`: its own state, incremental cursors and console identity (docs/decisions.md).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

import dlt

from gatehouse.pipelines.errors import DEMO_HINT, GatehouseError
from gatehouse.pipelines.models.build import DEFAULT_PROJECT, STAGING_SUFFIX
from gatehouse.sources.console.settings import ConsoleSettings, resolve_settings

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
            project, _, setting = variable[len(_ENV_PREFIX) :].partition("__")
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
        raise GatehouseError(
            f"project name {name!r}: the views call the single console (dataset console) {DEFAULT_PROJECT!r}; choose another name"
        )
    if name == ALL_PROJECTS:
        raise GatehouseError(
            f"project name {name!r}: `gatehouse views --projects {ALL_PROJECTS}` means every project; choose another name"
        )
    if f"_{name}".endswith(STAGING_SUFFIX):
        raise GatehouseError(
            f"project name {name!r}: dataset console_{name} would end in {STAGING_SUFFIX}, as dlt's staging datasets do; choose"
            " another name"
        )


def setting_key(project: str, setting: str) -> str:
    return f"{PROJECTS_SECTION}.{project}.{setting}"


def setting_variable(project: str, setting: str) -> str:
    return f"{_ENV_PREFIX}{project.upper()}__{setting.upper()}"


def as_projects(message: str, project: str) -> str:
    """A failure's one line as the project's: the console settings it names (`sources.console.api_key
    (SOURCES__CONSOLE__API_KEY)`, said by the client, which knows no projects) are the project's own, and a
    project's user is told no demo to try (its settings are what to fix)."""
    message = message.replace(DEMO_HINT, "")
    message = _CONSOLE_SETTING.sub(lambda found: setting_key(project, found[1]), message)
    return _CONSOLE_VARIABLE.sub(lambda found: setting_variable(project, found[1]), message)


# a console setting a message names, not already a project's
_CONSOLE_SETTING = re.compile(r"\bsources\.console\.(?!projects\.)([a-z_]+)")
_CONSOLE_VARIABLE = re.compile(r"\bSOURCES__CONSOLE__(?!PROJECTS__)([A-Z_]+)")


def project_settings(project: str, **given: Any) -> ConsoleSettings:
    """The project's settings: its own section (`[sources.console.projects.<name>]`), what it leaves out looked up
    in `[sources.console]`, `given` values winning. Its base URL and key are its own, never inherited: a missing
    one is one line naming the setting."""
    own = {setting: given.get(setting) or _own_setting(project, setting) for setting in OWN_SETTINGS}
    missing = [setting for setting, value in own.items() if not value]
    if missing:
        where = ", ".join(f"{setting_key(project, s)} ({setting_variable(project, s)})" for s in missing)
        raise GatehouseError(
            f"missing setting {where}: each project names its own console, never [sources.console]'s;"
            " set it in .dlt/config.toml, .dlt/secrets.toml or the environment"
        )
    return resolve_settings((*PROJECTS_SECTION.split("."), project), **{**given, **own})


def check_distinct_consoles(projects: Sequence[str], projects_args: Mapping[str, Mapping[str, Any]]) -> None:
    """Two projects naming one console (the same base URL and key, a section copied and renamed) are refused in one
    line before any starts: each would load it into a dataset of its own, and the views, the worklist and the alerts
    would count every gate and experiment twice. The same host with a key per project is several consoles."""
    seen: dict[tuple[str, str], str] = {}
    for project in projects:
        given = projects_args.get(project, {})
        own = [str(given.get(setting) or _own_setting(project, setting) or "") for setting in OWN_SETTINGS]
        if not all(own):
            continue  # a missing one is that project's own failure, said by its run
        console = (own[0].strip().rstrip("/"), own[1].strip())
        if console in seen:
            raise GatehouseError(
                f"projects {seen[console]} and {project} name the same console (the same base_url and api_key): each"
                " would load it into a dataset of its own and the views would count it twice; keep one of them"
                " (a project renamed: `gatehouse projects adopt` moves a single console's history, a project's stays"
                " under its name); nothing was read or loaded"
            )
        seen[console] = project


def _own_setting(project: str, setting: str) -> str | None:
    """A setting of the project's own section alone (dlt's lookup would fall back to the sections above)."""
    accessor = dlt.secrets if setting in SECRET_SETTINGS else dlt.config
    return accessor.get(setting_key(project, setting), str)
