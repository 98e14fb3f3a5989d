"""The console's settings, declared once: `[sources.console]` as a dlt configuration spec.

The source (`console(settings=...)`, injected by dlt from this spec), the console commands' client and each
project's own section all read this one declaration, with its defaults. dlt looks
each setting up in `.dlt/config.toml` (secrets in `.dlt/secrets.toml`) and the environment
(`SOURCES__CONSOLE__PAGE_SIZE`, lists as JSON: `SOURCES__CONSOLE__EXPERIMENT_IDS='["exp_1"]'`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from dlt.common.configuration import configspec, resolve_configuration
from dlt.common.configuration.specs import BaseConfiguration
from dlt.common.typing import TSecretStrValue

from gatehouse.sources.console.errors import ConfigurationError

SECTIONS = ("sources", "console")

# The defaults, each in one place (the client's options take theirs from here too).
# The console documents no maximum `limit` (pages of 20,000 items have been seen), and every page costs a
# request of the rate limit like any other. 2,000 reads a list of 20,000 gates in 10 requests, not 20, and
# keeps one page's memory bounded: a gate parsed takes several times its JSON, and the large full load's peak
# grows with the page (bench/RESULTS.md, peak RSS).
DEFAULT_PAGE_SIZE = 2000
DEFAULT_TIMEOUT_S = 30.0
DEFAULT_MAX_ATTEMPTS = 6
DEFAULT_MAX_RETRY_TIME_S = 120.0
DEFAULT_RATE_LIMIT_REQUESTS = 100
DEFAULT_RATE_LIMIT_WINDOW_S = 10.0
# Requests in flight at once, per fan-out (Little's law: the rate times the round trip). 16 keep 50 requests/s
# going up to 320 ms a round trip; 8 held the large organisation's runs under the rate while a busy twin answered
# slowly, so the first phase ended late and its load fell after the last request (bench/RESULTS.md).
DEFAULT_MAX_WORKERS = 16
# An ingestion run in any status but pulse_complete (an error too: the service retries it) that has not moved
# for this long is quiet (stuck, given up, or forgotten by the service): requested again only every
# DEFAULT_RECHECK_CONCLUDED_DAYS, in case it moves.
DEFAULT_QUIET_RUN_AFTER_DAYS = 7
# A concluded experiment (its series silent for more than DEFAULT_LATE_EXPOSURE_DAYS), or a quiet ingestion
# run, is requested again only this often.
DEFAULT_RECHECK_CONCLUDED_DAYS = 7
# The service computes exposures once a day and can run days late (an ingestion outage over a weekend):
# a series whose newest day lags the service's clock by up to this many days is late, not concluded,
# and is requested on every run (docs/decisions.md).
DEFAULT_LATE_EXPOSURE_DAYS = 4


@configspec
class ConsoleSettings(BaseConfiguration):
    """`[sources.console]`: which console, which ids to follow beyond those discovered, and how to read it."""

    # `= None` with a type that is not Optional: how dlt declares a setting that must be given
    base_url: str = None  # type: ignore[assignment]
    api_key: TSecretStrValue = None  # type: ignore[assignment]
    # group provisioning only (`gatehouse console scim-group`); a run never sends it
    scim_token: TSecretStrValue | None = None
    # the interface lists neither experiments nor ingestion runs: ids to follow beyond those discovered
    experiment_ids: list[str] | None = None
    holdout_ids: list[str] | None = None
    ingestion_run_ids: list[str] | None = None
    page_size: int = DEFAULT_PAGE_SIZE
    rate_limit_requests: int = DEFAULT_RATE_LIMIT_REQUESTS
    rate_limit_window: float = DEFAULT_RATE_LIMIT_WINDOW_S
    max_workers: int = DEFAULT_MAX_WORKERS
    timeout: float = DEFAULT_TIMEOUT_S
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    max_retry_time: float = DEFAULT_MAX_RETRY_TIME_S
    quiet_run_after_days: float = DEFAULT_QUIET_RUN_AFTER_DAYS
    recheck_concluded_days: int = DEFAULT_RECHECK_CONCLUDED_DAYS
    late_exposure_days: int = DEFAULT_LATE_EXPOSURE_DAYS


def check_followed(settings: ConsoleSettings) -> None:
    """The ids a run follows and its day counts, checked before anything is read: an id that is not a non-empty
    string (`[1, 2]`, `""`) would fail the run only when its turn came, after the lists had loaded, or be dropped."""
    for name in ("experiment_ids", "holdout_ids", "ingestion_run_ids"):
        for value in getattr(settings, name) or ():
            if not isinstance(value, str) or not value.strip():
                raise ConfigurationError(
                    f'sources.console.{name}: every id must be a non-empty string (in JSON, quoted: ["exp_1"]), not {value!r}'
                    " (nothing was read or loaded)"
                )
    for name in ("quiet_run_after_days", "recheck_concluded_days", "late_exposure_days"):
        value = getattr(settings, name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
            raise ConfigurationError(
                f"sources.console.{name} must be a number of days, 0 or more, not {value!r} (nothing was read or loaded)"
            )


def resolve_settings(sections: Sequence[str] = SECTIONS, *, accept_partial: bool = False, **explicit: Any) -> ConsoleSettings:
    """The settings of a section of the config, `explicit` values (not None) winning over it. A setting a deeper
    section leaves out is looked up in the sections above it (a project's page size in `[sources.console]`)."""
    given = {name: value for name, value in explicit.items() if value is not None}
    unknown = sorted(set(given) - set(ConsoleSettings().keys()))
    if unknown:
        raise TypeError(f"not console settings: {', '.join(unknown)}")
    return resolve_configuration(ConsoleSettings(), sections=tuple(sections), explicit_value=given, accept_partial=accept_partial)
