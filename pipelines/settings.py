"""gatehouse's own settings, declared once: `[gatehouse]` (and `[gatehouse.report]`, `[gatehouse.alerts]`) as a dlt
configuration spec, with their defaults; the one function that resolves them (`resolve`), and the check that refuses
a setting no spec declares (`check_names`), under `[sources.console]` too.

One order everywhere, as dlt resolves: a command's flag, then the environment (`GATEHOUSE__DESTINATION`), then
`.dlt/secrets.toml` and `.dlt/config.toml` (the project's, then the global ones), then the default here. Every
command, the Dagster module, the Airflow DAG and the notebooks read them through `resolve`.
"""

from __future__ import annotations

import difflib
import os
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import dlt
from dlt.common.configuration import configspec, resolve_configuration
from dlt.common.configuration.specs import BaseConfiguration
from dlt.common.typing import TSecretStrValue

from gatehouse.pipelines.errors import GatehouseError
from gatehouse.sources.console.settings import ConsoleSettings

SECTION = "gatehouse"
ENV_PREFIX = "GATEHOUSE__"
CONSOLE_ENV_PREFIX = "SOURCES__CONSOLE__"

# The defaults, each in one place.
DEFAULT_DESTINATION = "duckdb"
DEFAULT_DUCKDB = "gatehouse.duckdb"
# How long a run or a report waits for another gatehouse run, or for a DuckDB file another program holds, before it
# gives up with one line. A notebook cell or a BI refresh takes seconds to minutes.
DEFAULT_LOCK_TIMEOUT_S = 300.0
DEFAULT_REPORTS_DIR = "reports"
DEFAULT_ALERT_TIMEOUT_S = 10.0


@configspec
class ReportSettings(BaseConfiguration):
    """`[gatehouse.report]`: the HTML reports."""

    # The console's page of a gate, for the reports' links: "https://console.example.com/gates/{id}".
    gate_url: str | None = None
    # The notebooks' lanes, 1 or 2 (default: 2 with two cores or more).
    kernels: Any | None = None


@configspec
class AlertSettings(BaseConfiguration):
    """`[gatehouse.alerts]`: the generic JSON webhook (Slack's hook is dlt's `runtime.slack_incoming_hook`)."""

    webhook_url: TSecretStrValue | None = None
    timeout: Any | None = None  # seconds


@configspec
class GatehouseSettings(BaseConfiguration):
    """`[gatehouse]`: where the data goes and how a run waits."""

    destination: str | None = None  # a dlt destination's name; default duckdb
    duckdb: str | None = None  # the DuckDB file, for the default destination
    # Where a warehouse's pipeline state (and the run lock) lives; default: a folder of its own per destination,
    # host and dataset under ~/.dlt/gatehouse. A DuckDB file's always sits beside the file.
    pipelines_dir: str | None = None
    lock_timeout: Any | None = None  # seconds
    reports_dir: str | None = None
    report: ReportSettings = None  # type: ignore[assignment]
    alerts: AlertSettings = None  # type: ignore[assignment]


# What `gatehouse config` says of each setting: its default as shown, and whether it is a secret.
DEFAULTS: dict[str, str] = {
    "destination": DEFAULT_DESTINATION,
    "duckdb": DEFAULT_DUCKDB,
    "pipelines_dir": "beside the DuckDB file; for a warehouse ~/.dlt/gatehouse/<destination>-<digest>",
    "lock_timeout": f"{DEFAULT_LOCK_TIMEOUT_S:g}",
    "reports_dir": DEFAULT_REPORTS_DIR,
    "report.gate_url": "none (no links to the console)",
    "report.kernels": "2 with two cores or more, else 1",
    "alerts.webhook_url": "none",
    "alerts.timeout": f"{DEFAULT_ALERT_TIMEOUT_S:g}",
}
SECRETS = ("alerts.webhook_url",)


