"""The promises about failure, for one console, broken at every step a run goes through (tests/drills/promises.py):
a run that fails part way keeps each table it loaded whole and says so in one line; the next run loads the rest;
a first run that fails before it loaded anything leaves no database that reads as all clear.
"""

from __future__ import annotations

import duckdb
import pytest

from tests.drills.conftest import copy_database
from tests.drills.promises import AFTER_LOAD, STEPS, break_console, broken_warehouse, heal
from tests.drills.snapshot import Snapshot, assert_same_tables, repeated, snapshot

pytestmark = pytest.mark.slow

FIRST_PHASE = ("ingestion_runs", "qualifying_events", "gates", "dynamic_configs", "holdouts")


def console_tables(snap: Snapshot) -> Snapshot:
    return {table: rows for table, rows in snap.items() if table.startswith("console.")}


def analysis_views(path) -> int:
    with duckdb.connect(str(path), read_only=True) as connection:
        return connection.execute(
            "select count(*) from information_schema.tables where table_schema = 'analytics' and table_type = 'VIEW'"
        ).fetchone()[0]


@pytest.fixture(scope="module")
def reference_views(reference_path) -> int:
    return analysis_views(reference_path)


@pytest.mark.parametrize("step", STEPS)
def test_a_first_run_failing_at_each_step(drill, monkeypatch, quick_backoff, reference, reference_views, step):
    break_console(drill.twin, step)
    with broken_warehouse(monkeypatch, {"console": step}):
        message = drill.run_failing(max_attempts=2)

    if step in AFTER_LOAD:
        # loaded whole and recorded: the failure says the load is kept
        assert "after the load, which is kept" in message, message
        assert_same_tables(snapshot(drill.duckdb_path, "console"), console_tables(reference), "the load kept")
    elif step == "exposures":
        # the first phase's tables loaded whole, said so; the run not recorded
        assert message.endswith(
            "(loaded before the failure: ingestion_runs, qualifying_events, gates, dynamic_configs,"
            " holdouts; the run is not recorded in extraction_runs)"
        ), message
        loaded = snapshot(drill.duckdb_path, "console")
        assert_same_tables(
            loaded,
            {
                table: rows
                for table, rows in console_tables(reference).items()
                if table.split(".")[1].split("__")[0] in FIRST_PHASE
            },
        )
    elif step in ("normalize", "load"):
        # what was extracted waits for the next run, which completes it; no table holds a row yet
        assert not drill.duckdb_path.exists() or not snapshot(drill.duckdb_path, "console"), message
    else:
        # nothing loaded: no database is left behind to read as all clear
        assert not drill.duckdb_path.exists(), message
    heal(drill.twin)
    drill.run()
    assert_same_tables(drill.snapshot(), repeated(reference, "console.extraction_runs", 2 if step in AFTER_LOAD else 1))
    assert analysis_views(drill.duckdb_path) == reference_views


@pytest.mark.parametrize("step", STEPS)
def test_a_later_run_failing_at_each_step(drill, monkeypatch, quick_backoff, reference, reference_path, reference_views, step):
    copy_database(reference_path, drill.duckdb_path, drill.base_url)
    break_console(drill.twin, step)
    with broken_warehouse(monkeypatch, {"console": step}):
        drill.run_failing(max_attempts=2)

    runs = 2 if step in AFTER_LOAD else 1
    assert_same_tables(drill.snapshot(), repeated(reference, "console.extraction_runs", runs), "after the failed run")
    heal(drill.twin)
    summary = drill.run()
    assert summary.new_versions == {"gates": 0, "dynamic_configs": 0}
    assert_same_tables(drill.snapshot(), repeated(reference, "console.extraction_runs", runs + 1))
    assert analysis_views(drill.duckdb_path) == reference_views
