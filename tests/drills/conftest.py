"""Fault drills: `gatehouse run` against the console twin over real loopback HTTP, with faults injected.

Every drill ends in one of two ways, and checks which:
- the run succeeds and its database is identical, row for row in every table (tests/drills/snapshot.py),
  to that of a fault-free run of the same organisation (same size and seed) into another file;
- the run fails with one clear line naming what to fix, nothing of it is loaded, and the next clean run
  completes with exactly the rows of the fault-free run.

The fault-free references are built once per session. Drills page by DRILL_PAGE_SIZE items while the
references use the default page size, so every match also shows that paging changes nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pytest

from gatehouse.console_twin import ConsoleTwin, TwinSettings
from gatehouse.console_twin.settings import RetryAfterForm
from gatehouse.pipelines.cli.main import main
from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.run.steps import RunOptions, RunSummary, run_extraction
from gatehouse.pipelines.warehouse.destination import Destination
from tests.conftest import closed_port, made_once
from tests.drills.snapshot import Snapshot, snapshot

ORG_SIZE = "small"
ORG_SEED = 5
# The small organisation lists ~57 gates and ~18 configs: 10 a page makes six pages of gates.
DRILL_PAGE_SIZE = 10
REPO = Path(__file__).resolve().parents[2]


def make_twin(**settings: Any) -> ConsoleTwin:
    return ConsoleTwin(size=ORG_SIZE, seed=ORG_SEED, settings=TwinSettings(**settings))


def configure_project(env: pytest.MonkeyPatch, name: str, twin: ConsoleTwin, base_url: str) -> None:
    """A project as a scheduler sets it: environment variables under SOURCES__CONSOLE__PROJECTS__<NAME>__."""
    prefix = f"SOURCES__CONSOLE__PROJECTS__{name.upper()}__"
    env.setenv(prefix + "BASE_URL", base_url)
    env.setenv(prefix + "API_KEY", twin.settings.api_key)
    env.setenv(prefix + "EXPERIMENT_IDS", json.dumps(twin.experiment_ids))
    env.setenv(prefix + "INGESTION_RUN_IDS", json.dumps(twin.ingestion_run_ids))


def source_args(twin: ConsoleTwin, base_url: str, **overrides: Any) -> dict[str, Any]:
    args = {
        "base_url": base_url,
        "api_key": twin.settings.api_key,
        "experiment_ids": twin.experiment_ids,
        "ingestion_run_ids": twin.ingestion_run_ids,
    }
    args.update(overrides)
    return args


def load(
    twin: ConsoleTwin, base_url: str, duckdb_path: Path, lock_timeout_s: float | None = None, **overrides: Any
) -> RunSummary:
    """One `gatehouse run` in this process; its state lives beside the DuckDB file, as in production."""
    return run_extraction(
        RunOptions(
            destination=Destination(duckdb_path=duckdb_path),
            progress=False,
            lock_timeout_s=lock_timeout_s,
            source_args=source_args(twin, base_url, **overrides),
        )
    )


def reference_database(directory: Path) -> Path:
    """A fault-free twin of the drills' organisation, loaded once."""
    twin = make_twin()
    path = directory / "reference.duckdb"
    with twin.serve() as base_url:
        load(twin, base_url, path)
    return path


