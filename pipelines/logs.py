"""Logging for every gatehouse command: to stderr, with secrets redacted from every record."""

from __future__ import annotations

import logging
import os
import sys
import tomllib
from pathlib import Path

from gatehouse.pipelines.errors import GatehouseError, log_level_problem
from gatehouse.pipelines.untrusted import tool_message

# Environment variables whose values must never appear in any log line.
SECRET_ENV_SUFFIXES = ("API_KEY", "SCIM_TOKEN", "PASSWORD", "PRIVATE_KEY", "ACCESS_TOKEN", "PASSPHRASE", "SECRET")


class RedactingFilter(logging.Filter):
    """Replaces known secret values in formatted log messages with `***`."""

    def __init__(self, secrets: set[str] | None = None) -> None:
        super().__init__()
        self.secrets: set[str] = set(secrets or ())

    def add(self, secret: str | None) -> None:
        if secret and len(secret) >= 4:
            self.secrets.add(secret)

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.secrets:
            return True
        message = record.getMessage()
        redacted = message
        for secret in self.secrets:
            redacted = redacted.replace(secret, "***")
        if redacted != message or record.exc_info:
            record.msg, record.args = redacted, None
            if record.exc_info:
                text = logging.Formatter().formatException(record.exc_info)
                for secret in self.secrets:
                    text = text.replace(secret, "***")
                record.exc_text, record.exc_info = text, None
        return True


redacting_filter = RedactingFilter()


class VisibleFormatter(logging.Formatter):
    """Log lines as a terminal shows them safely: a tool's colours stripped, and every control or bidi character a
    message carries (a name a console user typed, quoted in a warning) shown as an escape, line by line."""

    def format(self, record: logging.LogRecord) -> str:
        return "\n".join(tool_message(line) for line in super().format(record).split("\n"))


def secrets_from_environment() -> set[str]:
    return {
        value
        for name, value in os.environ.items()
        if value and len(value) >= 4 and any(name.upper().endswith(suffix) for suffix in SECRET_ENV_SUFFIXES)
    }


# dlt's own level setting (`runtime.log_level`), read from the environment as dlt reads it first.
DLT_LOG_LEVEL = "RUNTIME__LOG_LEVEL"
# Set beside DLT_LOG_LEVEL when configure_logging put gatehouse's own default there (dlt quieted to ERROR): a later
# call in the same process (a test, a scheduler calling `main()` again) must not take that default for the user's level.
DLT_LOG_LEVEL_DEFAULTED = "GATEHOUSE_DLT_LOG_LEVEL_DEFAULTED"


def configured_level() -> int | None:
    """The level the user set in RUNTIME__LOG_LEVEL, as a `logging` level: None when it is unset or is gatehouse's own
    default from an earlier call (one that names no level was refused by `normalise_level_setting`)."""
    value = os.environ.get(DLT_LOG_LEVEL)
    if value and os.environ.get(DLT_LOG_LEVEL_DEFAULTED) == value:
        return None
    if not value:
        value = toml_log_level()
        if value and value.strip().upper() not in logging.getLevelNamesMapping():
            raise GatehouseError(log_level_problem(value, "[runtime] log_level in .dlt/config.toml"))
    return logging.getLevelNamesMapping().get(value.strip().upper()) if value else None


def toml_log_level() -> str:
    """`[runtime] log_level` in the project's .dlt/config.toml (DLT_PROJECT_DIR, else the working folder), read as a
    file: asking dlt's config here would set up dlt's own logging before gatehouse's default level for it is set."""
    path = Path(os.environ.get("DLT_PROJECT_DIR") or ".") / ".dlt" / "config.toml"
    try:
        with open(path, "rb") as handle:
            runtime = tomllib.load(handle).get("runtime", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):  # dlt says what is wrong with the file
        return ""
    level = runtime.get("log_level") if isinstance(runtime, dict) else None
    return str(level) if level else ""


def normalise_level_setting() -> None:
    """RUNTIME__LOG_LEVEL as dlt can read it: a level's name in any case (`warning`), spaces around it, is written back
    in capitals (dlt takes only those, and ended in a traceback on any other); an empty value is no setting. A value
    that names no level is refused in one line (GatehouseError), before dlt reads it."""
    value = os.environ.get(DLT_LOG_LEVEL)
    if value is None or os.environ.get(DLT_LOG_LEVEL_DEFAULTED) == value:
        return
    if not value.strip():
        del os.environ[DLT_LOG_LEVEL]
        return
    if value.strip().upper() not in logging.getLevelNamesMapping():
        raise GatehouseError(log_level_problem(value))
    os.environ[DLT_LOG_LEVEL] = value.strip().upper()


def configure_logging(verbosity: int = 0) -> None:
    """The one place a command's log level is decided: `-v`/`-vv` when given, else the level the user set for dlt in
    RUNTIME__LOG_LEVEL (INFO as `-v`, DEBUG as `-vv`, WARNING or above hides gatehouse's progress lines: a scheduled
    run is silent on success but for what the command prints as its result), else gatehouse's default: its own
    progress lines (INFO) and everyone's warnings. A RUNTIME__LOG_LEVEL that names no level is refused
    (GatehouseError, `normalise_level_setting`)."""
    normalise_level_setting()
    if verbosity <= 0:
        configured = configured_level()
        if configured is not None:
            verbosity = 2 if configured <= logging.DEBUG else 1 if configured <= logging.INFO else -1
    if DLT_LOG_LEVEL not in os.environ:
        # dlt's own warnings (e.g. columns that only held nulls) are noise for a scheduled run;
        # schema changes that matter are reported in gatehouse's summary.
        os.environ[DLT_LOG_LEVEL] = os.environ[DLT_LOG_LEVEL_DEFAULTED] = "DEBUG" if verbosity >= 2 else "ERROR"
    level = logging.WARNING if verbosity <= 0 else logging.INFO if verbosity == 1 else logging.DEBUG
    for secret in secrets_from_environment():
        redacting_filter.add(secret)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(VisibleFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s", "%H:%M:%S"))
    handler.addFilter(redacting_filter)
    root = logging.getLogger()
    for existing in list(root.handlers):
        if getattr(existing, "_gatehouse", False):
            root.removeHandler(existing)
    handler._gatehouse = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level)
    # gatehouse's own progress lines are INFO; keep them visible at the default verbosity, not when the user set
    # WARNING or above. Its warnings always show: RUNTIME__LOG_LEVEL=ERROR is gatehouse's own default for dlt.
    logging.getLogger("gatehouse").setLevel(min(level, logging.INFO) if verbosity >= 0 else logging.WARNING)
    # One line per HTTP request is debug detail, not progress.
    logging.getLogger("httpx").setLevel(logging.DEBUG if verbosity >= 2 else logging.WARNING)
