"""Console connection settings for gatehouse commands, resolved the way the dlt source resolves them.

Every value comes from the `[sources.console]` section through `dlt.config` (non-secret values:
`.dlt/config.toml`) and `dlt.secrets` (`.dlt/secrets.toml`); both also read environment variables
such as `SOURCES__CONSOLE__BASE_URL`, `SOURCES__CONSOLE__API_KEY` and `SOURCES__CONSOLE__SCIM_TOKEN`,
which win over the files. Keys that are not configured keep the client's own defaults, so the
defaults live in `gatehouse.sources.console.settings` only.
"""

from __future__ import annotations

from typing import Any

import dlt

from gatehouse.pipelines.errors import GatehouseError, config_file_problem
from gatehouse.pipelines.logs import redacting_filter
from gatehouse.sources.console import settings as console_settings
from gatehouse.sources.console.client import ClientOptions

SECTION = "sources.console"
ENV_BASE_URL = "SOURCES__CONSOLE__BASE_URL"

# ClientOptions field -> type of its value, looked up as `sources.console.<field>` in dlt.config.
CONFIG_KEYS: dict[str, type] = {
    "base_url": str,
    "page_size": int,
    "timeout": float,
    "max_attempts": int,
    "max_retry_time": float,
    "rate_limit_requests": int,
    "rate_limit_window": float,
    "max_workers": int,
}
# Looked up in dlt.secrets only: a key pasted into config.toml is not picked up.
SECRET_KEYS: tuple[str, ...] = ("api_key", "scim_token")


def _lookup(key: str, expected_type: type) -> Any:
    accessor = dlt.secrets if key in SECRET_KEYS else dlt.config
    try:
        return accessor.get(f"{SECTION}.{key}", expected_type)
    except Exception as err:  # dlt's conversion errors quote the value; name the key instead
        raise GatehouseError(config_file_problem(err) or f"{SECTION}.{key} is not a valid {expected_type.__name__}") from None


def client_options_from_config(**overrides: Any) -> ClientOptions:
    """`ClientOptions` from `[sources.console]` config and secrets; `overrides` that are not None win.

    Raises `GatehouseError` naming the setting when the base URL is missing; `ClientOptions`
    itself rejects a missing API key and bad values (`ConfigurationError`). Every secret found
    is added to the redacting log filter.
    """
    values: dict[str, Any] = {key: _lookup(key, expected_type) for key, expected_type in CONFIG_KEYS.items()}
    values.update({key: _lookup(key, str) for key in SECRET_KEYS})
    values.update({key: value for key, value in overrides.items() if value is not None})
    for key in SECRET_KEYS:
        redacting_filter.add(values[key])
    if not values["base_url"]:
        raise GatehouseError(
            f"no console base URL: set {console_settings.SETTING_BASE_URL} in .dlt/config.toml "
            f"or the environment variable {ENV_BASE_URL} (gatehouse console also takes --base-url)"
        )
    # ClientOptions' own defaults apply to what is not configured; api_key stays (None) so that
    # its absence is reported by ClientOptions with the setting to fix.
    return ClientOptions(**{key: value for key, value in values.items() if value is not None or key == "api_key"})
