"""Fixtures every test folder may use, each made once per session and only when asked for."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench.postgres_server import PostgresServer
from gatehouse.pipelines.warehouse.destination import apply_views
from tests.views.console_dataset import load_console

# Not UTC on purpose: the views must give UTC wall-clock times whatever the warehouse's own time zone.
POSTGRES_TIMEZONE = "America/New_York"


COMMANDS = Path(__file__).parent / "commands"


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own hook reads the marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under `make test` (pytest-xdist, `--dist loadgroup`) each file's tests run on one worker, in order,
    and so do all the console-command tests: some last tests check what the tests before them did
    (the twin saw every operation fail and succeed; test_zz_secret_scan scans the commands' transcript)."""
    for item in items:
        group = "console_commands" if COMMANDS in item.path.parents else str(item.path)
        item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(scope="session")
def postgres_server():
    """A PostgreSQL server on 127.0.0.1: `.database(name)` gives a fresh database's dlt credentials."""
    server = PostgresServer(timezone=POSTGRES_TIMEZONE).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def console_db(tmp_path_factory) -> Path:
    """The hand-built console (tests/views/console_dataset.py) in a DuckDB file, loaded with dlt, views applied.
    Read only: a test that changes it works on a copy (`writable_db` in tests/views)."""
    os.environ.setdefault("RUNTIME__LOG_LEVEL", "ERROR")
    work = tmp_path_factory.mktemp("hand_built_console")
    database = load_console(work / "hand_built.duckdb", work)
    apply_views(database)
    return database
