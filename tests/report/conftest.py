"""A demo database from `gatehouse run --demo`, and its reports, each made once per session."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import made_once
from tests.drills.conftest import reference_path  # noqa: F401 - the drills' first run of their twin, made once
from tests.drills.forked_commands import ForkedCommands
from tools import headless_browser as browser_setup


def gatehouse(*args: str, timeout: float = 300, **env: str) -> subprocess.CompletedProcess:
    """The installed `gatehouse` command (or the module, when the entry point is not on disk), with `env` added."""
    script = Path(sys.executable).with_name("gatehouse")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "gatehouse.pipelines.cli"]
    return subprocess.run([*command, *args], capture_output=True, text=True, timeout=timeout, env={**os.environ, **env})


@pytest.fixture(scope="session")
def forked_gatehouse(tmp_path_factory) -> Iterator[Callable[..., subprocess.CompletedProcess]]:
    """`gatehouse(*args, **env)` as above, each command a process of its own forked from one that imported the
    commands once (tests/drills/forked_commands.py): the reports' commands each paid Python's and dlt's start.
    A report forks its notebook lanes from its command's process, one thread there as from the script."""
    work = tmp_path_factory.mktemp("report_commands")
    (work / "outputs").mkdir()
    forked = ForkedCommands(dict(os.environ), work, work / "outputs")

    def gatehouse(*args: str, timeout: float = 300, **env: str) -> subprocess.CompletedProcess:
        done = forked.run(list(args), {**os.environ, **env}, Path.cwd(), timeout=timeout)
        return subprocess.CompletedProcess(done.argv, done.code, done.out, done.err)

    yield gatehouse
    forked.close()


@dataclass(frozen=True)
class DemoReports:
    database: Path
    out: Path
    stdout: str


def demo_load(folder: Path) -> Path:
    database = folder / "demo.duckdb"
    result = gatehouse("run", "--demo", "--duckdb", str(database), "--no-progress")
    assert result.returncode == 0, f"gatehouse run --demo failed:\n{result.stderr[-3000:]}"
    return database


def demo_copy(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """`gatehouse run --demo`'s database, in a folder `name` of the caller's own: the demo is loaded once for every
    worker (`made_once`: its load was four seconds of processor time in each worker that reads it, and in the dbt
    tests), and copied whole, its readers' snapshot and pipeline folder too (the copy keeps their modification
    times, so the snapshot stays current), as whoever reads it may write beside it."""
    made = made_once(tmp_path_factory, "demo", demo_load)
    folder = tmp_path_factory.mktemp(name)
    shutil.copytree(made.parent, folder, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".made"))
    return folder / made.name


@pytest.fixture(scope="session")
def demo_db(tmp_path_factory) -> Path:
    return demo_copy(tmp_path_factory, "demo")


@pytest.fixture(scope="session")
def demo_reports(demo_db, tmp_path_factory, forked_gatehouse) -> DemoReports:
    # executing the notebooks is the slow part: once per session
    out = tmp_path_factory.mktemp("reports")
    # two kernels, each running its lane of notebooks: a report's default on two cores (the suite's is one)
    result = forked_gatehouse("report", "--duckdb", str(demo_db), "--out", str(out), GATEHOUSE__REPORT__KERNELS="2")
    assert result.returncode == 0, f"gatehouse report failed:\n{result.stderr[-3000:]}"
    return DemoReports(demo_db, out, result.stdout)


@pytest.fixture(scope="session")
def hand_built_db(console_db) -> Path:
    return console_db  # the session's one hand-built console (tests/conftest.py)


@pytest.fixture(scope="session")
def headless_browser() -> str:
    """The browser's executable, found as `make test` found or installed it (tools/headless_browser.py)."""
    path = browser_setup.find()
    if path is None:
        # never a skip: a report whose charts were never rendered must not pass unnoticed
        pytest.fail(browser_setup.missing_line(apt_available=shutil.which("apt-get") is not None), pytrace=False)
    return path
