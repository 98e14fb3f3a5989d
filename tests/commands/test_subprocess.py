"""A few commands as a user runs them: the installed `gatehouse` script in its own process, over loopback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.commands.conftest import SECRETS, record

REPO = Path(__file__).resolve().parents[2]


def gatehouse_process(*argv: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    script = Path(sys.executable).with_name("gatehouse")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "gatehouse.pipelines.cli"]
    base = {name: value for name, value in os.environ.items() if not name.startswith(("SOURCES__CONSOLE__", "GATEHOUSE_"))}
    done = subprocess.run([*command, *argv], env={**base, **env}, cwd=REPO, capture_output=True, text=True, timeout=60)
    record(list(argv), done.returncode, done.stdout, done.stderr)
    return done


@pytest.fixture
def env(base_url):
    return {"SOURCES__CONSOLE__API_KEY": SECRETS["api_key"], "SOURCES__CONSOLE__BASE_URL": base_url}


def test_list_as_table(twin, env):
    done = gatehouse_process("console", "gates", "--type", "STALE", "--format", "table", env=env)
    assert done.returncode == 0, done.stderr
    header, _, *rows = done.stdout.splitlines()
    assert header.split()[:3] == ["id", "name", "type"]
    assert [row.split()[0] for row in rows] == [g["id"] for g in twin.organisation.listed_gates() if g["type"] == "STALE"]
    assert "gates (1 request)" in done.stderr


def test_dry_run_of_a_warehouse_connection(twin, env):
    done = gatehouse_process(
        "console",
        "wh-connection",
        "set",
        "--databricks",
        "--host",
        "h",
        "--path",
        "p",
        "--staging-database",
        "d",
        "--dry-run",
        env={**env, "GATEHOUSE_DATABRICKS_ACCESS_TOKEN": SECRETS["databricks_access_token"]},
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["body"]["databricks"]["accessToken"] == "***"
    assert twin.requests == []


def test_rejected_key_in_a_verbose_run(twin, env):
    holdout = twin.holdout_ids[0]
    done = gatehouse_process(
        "-vv", "console", "holdout", holdout, env={**env, "SOURCES__CONSOLE__API_KEY": SECRETS["wrong_api_key"]}
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].startswith("gatehouse: error: the console rejected the API key (HTTP 401)")
    assert twin.requests[0].headers["service-api-key"] == SECRETS["wrong_api_key"]
