"""Console connection settings for gatehouse commands, resolved the way the dlt source resolves them.

Every value comes from the one declaration of the `[sources.console]` settings (sources/console/settings.py):
`.dlt/config.toml`, `.dlt/secrets.toml` and environment variables such as `SOURCES__CONSOLE__BASE_URL`,
`SOURCES__CONSOLE__API_KEY` and `SOURCES__CONSOLE__SCIM_TOKEN`, which win over the files.
"""

from __future__ import annotations

from typing import Any

from dlt.common.configuration.exceptions import ConfigValueCannotBeCoercedException

from gatehouse.pipelines.errors import GatehouseError, config_file_problem
from gatehouse.pipelines.logs import redacting_filter
from gatehouse.sources.console import constants as console_constants
from gatehouse.sources.console.client import ClientOptions
from gatehouse.sources.console.settings import resolve_settings

ENV_BASE_URL = "SOURCES__CONSOLE__BASE_URL"
# What a command adds to the settings: the header asking the console to keep its review rules.
_COMMAND_OPTIONS = ("respect_review_settings",)


def client_options_from_config(**overrides: Any) -> ClientOptions:
    """`ClientOptions` from `[sources.console]` (sources/console/settings.py); `overrides` that are not None win.

    Raises `GatehouseError` naming the setting when the base URL is missing or a value does not convert;
    `ClientOptions` itself rejects a missing API key (but for a SCIM token alone) and bad values
    (`ConfigurationError`). Every secret found is added to the redacting log filter.
    """
    given = {key: value for key, value in overrides.items() if value is not None}
    command = {key: given.pop(key) for key in _COMMAND_OPTIONS if key in given}
    try:
        # partial: a SCIM token alone is enough for group provisioning, and ClientOptions names a missing key
        settings = resolve_settings(accept_partial=True, **given)
    except ConfigValueCannotBeCoercedException as err:  # dlt's message quotes the value; name the key instead
        raise GatehouseError(f"sources.console.{err.field_name} is not a valid {err.hint.__name__}") from None
    except Exception as err:
        problem = config_file_problem(err)
        if problem is None:
            raise
        raise GatehouseError(problem) from None
    redacting_filter.add(settings.api_key)
    redacting_filter.add(settings.scim_token)
    if not settings.base_url:
        raise GatehouseError(
            f"no console base URL: set {console_constants.SETTING_BASE_URL} in .dlt/config.toml "
            f"or the environment variable {ENV_BASE_URL} (gatehouse console also takes --base-url)"
        )
    return ClientOptions.from_settings(settings, **command)