def resolve(**flags: Any) -> GatehouseSettings:
    """The settings as every command, Dagster and the DAG read them: `flags` (not None) first, then dlt's providers."""
    given = {name: value for name, value in flags.items() if value is not None}
    return resolve_configuration(GatehouseSettings(), sections=(SECTION,), explicit_value=given, accept_partial=True)


def setting(path: str) -> Any:
    """One setting by its dotted path under `[gatehouse]` (`report.gate_url`), None when unset."""
    value: Any = resolve()
    for part in path.split("."):
        value = getattr(value, part, None) if value is not None else None
    return value


def reports_folder(given: str | None = None) -> Path:
    """Where the reports go, as every command and scheduler reads it: `given` (a flag, a resource's field), else the
    setting `gatehouse.reports_dir`, else ./reports."""
    return Path(given or setting("reports_dir") or DEFAULT_REPORTS_DIR)


def seconds_setting(name: str, default: float, *, zero_allowed: bool) -> float:
    """A duration setting in seconds (`name`: its full dotted name, `gatehouse.lock_timeout`), the default when unset;
    anything else than a number of seconds (more than 0, or 0 or more with `zero_allowed`) is one line naming it."""
    configured = setting(name.removeprefix(f"{SECTION}."))
    if configured is None:
        return default
    try:
        seconds = float(configured)
    except (TypeError, ValueError):
        raise GatehouseError(f"{name} must be a number of seconds, not {configured!r}") from None
    if zero_allowed and not seconds >= 0:
        raise GatehouseError(f"{name} must be 0 or more seconds, not {configured!r}")
    if not zero_allowed and not seconds > 0:
        raise GatehouseError(f"{name} must be more than 0 seconds, not {configured!r}")
    return seconds


# -- every name declared, every other refused -------------------------------------------------------------------


def declared(spec: type[BaseConfiguration] = GatehouseSettings) -> dict[str, Any]:
    """The spec's names as a tree: a leaf is None, a nested section a dict of its own."""
    tree: dict[str, Any] = {}
    for name, hint in spec.get_resolvable_fields().items():
        nested = hint if isinstance(hint, type) and issubclass(hint, BaseConfiguration) else None
        tree[name] = declared(nested) if nested else None
    return tree


CONSOLE_NAMES = tuple(ConsoleSettings().keys())


@dataclass(frozen=True)
class Unknown:
    name: str
    where: str  # "[sources.console.projects.web] in .dlt/config.toml", "the environment"
    known: tuple[str, ...]
    kind: str = "setting"  # or "section": a table's name
    why: str | None = None  # what is wrong, where a name is known but not its use

    def line(self) -> str:
        if self.why is not None:
            return f"{self.why} (nothing was read or loaded)"
        close = difflib.get_close_matches(self.name, self.known, n=1, cutoff=0.6)
        hint = f"did you mean {close[0]}?" if close else f"known: {', '.join(sorted(self.known))}"
        return f"unknown {self.kind} {self.name} in {self.where}: {hint} (nothing was read or loaded)"


def _unknown_in_gatehouse(table: Mapping[str, Any], tree: Mapping[str, Any], section: str, where: str) -> Iterator[Unknown]:
    for name, value in table.items():
        if name not in tree:
            yield Unknown(name, f"[{section}] {where}", tuple(tree))
        elif isinstance(tree[name], dict) and isinstance(value, Mapping):
            yield from _unknown_in_gatehouse(value, tree[name], f"{section}.{name}", where)
        elif isinstance(tree[name], dict):
            yield Unknown(name, where, (), why=f"{section}.{name} is a section, [{section}.{name}], not a setting ({where})")


# The top-level sections gatehouse's settings live in: a section whose name is a letter or two from one of them
# (`[gatehous]`, `[source.console]`, `[sources.consol]`) is a typo, whose settings would be skipped. Any other name
# stays dlt's: its own sections, a pipeline's (`[gatehouse_web.sources.console]`: a table holding dlt's sections).
OWN_SECTIONS = (SECTION, "sources")
DLT_SUBSECTIONS = frozenset({"sources", "destination", "runtime", "normalize", "extract", "load", "pipelines"})


