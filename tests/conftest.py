"""Fixtures every test folder may use, each made once per session and only when asked for."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
from pathlib import Path

import pytest


def _isolated_configuration() -> Path:
    """Tests never read the user's `.dlt/` or environment: dlt's project folder is an empty one holding only the
    repository's own config.toml (never a secrets.toml a user copied from the example), its global folder another,
    and every console, warehouse and dlt setting of the environment is cleared. Done when pytest imports this file,
    before any test or dlt reads a setting; each test that needs a setting sets it (monkeypatch, a .dlt/ of its own
    in a subprocess's folder)."""
    for name in list(os.environ):
        if name.startswith(("SOURCES__", "DESTINATION__", "DESTINATIONS__", "GATEHOUSE", "RUNTIME__", "EXTRACT__",
                            "NORMALIZE__", "LOAD__", "DATA_WRITER__", "DLT_", "PIPELINES__")):
            del os.environ[name]
    folder = Path(tempfile.mkdtemp(prefix="gatehouse-tests-config-"))
    (folder / ".dlt").mkdir()
    shutil.copyfile(Path(__file__).resolve().parents[1] / ".dlt" / "config.toml", folder / ".dlt" / "config.toml")
    os.environ["DLT_PROJECT_DIR"] = str(folder)
    os.environ["DLT_DATA_DIR"] = str(folder / "global")
    return folder


ISOLATED_PROJECT = _isolated_configuration()

from bench.postgres_server import PostgresServer  # noqa: E402 - after the configuration is isolated
from gatehouse.pipelines.warehouse.destination import apply_views  # noqa: E402
from tests.views.console_dataset import load_console  # noqa: E402

# Not UTC on purpose: the views must give UTC wall-clock times whatever the warehouse's own time zone.
POSTGRES_TIMEZONE = "America/New_York"


COMMANDS = Path(__file__).parent / "commands"


# The longest test files, longest first (seconds each on 2 cores, from `pytest --durations=0`, 2026-11-25). They
# start first: the workers then end together on short files, instead of one finishing a long file while the other
# waits (the last three minutes of a run had one worker idle). A file not listed starts after them, in its order.
LONGEST_FIRST = (
    "drills/test_one_console.py",  # 56-94
    "drills/test_secrets.py",  # 52-57
    "drills/test_load.py",  # 50
    "dbt/test_dbt_package.py",  # 44-51
    "drills/test_database_in_use.py",  # 24-59
    "drills/test_paging_faults.py",  # 20-54
    "drills/test_shape_drift.py",  # 20-45
    "drills/test_transient_faults.py",  # 20-43
    "drills/test_moving_lists.py",  # 28-41
    "schedule/test_dagster.py",  # 34
    "drills/test_concurrent_changes.py",  # 24-34
    "test_lint.py",  # 23-30
    "code_refs/test_command.py",  # 31
    "drills/test_projects.py",  # 20-29
    "warehouse/test_postgres_run.py",  # 21-26
    "drills/test_process_killed.py",  # 26
    "report/test_report.py",  # 25
    "views/test_projects_views.py",  # 24
    "report/test_hostile_text.py",  # 22
    "test_docs_commands.py",  # 18-22
    "test_wheel.py",  # 20
    "schedule/test_airflow_dag.py",  # 21
)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own hook reads the marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under `make test` (pytest-xdist, `--dist loadgroup`) each file's tests run on one worker, in order,
    and so do all the console-command tests: some last tests check what the tests before them did
    (the twin saw every operation fail and succeed; test_zz_secret_scan scans the commands' transcript).
    The longest files come first (`LONGEST_FIRST`); within a file the order is the file's own."""
    tests = Path(__file__).parent
    rank = {tests / name: position for position, name in enumerate(LONGEST_FIRST)}
    for item in items:
        group = "console_commands" if COMMANDS in item.path.parents else str(item.path)
        item.add_marker(pytest.mark.xdist_group(group))
    items[:] = sorted(items, key=lambda item: rank.get(item.path, len(rank)))  # stable: each file keeps its order


def closed_port() -> int:
    """A loopback port nothing listens on: bound to find a free one, and closed again once it is known."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def record_calls(monkeypatch):
    """Spies on a function and lets it run: `record_calls(Reader, "frame", lambda self, sql: sql)` wraps
    `Reader.frame` for the test and returns a list to which each call appends what `record` makes of its arguments."""

    def spy(owner, name: str, record):
        calls = []
        original = getattr(owner, name)

        def recording(*args, **kwargs):
            calls.append(record(*args, **kwargs))
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, name, recording)
        return calls

    return spy


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


@pytest.fixture(autouse=True)
def _environment_restored():
    """What a test (or a command it runs in-process: a run applies dlt's run defaults to the environment) sets in
    the environment ends with it. Left behind, a run's two normalize workers reached a later test's plain
    `pipeline.run`, which forked them from this process and its server threads; the fork crashed one run in CI."""
    before = dict(os.environ)
    yield
    if os.environ != before:
        os.environ.clear()
        os.environ.update(before)