@pytest.fixture(scope="session")
def reference_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One fault-free run of the organisation: its DuckDB file (pipeline state beside it). Copy, never change."""
    return made_once(tmp_path_factory, "drills-reference", reference_database)


@pytest.fixture(scope="session")
def reference(reference_path: Path) -> Snapshot:
    """One fault-free run of the organisation."""
    return snapshot(reference_path)


def copy_database(source: Path, target: Path, base_url: str | None = None, readers_snapshot: bool = False) -> Path:
    """A copy of a loaded DuckDB file with its pipeline state, as `gatehouse run` finds them next time.

    `base_url`: the address the same organisation's twin is served at now; the copy records it as its
    console's, as if it had been loaded from there (the reference's twin had another loopback port).
    `readers_snapshot`: the readers' snapshot a run publishes beside it too (`gatehouse.snapshot.duckdb`: a copy of
    the database as that run left it), for a drill that reads it.
    """
    shutil.copyfile(source, target)
    for suffix in (".wal",):
        if source.with_name(source.name + suffix).exists():
            shutil.copyfile(source.with_name(source.name + suffix), target.with_name(target.name + suffix))
    shutil.copytree(source.with_name(f".{source.name}.dlt"), target.with_name(f".{target.name}.dlt"))
    if base_url is not None:
        with duckdb.connect(str(target)) as connection:
            connection.execute("update console.extraction_runs set console_base_url = ?", [base_url])
    if readers_snapshot:
        shutil.copy2(target, Destination(duckdb_path=target).snapshot.path)  # its time too: a run's snapshot has it
    return target


@pytest.fixture(scope="session")
def reference_after_two_runs(tmp_path_factory: pytest.TempPathFactory, reference_path: Path) -> Snapshot:
    """Two fault-free runs of the unchanged organisation (extraction_runs holds two rows): the first is the
    session's reference, copied."""

    def make(folder: Path) -> Path:
        twin, path = make_twin(), folder / "reference.duckdb"
        with twin.serve() as base_url:
            copy_database(reference_path, path, base_url)
            load(twin, base_url, path)
        return path

    return snapshot(made_once(tmp_path_factory, "drills-reference-two-runs", make))


@dataclass
class Drill:
    """One twin served on loopback and one DuckDB file loaded from it, run after run."""

    twin: ConsoleTwin
    base_url: str
    duckdb_path: Path
    overrides: dict[str, Any] = field(default_factory=lambda: {"page_size": DRILL_PAGE_SIZE})

    def run(self, **overrides: Any) -> RunSummary:
        return load(self.twin, self.base_url, self.duckdb_path, **{**self.overrides, **overrides})

    def start_loaded(self, reference_path: Path) -> None:
        """The database as a first fault-free run of the drill's twin leaves it: a copy of the session's reference
        (the same organisation), for a drill whose subject is the runs after it (a first load costs seconds)."""
        copy_database(reference_path, self.duckdb_path, self.base_url)

    def run_failing(self, **overrides: Any) -> str:
        """Runs, expecting the one-line failure a user sees; returns it."""
        with pytest.raises(GatehouseError) as failure:
            self.run(**overrides)
        message = str(failure.value)
        assert "\n" not in message, f"not one line: {message!r}"
        return message

    def heal(self) -> None:
        """Takes every fault off the twin: the next run meets a healthy console."""
        self.twin.settings = TwinSettings(api_key=self.twin.settings.api_key)

    def snapshot(self) -> Snapshot:
        return snapshot(self.duckdb_path)


@pytest.fixture
def drill(tmp_path: Path) -> Iterator[Drill]:
    twin = make_twin()
    with twin.serve() as base_url:
        yield Drill(twin, base_url, tmp_path / "gatehouse.duckdb")


@pytest.fixture
def quick_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """Backoff sleeps of a tenth of their production length (Retry-After is still honoured as sent).

    What a drill checks is what was loaded, not how long the client slept between attempts; the
    backoff itself is tested with a fake clock in tests/client/test_retries.py.
    """
    from gatehouse.sources.console import constants

    monkeypatch.setattr(constants, "BACKOFF_BASE_S", constants.BACKOFF_BASE_S / 10)


class ThrottleBurst:
    """Stands in for the twin's throttle: 429 for the requests arriving in each of `bursts` (1-based, in the order
    they reach the throttle), whatever the rate, each burst's 429s with its own form of Retry-After (the twin's
    `retry_after`, set as the burst's requests arrive). Bursts of throttling at known points of a run; the twin's own
    `rate_limit` throttles by rate instead."""

    def __init__(self, settings: TwinSettings, bursts: dict[RetryAfterForm, range]) -> None:
        self.settings = settings
        self.bursts = bursts
        self.met: list[RetryAfterForm] = []  # the form of each 429 answered, in order
        self._lock = threading.Lock()
        self._seen = 0

    def admit(self, limit: object) -> float | None:
        with self._lock:
            self._seen += 1
            for form, arrivals in self.bursts.items():
                if self._seen in arrivals:
                    self.settings.retry_after = form
                    self.met.append(form)
                    return 1.0
            return None