def _a_typo_of(name: str, meant: str) -> bool:
    return name != meant and abs(len(name) - len(meant)) <= 2 and difflib.SequenceMatcher(None, name, meant).ratio() >= 0.8


def _unknown_sections(table: Mapping[str, Any], where: str) -> Iterator[Unknown]:
    for name, value in table.items():
        if not isinstance(value, Mapping) or DLT_SUBSECTIONS & set(value):
            continue  # a setting, or a pipeline's own section
        meant = next((section for section in OWN_SECTIONS if _a_typo_of(name, section)), None)
        if meant is not None:
            yield Unknown(f"[{name}]", where, (f"[{meant}]",), kind="section")
    sources = table.get("sources")
    if isinstance(sources, Mapping):
        for name, value in sources.items():
            if isinstance(value, Mapping) and _a_typo_of(name, "console"):
                yield Unknown(f"[sources.{name}]", where, ("[sources.console]",), kind="section")


def _unknown_in_console(table: Mapping[str, Any], where: str) -> Iterator[Unknown]:
    for name, value in table.items():
        if name == "projects" and isinstance(value, Mapping):
            for project, settings in value.items():
                if isinstance(settings, Mapping):
                    for key in settings:
                        if key not in CONSOLE_NAMES:
                            yield Unknown(key, f"[sources.console.projects.{project}] {where}", CONSOLE_NAMES)
        elif name not in CONSOLE_NAMES:
            yield Unknown(name, f"[sources.console] {where}", CONSOLE_NAMES)


