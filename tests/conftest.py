"""Fixtures every test folder may use, each made once per session and only when asked for."""

from __future__ import annotations

import fcntl
import os
import shutil
import socket
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest


def _isolated_configuration() -> Path:
    """Tests never read the user's `.dlt/` or environment: dlt's project folder is an empty one holding only the
    repository's own config.toml (never a secrets.toml a user copied from the example), its global folder another,
    and every console, warehouse and dlt setting of the environment is cleared. Done when pytest imports this file,
    before any test or dlt reads a setting; each test that needs a setting sets it (monkeypatch, a .dlt/ of its own
    in a subprocess's folder)."""
    for name in list(os.environ):
        if name.startswith(
            (
                "SOURCES__",
                "DESTINATION__",
                "DESTINATIONS__",
                "GATEHOUSE",
                "RUNTIME__",
                "EXTRACT__",
                "NORMALIZE__",
                "LOAD__",
                "DATA_WRITER__",
                "DLT_",
                "PIPELINES__",
            )
        ):
            del os.environ[name]
    folder = Path(tempfile.mkdtemp(prefix="gatehouse-tests-config-"))
    (folder / ".dlt").mkdir()
    shutil.copyfile(Path(__file__).resolve().parents[1] / ".dlt" / "config.toml", folder / ".dlt" / "config.toml")
    os.environ["DLT_PROJECT_DIR"] = str(folder)
    os.environ["DLT_DATA_DIR"] = str(folder / "global")
    # The suite's reports run their notebooks in one kernel: its workers already keep the cores busy, and a second
    # kernel per report was one more start-up and set of imports each. The demo's session report runs two lanes
    # (tests/report/conftest.py), as a report does by default on two cores.
    os.environ["GATEHOUSE__REPORT__KERNELS"] = "1"
    return folder


ISOLATED_PROJECT = _isolated_configuration()


def pytest_unconfigure(config: pytest.Config) -> None:
    # Each process of the suite (the controller and every xdist worker) made its own folder: each removes it
    # (left behind, every run added a few to the temporary folder).
    shutil.rmtree(ISOLATED_PROJECT, ignore_errors=True)


from bench.postgres_server import PostgresServer  # noqa: E402 - after the configuration is isolated
from gatehouse.pipelines.warehouse.views import apply_views  # noqa: E402
from tests.views.console_dataset import load_console  # noqa: E402

# Not UTC on purpose: the views must give UTC wall-clock times whatever the warehouse's own time zone.
POSTGRES_TIMEZONE = "America/New_York"


COMMANDS = Path(__file__).parent / "commands"


# The longest test files, longest first (a worker's time on each, its session fixtures included, from the suite run
# under three workers on 2 cores with each test's time recorded, 2026-11-29). They start first: the workers then end
# together on short files, instead of one finishing a long file while the others wait. A file not listed starts after
# them, in its order. `make test` keeps this order (`--no-loadscope-reorder`): pytest-xdist otherwise starts the files
# with the most tests first, and the longest drills, one or two tests each, started last (the final minute had one
# worker). `commands/test_bad_input.py` stands for the console-command tests, which run together.
LONGEST_FIRST = (
    "dbt/test_dbt_package.py",
    "drills/test_promise_projects.py",
    "drills/test_one_console.py",
    "drills/test_promise_one_console.py",
    "test_lint.py",
    "drills/test_load.py",
    "dbt/test_warehouses.py",
    "drills/test_transient_faults.py",
    "drills/test_secrets.py",
    "warehouse/test_adopt_and_projects_postgres.py",
    "views/test_lifecycle_time_travel.py",
    "test_docs_commands.py",
    "schedule/test_dagster.py",
    "views/test_projects_views.py",
    "warehouse/test_dialects.py",
    "warehouse/test_postgres_run.py",
    "alerts/test_alerts.py",
    "drills/test_paging_faults.py",
    "report/test_unfollowed_experiments.py",
    "code_refs/test_command.py",
    "drills/test_concurrent_changes.py",
    "commands/test_bad_input.py",
    "report/test_report.py",
    "schedule/test_airflow_dag.py",
    "drills/test_database_in_use.py",
    "pipeline/test_gatehouse_settings.py",
    "drills/test_whole_lists.py",
    "cleanup/test_command.py",
    "warehouse/test_filesystem.py",
    "test_wheel.py",
    "warehouse/test_postgres_projects.py",
    "alerts/test_alerts_projects.py",
    "pipeline/test_console_as_sent.py",
    "drills/test_process_killed.py",
    "views/test_returned_versions.py",
    "source/test_quiet_runs.py",
    "views/test_gate_lifecycle.py",
    "views/test_destinations_agree.py",
    "warehouse/test_postgres_one_console.py",
    "cleanup/test_compiles.py",
    "report/test_hostile_text.py",
    "drills/test_projects.py",
    "pipeline/test_run_command.py",
    "code_refs/test_history.py",
    "pipeline/test_full_refresh_failure.py",
    "report/test_lanes.py",
    "drills/test_moving_lists.py",
    "drills/test_unchanged_lists.py",
    "drills/test_late_exposures.py",
    "pipeline/test_run_defaults.py",
)


