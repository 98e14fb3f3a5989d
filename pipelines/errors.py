"""Failures as one line: `GatehouseError` (what the commands report), and `explain`, which finds in what dlt
wrapped the setting, id or package to fix (the console client has its own errors)."""

from __future__ import annotations

import os
import re
from typing import Any

from dlt.common.configuration.exceptions import ConfigFieldMissingException, ConfigurationValueError, LookupTraces
from dlt.pipeline.exceptions import PipelineStepFailed

from gatehouse.sources.console.errors import AuthError, ConsoleError, ForbiddenError, TransportError, one_line


def root_cause(err: BaseException) -> BaseException:
    """The innermost ConsoleError (or config error) that dlt wrapped on the way up."""
    seen = set()
    current: BaseException | None = err
    found: BaseException = err
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, (ConsoleError, ConfigFieldMissingException, ConfigurationValueError)):
            found = current
        current = current.__cause__ or current.__context__
    return found


def setting_hint(field: str) -> str:
    return f"sources.console.{field} (SOURCES__CONSOLE__{field.upper()})"


def missing_setting_keys(traces: Any) -> list[str]:
    """The environment-variable name of each missing setting, as the docs spell it
    (SOURCES__CONSOLE__API_KEY, DESTINATION__POSTGRES__CREDENTIALS__PASSWORD...)."""
    keys = []
    for field_traces in traces.values():
        nested = [t for t in field_traces if isinstance(t, LookupTraces)]
        if nested:
            keys += missing_setting_keys(nested[0].traces)
            continue
        conventional = [
            t.key
            for t in field_traces
            if "environment" in t.provider.lower()
            and t.key.startswith(("SOURCES__", "DESTINATION__"))
            # dlt also tries SOURCES__CONSOLE__CONSOLE__... (section and source name) first
            and len(set(parts := t.key.split("__"))) == len(parts)
        ]
        if conventional:
            keys.append(max(conventional, key=len))
    return sorted(dict.fromkeys(keys))


def config_file_problem(err: BaseException) -> str | None:
    """One line for a `.dlt/*.toml` that does not parse, or a setting whose value dlt cannot read (a connection
    string of the wrong form), wherever dlt raised it (on the first setting read). The value is never shown: it
    may be a secret, and the parser's own message quotes it."""
    from dlt.common.configuration.exceptions import InvalidNativeValue, ValueNotSecretException
    from dlt.common.configuration.providers.toml import TomlProviderReadException

    seen = set()
    current: BaseException | None = err
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, TomlProviderReadException):
            # dlt names every place it looked; the files that exist are the ones to fix
            paths = [path for path in current.full_paths if os.path.isfile(path)] or current.full_paths
            reason = " ".join(str(current).split(":\n", 1)[-1].split())
            # the parser quotes the character it stopped at, which may be part of a secret
            reason = re.sub(r"Unexpected character: '.*?' at", "Unexpected character at", reason)
            return f"{' or '.join(paths)} is not valid TOML: {reason}"
        if isinstance(current, ValueNotSecretException):
            # dlt reads no secret from config.toml, which is meant to be committed: it stops at the first it finds
            return (
                f"{current.key} is a secret, which {current.provider_name} may not hold (it is meant to be committed):"
                f" move it to .dlt/secrets.toml, or set {current.key.upper().replace('.', '__')} in the environment"
            )
        if isinstance(current, InvalidNativeValue):
            key, form = CONNECTION_STRINGS.get(current.spec.__name__, ("", "the destination's connection string"))
            where = f"{key} ({key.upper().replace('.', '__')})" if key else "the destination's credentials"
            return (
                f"{where}: its value cannot be read as {current.spec.__name__} (the value is not shown); write it"
                f" as {form}, or as its fields in .dlt/secrets.toml"
            )
        current = current.__cause__ or current.__context__
    return None


# The levels dlt's `runtime.log_level` (RUNTIME__LOG_LEVEL) takes, as the docs name them (Python's `logging` levels;
# WARN, FATAL and NOTSET are taken too).
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def log_level_problem(value: str, where: str = "RUNTIME__LOG_LEVEL") -> str:
    """One line for a RUNTIME__LOG_LEVEL (or `[runtime] log_level`, `where`) that names no level (pipelines/logs.py):
    its value (no secret) quoted, cut."""
    levels = f"{', '.join(LOG_LEVELS[:-1])} or {LOG_LEVELS[-1]}"
    return f"{where} is {one_line(repr(value), 40)}, which is no log level: set it to {levels} (in any case), or unset it"


# The setting and the form of a connection string, for the line that says one cannot be read (dlt names only the
# credentials' class).
CONNECTION_STRINGS = {
    "PostgresCredentials": ("destination.postgres.credentials", "postgresql://user:password@host:5432/database"),
}

# What a person at a terminal can try instead; a scheduler's failure leaves it out (pipelines/run/scheduled.py).
DEMO_HINT = "; or try `gatehouse run --demo`"


def explain(err: BaseException) -> str:
    """One line that says which setting or id to fix."""
    problem = config_file_problem(err)
    if problem is not None:
        return problem
    cause = root_cause(err)
    if isinstance(cause, ConfigFieldMissingException):
        where = ", ".join(f"{env.lower().replace('__', '.')} ({env})" for env in missing_setting_keys(cause.traces))
        hint = DEMO_HINT if "SOURCES__CONSOLE__" in where else ""
        return (
            f"missing setting {where or cause.spec_name}: set it in .dlt/config.toml, .dlt/secrets.toml or the environment{hint}"
        )
    if isinstance(cause, ConfigurationValueError):
        field = getattr(cause, "field_name", None)
        if field and field.endswith("_ids"):
            return f'{setting_hint(field)} must be a JSON list of ids, e.g. \'["id_a", "id_b"]\''
        if field:
            return f"invalid value for {setting_hint(field)}: {cause}"
        return f"invalid setting: {cause}"
    if isinstance(cause, AuthError):
        return f"{cause}{DEMO_HINT}"
    if isinstance(cause, ForbiddenError):
        return f"{cause}; set {setting_hint('api_key')} to a key that has it"
    if isinstance(cause, TransportError):
        return f"{cause}; check {setting_hint('base_url')}"
    if isinstance(cause, ConsoleError):
        return str(cause)
    # dlt's step errors put the useful part (e.g. `pip install "dlt[postgres]"`) on later lines.
    inner = getattr(err, "exception", None) or err
    text = " ".join(line.strip() for line in str(inner).splitlines() if line.strip())
    if isinstance(err, PipelineStepFailed) and err.step == "sync" and err.pipeline.destination is not None:
        # the step that first connects to the destination: the driver's message alone does not say which
        text = f"destination {err.pipeline.destination.destination_name}: {text}"
    return text[:500] or type(err).__name__


def first_line(err: BaseException) -> str:
    """The first non-empty line of an error's text (a driver's or dlt's message can run to many), else its type."""
    return next((line.strip() for line in str(err).splitlines() if line.strip()), type(err).__name__)


class GatehouseError(Exception):
    """A failure the user can act on; `str()` is the one line shown."""
