"""Connection settings for commands come from `[sources.console]` config and secrets, as the dlt source reads them."""

from __future__ import annotations

import pytest

from gatehouse.pipelines.cli.console.client_options import client_options_from_config
from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.logs import redacting_filter
from gatehouse.sources.console.errors import ConfigurationError
from tests.commands.conftest import SECRETS


def test_values_come_from_environment_and_config(monkeypatch):
    monkeypatch.setenv("SOURCES__CONSOLE__BASE_URL", "https://console.example.com/")
    monkeypatch.setenv("SOURCES__CONSOLE__PAGE_SIZE", "250")
    monkeypatch.setenv("SOURCES__CONSOLE__TIMEOUT", "7.5")
    monkeypatch.setenv("SOURCES__CONSOLE__RATE_LIMIT_WINDOW", "15")
    options = client_options_from_config()
    assert options.base_url == "https://console.example.com"
    assert (options.api_key, options.scim_token) == (SECRETS["api_key"], SECRETS["scim_token"])
    assert (options.page_size, options.timeout, options.rate_limit_window) == (250, 7.5, 15.0)
    # From .dlt/config.toml, which the repository ships, and settings.py.
    assert options.rate_limit_requests == 100 and options.max_workers == 16
    assert SECRETS["api_key"] not in repr(options) and SECRETS["scim_token"] not in repr(options)
    assert {SECRETS["api_key"], SECRETS["scim_token"]} <= redacting_filter.secrets


def test_overrides_win_and_none_is_no_override(monkeypatch):
    monkeypatch.setenv("SOURCES__CONSOLE__BASE_URL", "https://console.example.com")
    options = client_options_from_config(base_url="http://127.0.0.1:8787", page_size=None, respect_review_settings=True)
    assert options.base_url == "http://127.0.0.1:8787"
    assert options.page_size == 2000 and options.respect_review_settings is True


def test_missing_base_url_names_setting_and_variable():
    with pytest.raises(GatehouseError, match=r"sources\.console\.base_url .* SOURCES__CONSOLE__BASE_URL"):
        client_options_from_config()


def test_missing_api_key_is_reported_by_the_client_options(monkeypatch):
    monkeypatch.delenv("SOURCES__CONSOLE__API_KEY")
    monkeypatch.delenv("SOURCES__CONSOLE__SCIM_TOKEN", raising=False)
    monkeypatch.setenv("SOURCES__CONSOLE__BASE_URL", "https://console.example.com")
    with pytest.raises(ConfigurationError, match="SOURCES__CONSOLE__API_KEY"):
        client_options_from_config()


def test_a_scim_token_alone_is_enough_for_group_provisioning(monkeypatch):
    monkeypatch.delenv("SOURCES__CONSOLE__API_KEY")
    monkeypatch.setenv("SOURCES__CONSOLE__BASE_URL", "https://console.example.com")
    options = client_options_from_config()
    assert options.api_key is None and options.scim_token


def test_unconvertible_value_names_the_key_not_the_value(monkeypatch):
    monkeypatch.setenv("SOURCES__CONSOLE__BASE_URL", "https://console.example.com")
    monkeypatch.setenv("SOURCES__CONSOLE__PAGE_SIZE", "lots")
    with pytest.raises(GatehouseError, match=r"^sources\.console\.page_size is not a valid int$"):
        client_options_from_config()