# --------------------------------------------------------------------------- subprocesses


def closed_port_url() -> str:
    """A loopback address nothing listens on: a console that refuses every connection."""
    return f"http://127.0.0.1:{closed_port()}"


def gatehouse_command() -> list[str]:
    script = Path(sys.executable).with_name("gatehouse")
    return [str(script)] if script.exists() else [sys.executable, "-m", "gatehouse.pipelines.cli"]


def clean_environment(**extra: str) -> dict[str, str]:
    """This process's environment without console, warehouse or dlt settings, plus `extra`.

    The commands run in a scratch directory, without the project's .dlt/config.toml: telemetry is
    switched off here as that file does.
    """
    kept = {
        name: value
        for name, value in os.environ.items()
        # DLT_PROJECT_DIR too: a command reads the .dlt/ of the folder it runs in, as a user's does
        if not name.startswith(
            ("SOURCES__", "DESTINATION__", "GATEHOUSE_", "RUNTIME__", "EXTRACT__", "LOAD__", "NORMALIZE__", "DLT_PROJECT_DIR")
        )
        or name == "GATEHOUSE__REPORT__KERNELS"  # the suite's own (tests/conftest.py)
    }
    return {**kept, "RUNTIME__DLTHUB_TELEMETRY": "false", **extra}


def console_variables(twin: ConsoleTwin, base_url: str) -> dict[str, str]:
    """The environment variables that point `gatehouse run` at the twin: URL, key and the ids to read."""
    return {
        "SOURCES__CONSOLE__BASE_URL": base_url,
        "SOURCES__CONSOLE__API_KEY": twin.settings.api_key,
        "SOURCES__CONSOLE__EXPERIMENT_IDS": json.dumps(twin.experiment_ids),
        "SOURCES__CONSOLE__INGESTION_RUN_IDS": json.dumps(twin.ingestion_run_ids),
    }


def point_at(env: pytest.MonkeyPatch, twin: ConsoleTwin, base_url: str) -> None:
    """Points `gatehouse run` in this process at the twin through `console_variables`."""
    for name, value in console_variables(twin, base_url).items():
        env.setenv(name, value)


def error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("gatehouse: error:")]


def refused_run(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, twin: ConsoleTwin, base_url: str, *destination: str
) -> str:
    """`gatehouse run` pointed at `twin` into a warehouse a run against another console loaded: it must fail
    (exit 2); its one error line. The twin's request log starts with this run."""
    point_at(env, twin, base_url)
    twin.reset_requests()
    capsys.readouterr()
    assert main(["run", "--no-progress", *destination]) == 2
    [line] = error_lines(capsys.readouterr().err)
    return line


def run_environment(twin: ConsoleTwin, base_url: str, **extra: str) -> dict[str, str]:
    """How a scheduler points `gatehouse run` at the twin: environment variables only."""
    return clean_environment(
        **console_variables(twin, base_url),
        SOURCES__CONSOLE__PAGE_SIZE=str(DRILL_PAGE_SIZE),
        **extra,
    )


Query = Callable[[str], list[tuple]]


def duckdb_destination(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> tuple[list[str], Query]:
    """A run's destination flags for a DuckDB file in `tmp_path`, and a query of it: one side of a test that runs on
    DuckDB and on PostgreSQL alike (`postgres_destination`)."""
    path = tmp_path / "gatehouse.duckdb"

    def query(sql: str) -> list[tuple]:
        with duckdb.connect(str(path), read_only=True) as connection:
            return connection.execute(sql).fetchall()

    return ["--duckdb", str(path)], query


def postgres_destination(database: str) -> Callable[..., tuple[list[str], Query]]:
    """The same for a database of the suite's real PostgreSQL server (the `postgres_server` fixture)."""

    def destination(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> tuple[list[str], Query]:
        import psycopg2

        credentials = request.getfixturevalue("postgres_server").database(database)
        monkeypatch.setenv("DESTINATION__POSTGRES__CREDENTIALS", credentials)

        def query(sql: str) -> list[tuple]:
            with psycopg2.connect(credentials) as connection, connection.cursor() as cursor:
                cursor.execute(sql)
                return cursor.fetchall()

        return ["--destination", "postgres"], query

    return destination