def _toml_tables() -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Each toml file dlt reads (config.toml, secrets.toml; the project's and the global), as a table."""
    for provider in dlt.config.config_providers:
        for location in getattr(provider, "present_locations", None) or ():
            try:
                with open(location, "rb") as handle:
                    yield location, tomllib.load(handle)
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                continue  # unreadable or broken: dlt itself says so when it reads it


def _unknown_in_environment(environ: Mapping[str, str]) -> Iterator[Unknown]:
    tree = declared()
    for variable in environ:
        if variable.startswith(ENV_PREFIX):
            parts = variable[len(ENV_PREFIX) :].lower().split("__")
            level: Any = tree
            for depth, part in enumerate(parts):
                if not isinstance(level, dict) or part not in level:
                    known = tuple(level) if isinstance(level, dict) else ()
                    yield Unknown(
                        variable, "the environment", tuple(ENV_PREFIX + "__".join([*parts[:depth], k]).upper() for k in known)
                    )
                    break
                level = level[part]
        elif variable.startswith(CONSOLE_ENV_PREFIX):
            rest = variable[len(CONSOLE_ENV_PREFIX) :]
            if rest.startswith("PROJECTS__"):
                project, _, key = rest[len("PROJECTS__") :].partition("__")
                prefix = f"{CONSOLE_ENV_PREFIX}PROJECTS__{project}__"
            else:
                key, prefix = rest, CONSOLE_ENV_PREFIX
            if key and key.lower() not in CONSOLE_NAMES:
                yield Unknown(variable, "the environment", tuple(prefix + name.upper() for name in CONSOLE_NAMES))


def unknown_settings(environ: Mapping[str, str] | None = None) -> list[Unknown]:
    """Every setting under `[sources.console]`, `[sources.console.projects.*]` and `[gatehouse*]` (toml files) or
    `SOURCES__CONSOLE__*`/`GATEHOUSE__*` (environment) that no spec declares. dlt's own sections stay dlt's."""
    found: list[Unknown] = []
    for location, table in _toml_tables():
        where = f"in {location}"
        found.extend(_unknown_sections(table, location))
        gatehouse = table.get(SECTION)
        if isinstance(gatehouse, Mapping):
            found.extend(_unknown_in_gatehouse(gatehouse, declared(), SECTION, where))
        console = table.get("sources", {}).get("console") if isinstance(table.get("sources"), Mapping) else None
        if isinstance(console, Mapping):
            found.extend(_unknown_in_console(console, where))
    found.extend(_unknown_in_environment(os.environ if environ is None else environ))
    return found


def check_names() -> None:
    """Refuses, in one line and before anything is read, a setting no spec declares (a typo is never skipped)."""
    unknown = unknown_settings()
    if unknown:
        more = f" ({len(unknown) - 1} more unknown settings)" if len(unknown) > 1 else ""
        raise GatehouseError(unknown[0].line() + more)


# -- where each came from ---------------------------------------------------------------------------------------


def origins(**flags: Any) -> list[tuple[str, str, str]]:
    """(setting, value as shown, where it came from) for each of gatehouse's settings and the console's (the single
    console's section, then each project's): the flag, the environment variable, the toml file, or the default.
    Secrets are shown as ***."""
    rows = []
    for path, default in DEFAULTS.items():
        parts = path.split(".")
        value, origin = (flags.get(parts[-1]) if len(parts) == 1 else None), "flag"
        if value is None:
            value, origin = provided((SECTION, *parts[:-1]), parts[-1])
        rows.append(_row(f"{SECTION}.{path}", value, origin, default, path in SECRETS))
    console_defaults = ConsoleSettings()
    for name in CONSOLE_NAMES:
        value, origin = provided(("sources", "console"), name)
        rows.append(
            _row(f"sources.console.{name}", value, origin, _shown_default(console_defaults, name), name in CONSOLE_SECRETS)
        )
    return rows


CONSOLE_SECRETS = ("api_key", "scim_token")


def project_origins(project: str) -> list[tuple[str, str, str]]:
    """The settings a project's own section sets (the rest come from `[sources.console]`)."""
    rows = []
    for name in CONSOLE_NAMES:
        value, origin = provided(("sources", "console", "projects", project), name)
        if value is not None:
            rows.append(_row(f"sources.console.projects.{project}.{name}", value, origin, "", name in CONSOLE_SECRETS))
    return rows


def _shown_default(spec: BaseConfiguration, name: str) -> str:
    value = getattr(spec, name, None)
    return "required" if value is None and name in ("base_url", "api_key") else "none" if value is None else str(value)


def _row(name: str, value: Any, origin: str, default: str, secret: bool) -> tuple[str, str, str]:
    if value is None:
        return name, default, "default"
    return name, "***" if secret else without_credentials(str(value)), origin


def without_credentials(value: str) -> str:
    """A URL's user and password, query values and fragment as *** (`http://***@host/?api_key=***`), which a base URL
    must not hold but a user may have typed there (a token as the user, too); any other value as it is."""
    try:
        parts = urlsplit(value) if "://" in value else None
        if parts is None or not ("@" in parts.netloc or parts.query or parts.fragment):
            return value
    except ValueError:  # `http://[::1`: no URL the commands take; what follows its scheme may be anything
        return value.split("://", 1)[0] + "://***"
    netloc = "***@" + parts.netloc.rsplit("@", 1)[1] if "@" in parts.netloc else parts.netloc
    query = "&".join(f"{pair.split('=', 1)[0]}=***" for pair in parts.query.split("&")) if parts.query else ""
    return urlunsplit((parts.scheme, netloc, parts.path, query, "***" if parts.fragment else ""))


def provided(sections: tuple[str, ...], key: str) -> tuple[Any, str]:
    """The value dlt's providers hold for `key` in exactly `sections`, and which provider: the environment variable's
    name, or the toml file's path; (None, "default") when none holds it."""
    for provider in dlt.config.config_providers:
        value, full_key = provider.get_value(key, Any, None, *sections)
        if value is not None:
            if provider.name == "Environment Variables":
                return value, f"environment {full_key}"
            locations = getattr(provider, "present_locations", None) or [provider.name]
            return value, ", ".join(locations)
    return None, "default"
