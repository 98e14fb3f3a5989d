"""The console's settings, declared once: `[sources.console]` as a dlt configuration spec.

The source (`console(settings=...)`, injected by dlt from this spec), the console commands' client and each
project's own section all read this one declaration; the defaults are the constants of settings.py. dlt looks
each setting up in `.dlt/config.toml` (secrets in `.dlt/secrets.toml`) and the environment
(`SOURCES__CONSOLE__PAGE_SIZE`, lists as JSON: `SOURCES__CONSOLE__EXPERIMENT_IDS='["exp_1"]'`).
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

from dlt.common.configuration import configspec, resolve_configuration
from dlt.common.configuration.specs import BaseConfiguration
from dlt.common.typing import TSecretStrValue

from gatehouse.sources.console import settings
from gatehouse.sources.console.client import ClientOptions

SECTIONS = ("sources", "console")


@configspec
class ConsoleSettings(BaseConfiguration):
    """`[sources.console]`: which console, which ids to follow beyond those discovered, and how to read it."""

    # `= None` with a type that is not Optional: how dlt declares a setting that must be given
    base_url: str = None  # type: ignore[assignment]
    api_key: TSecretStrValue = None  # type: ignore[assignment]
    # group provisioning only (`gatehouse console scim-group`); a run never sends it
    scim_token: Optional[TSecretStrValue] = None
    # the interface lists neither experiments nor ingestion runs: ids to follow beyond those discovered
    experiment_ids: Optional[List[str]] = None
    holdout_ids: Optional[List[str]] = None
    ingestion_run_ids: Optional[List[str]] = None
    page_size: int = settings.DEFAULT_PAGE_SIZE
    rate_limit_requests: int = settings.DEFAULT_RATE_LIMIT_REQUESTS
    rate_limit_window: float = settings.DEFAULT_RATE_LIMIT_WINDOW_S
    max_workers: int = settings.DEFAULT_MAX_WORKERS
    timeout: float = settings.DEFAULT_TIMEOUT_S
    max_attempts: int = settings.DEFAULT_MAX_ATTEMPTS
    max_retry_time: float = settings.DEFAULT_MAX_RETRY_TIME_S
    quiet_run_after_days: float = settings.DEFAULT_QUIET_RUN_AFTER_DAYS
    recheck_concluded_days: int = settings.DEFAULT_RECHECK_CONCLUDED_DAYS
    late_exposure_days: int = settings.DEFAULT_LATE_EXPOSURE_DAYS

    def client_options(self, **overrides: Any) -> ClientOptions:
        """The client's options from these settings (validated there: a bad value is one line naming it)."""
        values = {name: getattr(self, name) for name in _CLIENT_SETTINGS}
        return ClientOptions(**{**values, **overrides})


# The settings the HTTP client takes; the rest are the run's rules and ids.
_CLIENT_SETTINGS = ("base_url", "api_key", "scim_token", "page_size", "timeout", "max_attempts", "max_retry_time",
                    "rate_limit_requests", "rate_limit_window", "max_workers")


def resolve_settings(sections: Sequence[str] = SECTIONS, *, accept_partial: bool = False, **explicit: Any) -> ConsoleSettings:
    """The settings of a section of the config, `explicit` values (not None) winning over it. A setting a deeper
    section leaves out is looked up in the sections above it (a project's page size in `[sources.console]`)."""
    given = {name: value for name, value in explicit.items() if value is not None}
    unknown = sorted(set(given) - set(ConsoleSettings().keys()))
    if unknown:
        raise TypeError(f"not console settings: {', '.join(unknown)}")
    return resolve_configuration(ConsoleSettings(), sections=tuple(sections), explicit_value=given,
                                 accept_partial=accept_partial)