# Test files that share an expensive session fixture run on one worker, so that it is made once: the demo's load and
# reports (tests/report/conftest.py: `gatehouse run --demo`, then `gatehouse report`) were made on two workers.
SHARED_FIXTURE_GROUPS = {
    "report/test_report.py": "demo_reports",
    "report/test_owner_lists.py": "demo_reports",
}


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own hook reads the marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under `make test` (pytest-xdist, `--dist loadgroup`) each file's tests run on one worker, in order,
    and so do all the console-command tests: some last tests check what the tests before them did
    (the twin saw every operation fail and succeed; test_zz_secret_scan scans the commands' transcript);
    so do the files that share an expensive fixture (`SHARED_FIXTURE_GROUPS`). The longest files come first (`LONGEST_FIRST`); within a file the order is the file's own."""
    tests = Path(__file__).parent
    rank = {tests / name: position for position, name in enumerate(LONGEST_FIRST)}
    shared = {tests / name: group for name, group in SHARED_FIXTURE_GROUPS.items()}
    for item in items:
        group = "console_commands" if COMMANDS in item.path.parents else shared.get(item.path, str(item.path))
        item.add_marker(pytest.mark.xdist_group(group))
    items[:] = sorted(items, key=lambda item: rank.get(item.path, len(rank)))  # stable: each file keeps its order


def made_once(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], Path]) -> Path:
    """What `make(folder)` returns, made once per `pytest` command however many workers ask: the first to ask
    makes it (the others wait on a lock), in the temporary folder the workers share, and each gets its path.
    For session data that only the test's reading: every worker loading the same reference again cost a
    load each."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the workers' folders (popen-gw0, ...) share this one
    folder = root / f"made-once-{name}"
    with open(root / f"made-once-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = folder / ".made"
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            done.write_text(str(make(folder).relative_to(folder)))
        return folder / done.read_text()


_reserved: list[socket.socket] = []


def closed_port() -> int:
    """A loopback port nothing listens on, and nothing can: this process keeps it bound without listening.

    A port bound and closed again at once is free for the next server any worker starts; one retry
    landing on it read "the console hung up" instead of "could not connect" (seen once in CI).
    A bound socket that never listens answers every connection with a refusal, and the kernel gives
    its port to no one else while it is held.
    """
    if not _reserved:
        held = socket.socket()
        held.bind(("127.0.0.1", 0))
        _reserved.append(held)
    return _reserved[0].getsockname()[1]


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


def hand_built_console_db(work: Path) -> Path:
    database = load_console(work / "hand_built.duckdb", work)
    apply_views(database)
    return database


@pytest.fixture(scope="session")
def console_db(tmp_path_factory) -> Path:
    """The hand-built console (tests/views/console_dataset.py) in a DuckDB file, loaded with dlt, views applied.
    Read only: a test that changes it works on a copy (`writable_db` in tests/views). Made once for every worker
    (each of them made its own: about three seconds of processor time each) and copied whole into the worker's own
    folder, so that no worker's file lock ever meets another's."""
    os.environ.setdefault("RUNTIME__LOG_LEVEL", "ERROR")
    made = made_once(tmp_path_factory, "hand-built-console", hand_built_console_db)
    work = tmp_path_factory.mktemp("hand_built_console")
    shutil.copytree(made.parent, work, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".made"))
    return work / made.name


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
