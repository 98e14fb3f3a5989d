"""Tests never read the user's `.dlt/` or environment (tests/conftest.py): a user who copied the example secrets
into the checkout, or exported a console's settings, still gets the suite's own results."""

from __future__ import annotations

import os
from pathlib import Path

import dlt

from tests.conftest import ISOLATED_PROJECT

REPO = Path(__file__).resolve().parents[1]


def test_dlt_reads_an_empty_project_holding_only_the_repositorys_config():
    assert Path(os.environ["DLT_PROJECT_DIR"]) == ISOLATED_PROJECT != REPO
    assert sorted(p.name for p in (ISOLATED_PROJECT / ".dlt").iterdir()) == ["config.toml"]
    assert dlt.config.get("runtime.dlthub_telemetry") is False  # the repository's config.toml, copied
    assert dlt.secrets.get("sources.console.api_key") is None


def test_a_secrets_file_in_the_checkout_is_not_read(tmp_path, monkeypatch):
    # what `cp .dlt/example.secrets.toml .dlt/secrets.toml` makes, in a checkout the tests run from
    checkout = tmp_path / "checkout"
    (checkout / ".dlt").mkdir(parents=True)
    (checkout / ".dlt" / "secrets.toml").write_text('[sources.console]\napi_key = "console-user-own-key"\n')
    monkeypatch.chdir(checkout)
    assert dlt.secrets.get("sources.console.api_key") is None
