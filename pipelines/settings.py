"""gatehouse's own settings (`[gatehouse]` in .dlt/config.toml, or GATEHOUSE__*), read through dlt's config."""

from __future__ import annotations

from typing import Any

import dlt

from gatehouse.pipelines.errors import GatehouseError


def seconds_setting(name: str, default: float, *, zero_allowed: bool) -> float:
    """A duration setting in seconds, the default when unset; anything else than a number of seconds (more than 0,
    or 0 or more with `zero_allowed`) is one line naming the setting."""
    configured: Any = dlt.config.get(name)
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
