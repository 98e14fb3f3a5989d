"""`gatehouse run` killed with SIGKILL (an OOM killer, a preempted node) during extraction and during loading.

The run is a real `gatehouse run` process, configured through the environment as a scheduler would,
against a twin served by this test over loopback: the script itself where the test kills it from outside, else a
fork of one process that has imported the commands (tests/drills/forked_commands.py), which spares each run
Python's start and imports. The next clean run must complete what the killed one
left (dlt keeps a normalised load package until it is loaded) and end identical to a fault-free run.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.drills.conftest import REPO, clean_environment, gatehouse_command, make_twin, run_environment
from tests.drills.forked_commands import ForkedCommands
from tests.drills.snapshot import assert_same_tables, repeated, snapshot

pytestmark = pytest.mark.slow

KILL_DURING_LOAD = "tests.drills.kill_during_load"
TIMEOUT_S = 180
RUN = ["run", "--no-progress", "--duckdb", "gatehouse.duckdb"]


@pytest.fixture(scope="module")
def commands(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ForkedCommands]:
    """The drills' commands but the one killed from outside, from one server that can import KILL_DURING_LOAD."""
    folder = tmp_path_factory.mktemp("forked")
    forked = ForkedCommands(clean_environment(PYTHONPATH=str(REPO)), folder, folder)
    yield forked
    forked.close()


def gatehouse_run(command: list[str], env: dict[str, str], cwd: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [*command, *RUN],
        env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def finish(process: subprocess.Popen) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=TIMEOUT_S)
    return process.returncode, out, err


def test_killed_during_extraction_the_next_run_loads_everything(tmp_path, reference, commands):
    twin = make_twin()
    killed: list[int] = []

    def kill_on_third_holdout_request(endpoint: str, item: dict) -> dict:
        # Called while the twin builds an answer, so the client is still waiting for it: the run dies in its
        # first load phase's extraction, with the lists read and the holdouts half way, nothing loaded yet.
        if endpoint == "holdout" and not killed:
            asked = [r for r in twin.requests if r.path.startswith("/console/v1/holdouts/")]
            if len(asked) >= 3:
                killed.append(process.pid)
                os.kill(process.pid, signal.SIGKILL)
        return item

    twin.settings.transform_item = kill_on_third_holdout_request
    with twin.serve() as base_url:
        env = run_environment(twin, base_url)
        process = gatehouse_run(gatehouse_command(), env, tmp_path)
        code, out, err = finish(process)
        assert killed and code == -signal.SIGKILL, (code, out, err)
        database = tmp_path / "gatehouse.duckdb"
        if database.exists():
            loaded = {name: len(table.rows) for name, table in snapshot(database).items() if table.rows}
            assert not loaded, f"the killed extraction loaded {loaded}"

        twin.settings.transform_item = None
        again = commands.run(RUN, env, tmp_path, TIMEOUT_S)

    assert again.code == 0, again.err
    assert_same_tables(snapshot(tmp_path / "gatehouse.duckdb"), reference)


def killed_during_load_then_run_again(commands: ForkedCommands, tmp_path: Path, job: str) -> str:
    """A run killed right after its first completed load job whose file name starts with `job`, then a clean run:
    the clean run's stderr (it succeeded)."""
    twin = make_twin()
    with twin.serve() as base_url:
        env = run_environment(twin, base_url)
        killed = commands.run(RUN, {**env, "KILL_AFTER_JOB": job}, tmp_path, TIMEOUT_S, first=KILL_DURING_LOAD)
        assert killed.code == -signal.SIGKILL, (killed.code, killed.out, killed.err)
        assert f"kill_during_load: SIGKILL after completing {job}" in killed.err

        again = commands.run(RUN, env, tmp_path, TIMEOUT_S)
    assert again.code == 0, again.err
    return again.err


def test_killed_during_loading_the_next_run_completes_the_load(tmp_path, reference, commands):
    # killed in the last load phase, the one that records the run (sources.console.LOAD_PHASES)
    err = killed_during_load_then_run_again(commands, tmp_path, "extraction_runs.")
    assert "completing it first" in err
    # The next run completes the interrupted load, then extracts as usual: two extractions reached
    # the database, so extraction_runs holds two rows; every other table is the fault-free one.
    assert_same_tables(snapshot(tmp_path / "gatehouse.duckdb"), repeated(reference, "console.extraction_runs", 2))


def test_killed_during_its_first_phase_load_the_next_run_completes_that_load_and_loads_the_rest(tmp_path, reference, commands):
    err = killed_during_load_then_run_again(commands, tmp_path, "gates.")
    assert "completing it first" in err
    # The killed run never reached its last phase: it is not recorded in extraction_runs, and what it loaded
    # in part is completed, so the database is the fault-free run's, row for row.
    assert_same_tables(snapshot(tmp_path / "gatehouse.duckdb"), reference)
