"""The per-id reads a run can name before any list start before dlt extracts (steps.run_extraction,
counts.start_reading), so the rate budget is spent while the run syncs with its destination and dlt sets up:
a first run reads its configured experiments' series, a rerun also the holdouts its last run's state holds."""

from __future__ import annotations

import time

import dlt

HOLDOUT_READ = "/console/v1/holdouts/"
SERIES_READ = "/cumulative_exposures"
# How long the first extraction waits for reads that should have started before it: only a failing test waits it out.
WAIT_S = 5.0


def test_a_run_reads_what_it_can_name_before_dlt_extracts_and_a_rerun_the_holdouts_its_state_holds(drill, monkeypatch):
    before_extract: list[tuple[list[str], list[str]]] = []  # per run: (holdout reads, series reads)
    extract = dlt.Pipeline.extract

    def reads() -> tuple[list[str], list[str]]:
        paths = [r.path for r in drill.twin.requests]
        return [p for p in paths if p.startswith(HOLDOUT_READ)], [p for p in paths if p.endswith(SERIES_READ)]

    def first_extract_looks_for_reads(pipeline, *args, **kwargs):
        if len(before_extract) < runs:
            deadline = time.monotonic() + WAIT_S
            while not all(reads()[2 - runs :]) and time.monotonic() < deadline:  # series; then holdouts too
                time.sleep(0.01)
            before_extract.append(reads())
        return extract(pipeline, *args, **kwargs)

    monkeypatch.setattr(dlt.Pipeline, "extract", first_extract_looks_for_reads)
    runs = 1
    first = drill.run()
    holdouts, series = before_extract[0]
    assert holdouts == [], "a first run names no holdout before the lists (none configured)"
    assert series and {p.split("/")[-2] for p in series} <= set(drill.twin.experiment_ids)

    drill.twin.reset_requests()
    runs = 2
    rerun = drill.run()
    holdouts, series = before_extract[1]
    assert holdouts and series, "a rerun reads the holdouts and series its state holds before dlt extracts"
    # what was read first is not read again, and the rerun loads as it did before: nothing changed
    assert len(set(reads()[0])) == len(reads()[0]) == first.rows_loaded["holdouts"]
    assert "holdouts" not in rerun.rows_loaded and rerun.unchanged["holdouts"] == first.rows_loaded["holdouts"]
