"""A DuckDB file in use: an analyst's notebook or a BI tool holds it while the scheduled run wants to load.

The holder is a real second process with a DuckDB connection to the file (read-only, as a notebook's), so
the lock is DuckDB's own. A run waits for the file for a bounded time: if the holder lets go, the run
loads and equals the fault-free run; if not, it fails with one line naming the holder's PID and program,
keeps what it extracted, and the next run loads it. Two runs started at once on one pipeline never load
at the same time: the second waits for the first.
"""

from __future__ import annotations

import contextlib
import logging
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import duckdb
import pytest

from gatehouse.pipelines.warehouse.destination import Destination
from tests.drills.conftest import (
    Drill,
    copy_database,
    make_twin,
    run_environment,
)
from tests.drills.forked_commands import ForkedCommands
from tests.drills.snapshot import assert_same_tables, snapshot

pytestmark = pytest.mark.slow

HOLD = """\
import sys, time, duckdb
connection = duckdb.connect(sys.argv[1], read_only=True)
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


class Holder:
    """A second process holding the DuckDB file open, as a notebook does, for `seconds`."""

    def __init__(self, path: Path, seconds: float) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", HOLD, str(path), str(seconds)],
                                        stdout=subprocess.PIPE, text=True)  # fmt: skip
        assert self.process.stdout.readline().strip() == "held"

    @property
    def pid(self) -> int:
        return self.process.pid

    def release(self) -> None:
        self.process.kill()
        self.process.wait(timeout=30)


def hold_during_holdouts(drill: Drill, seconds: float) -> list[Holder]:
    """Starts a holder while the run reads the holdouts: after the run opened the file, before it loads any phase
    (the holdouts are in the first, sources.console.LOAD_PHASES)."""
    holders: list[Holder] = []

    def transform(endpoint: str, item: dict) -> dict:
        if endpoint == "holdout" and not holders:
            holders.append(Holder(drill.duckdb_path, seconds))
        return item

    drill.twin.settings.transform_item = transform
    return holders


@contextlib.contextmanager
def released_once_waited_for(holders: list[Holder]) -> Iterator[None]:
    """Lets the holder go as soon as the run says it waits for it: the wait the drill shows, without a fixed hold that
    must outlast the extraction on the slowest machine."""

    class Release(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "is held open by" in record.getMessage():
                for holder in holders:
                    holder.release()

    logger, handler = logging.getLogger("gatehouse.destination"), Release(logging.WARNING)
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)


def test_a_file_held_at_the_start_is_waited_for(drill, reference_path, reference_after_two_runs, caplog):
    copy_database(reference_path, drill.duckdb_path, drill.base_url)
    holder = Holder(drill.duckdb_path, seconds=2)
    started = time.monotonic()
    with caplog.at_level("WARNING", logger="gatehouse.destination"):
        drill.run(lock_timeout_s=120)
    assert time.monotonic() - started >= 1.5, "the run waited for the holder"
    assert any(f"(PID {holder.pid})" in record.getMessage() and "waiting up to 120 s" in record.getMessage()
               for record in caplog.records), caplog.text  # fmt: skip
    holder.process.wait(timeout=30)
    assert_same_tables(drill.snapshot(), reference_after_two_runs)


def test_a_file_held_past_the_timeout_fails_with_the_holder_and_loses_nothing(drill, reference_path, reference):
    copy_database(reference_path, drill.duckdb_path, drill.base_url)
    before = snapshot(drill.duckdb_path)
    holder = Holder(drill.duckdb_path, seconds=120)
    try:
        message = drill.run_failing(lock_timeout_s=1)
    finally:
        holder.release()
    assert message.startswith(f"{drill.duckdb_path} is held open by "), message
    assert f"(PID {holder.pid})" in message and "waited 1 s" in message and "--lock-timeout" in message, message
    assert "extracted" not in message, "nothing was extracted, so nothing is said to be kept"
    assert drill.twin.requests == [], "nothing is extracted while the file is held at the start"
    assert_same_tables(snapshot(drill.duckdb_path), before)


def test_a_file_taken_mid_run_past_the_timeout_is_loaded_by_the_next_run_once_it_is_free(drill, reference, caplog):
    holders = hold_during_holdouts(drill, seconds=120)
    try:
        message = drill.run_failing(lock_timeout_s=1)
    finally:
        for holder in holders:
            holder.release()
    assert holders and f"(PID {holders[0].pid})" in message and "loads on the next run" in message, message
    pending = Destination(duckdb_path=drill.duckdb_path).pipeline()
    assert pending.has_pending_data, "what was extracted is kept for the next run"

    # The next run: the file taken again while it extracts, let go once the run says it waits for it.
    holders = hold_during_holdouts(drill, seconds=120)
    try:
        with caplog.at_level("WARNING", logger="gatehouse.destination"), released_once_waited_for(holders):
            drill.run(lock_timeout_s=120)
    finally:
        for holder in holders:
            holder.release()
    assert holders, "the file was held while the next run extracted"
    assert any(f"(PID {holders[0].pid})" in r.getMessage() and "held open by" in r.getMessage() for r in caplog.records), (
        caplog.text
    )
    # The held run gave up loading its first phase: the next run waited for the file, loaded what the held run
    # kept, then its own run. The held run never reached its last phase, so it is not in extraction_runs: the
    # database is one fault-free run's, nothing twice.
    assert_same_tables(drill.snapshot(), reference)


def test_two_runs_at_once_load_one_after_the_other(tmp_path, reference_after_two_runs):
    twin = make_twin(latency=0.02)
    (tmp_path / "outputs").mkdir()
    with twin.serve() as base_url:
        env = run_environment(twin, base_url)
        # two processes, forked at once from one that has imported the commands (tests/drills/forked_commands.py)
        commands = ForkedCommands(env, tmp_path, tmp_path / "outputs")
        try:
            with ThreadPoolExecutor(max_workers=2) as pool:
                argv = ["run", "--no-progress", "--duckdb", "gatehouse.duckdb"]
                results = list(pool.map(lambda _: commands.run(argv, env, tmp_path), range(2)))
        finally:
            commands.close()
    assert [result.code for result in results] == [0, 0], results
    waited = [result.err for result in results if "another gatehouse run (PID" in result.err]
    assert len(waited) == 1, "exactly one of the two waited for the other"
    assert_same_tables(snapshot(tmp_path / "gatehouse.duckdb"), reference_after_two_runs)


def test_a_second_run_gives_up_with_one_line_when_the_first_holds_on(drill, reference_path):
    copy_database(reference_path, drill.duckdb_path, drill.base_url)
    first = Destination(duckdb_path=drill.duckdb_path)
    with first.lock.exclusive(timeout_s=1):
        message = drill.run_failing(lock_timeout_s=1)
    assert message.startswith("another gatehouse run (PID ") and "--lock-timeout" in message, message
    assert drill.twin.requests == []


def test_the_lock_timeout_setting_and_a_bad_value(drill, monkeypatch):
    monkeypatch.setenv("GATEHOUSE__LOCK_TIMEOUT", "soon")
    message = drill.run_failing()
    assert message == "gatehouse.lock_timeout must be a number of seconds, not 'soon'"
    monkeypatch.setenv("GATEHOUSE__LOCK_TIMEOUT", "0")
    drill.duckdb_path.parent.mkdir(parents=True, exist_ok=True)
    duckdb.connect(str(drill.duckdb_path)).close()
    holder = Holder(drill.duckdb_path, seconds=120)
    try:
        assert "waited 0 s" in drill.run_failing()
    finally:
        holder.release()


@pytest.mark.parametrize("value", ["-5", "nan"])
def test_a_negative_or_nan_lock_timeout_is_refused(drill, monkeypatch, value):
    # nan made the deadline unreachable: a run waited for ever on a held file instead of giving up
    monkeypatch.setenv("GATEHOUSE__LOCK_TIMEOUT", value)
    assert drill.run_failing() == f"gatehouse.lock_timeout must be 0 or more seconds, not {value!r}"
    monkeypatch.delenv("GATEHOUSE__LOCK_TIMEOUT")
    assert drill.run_failing(lock_timeout_s=float(value)) == f"--lock-timeout {value}: give 0 or more seconds"
    assert drill.twin.requests == []
