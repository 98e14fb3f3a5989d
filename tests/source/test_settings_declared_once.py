"""The console's settings are declared once (sources/console/settings.py): the source is injected from that spec,
the commands' client options and each project read the same declaration, and what is not a setting (the client,
the caller's report) cannot be set from the configuration."""

from __future__ import annotations

import dataclasses

import pytest
from dlt.common.configuration import get_fun_spec

from gatehouse.sources.console import console
from gatehouse.sources.console.client import ClientOptions
from gatehouse.sources.console.errors import ConfigurationError
from gatehouse.sources.console.settings import ConsoleSettings, resolve_settings


def test_the_source_is_injected_from_the_one_declaration():
    assert get_fun_spec(console.__wrapped__) is ConsoleSettings  # the function dlt injects, as functools exposes it


def test_the_client_options_are_the_declared_settings_but_the_commands_own():
    declared = set(ConsoleSettings().keys())
    options = {f.name for f in dataclasses.fields(ClientOptions)}
    assert options - declared == {"respect_review_settings"}


def test_what_is_not_a_setting_is_not_read_from_the_configuration(monkeypatch):
    monkeypatch.setenv("SOURCES__CONSOLE__BASE_URL", "https://console.example.com")
    monkeypatch.setenv("SOURCES__CONSOLE__API_KEY", "console-Vb7Np2Qx9Lk4Tz6Wm3Rc8Hd5")
    for seam in ("REPORT", "CLIENT", "TRANSPORT"):
        monkeypatch.setenv(f"SOURCES__CONSOLE__{seam}", "x")
    source = console()
    assert "gates" in source.resources


def test_settings_given_win_and_an_unknown_one_is_refused(monkeypatch):
    monkeypatch.setenv("SOURCES__CONSOLE__PAGE_SIZE", "250")
    settings = resolve_settings(base_url="https://console.example.com", api_key="key-1", page_size=10)
    assert (settings.page_size, ClientOptions.from_settings(settings).page_size) == (10, 10)
    assert resolve_settings(base_url="https://console.example.com", api_key="key-1").page_size == 250
    with pytest.raises(TypeError, match="not console settings: pagesize"):
        resolve_settings(pagesize=10)
    with pytest.raises(ConfigurationError, match="page_size must be a positive integer"):
        ClientOptions.from_settings(resolve_settings(base_url="https://console.example.com", api_key="key-1", page_size=0))
