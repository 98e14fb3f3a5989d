"""Load: 20 scheduled extractions back to back, 10% of requests failing, the console moving on meanwhile.

The console's clock moves a day after every fifth run (gates change, are created and deleted, experiments
gain a day, ingestion runs progress). The reference loads a fault-free twin of the same organisation once
at each of those four states; the faulty database must end with exactly its rows, and with five
extraction_runs rows for each of its one. Every run must keep within the rate limit it was configured
with, as the twin counts requests per window.
"""

from __future__ import annotations

import pytest

from gatehouse.console_twin import Fault
from tests.drills.conftest import copy_database, load, make_twin
from tests.drills.snapshot import assert_same_tables, repeated, snapshot

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("quick_backoff")]

RUNS = 20
RUNS_PER_DAY = 5
# Fast enough to keep the drill short, slow enough that every run is paced by the client's limiter.
RATE_LIMIT = (20, 1.0)
# The client counts a request when it starts it, the twin when it arrives; a thread may be descheduled
# in between, so the twin's window is taken a little shorter than the client's.
ARRIVAL_JITTER_S = 0.1
FAULT_KINDS = ("server_error", "bad_gateway", "unavailable", "drop", "malformed", "truncated")


def test_twenty_runs_with_faults_end_exact_and_within_the_rate_limit(tmp_path, reference_path):
    reference_twin = make_twin()
    references = tmp_path / "reference.duckdb"
    with reference_twin.serve() as base_url:
        copy_database(reference_path, references, base_url)  # the first state's load: the session's reference
        for _ in range(RUNS // RUNS_PER_DAY - 1):
            reference_twin.advance(days=1)
            load(reference_twin, base_url, references)
    expected = repeated(snapshot(references), "console.extraction_runs", RUNS_PER_DAY)

    twin = make_twin()
    twin.settings.faults = [Fault(kind, rate=0.1 / len(FAULT_KINDS)) for kind in FAULT_KINDS]
    path = tmp_path / "gatehouse.duckdb"
    faults_met, busiest = 0, []
    with twin.serve() as base_url:
        for run in range(RUNS):
            if run and run % RUNS_PER_DAY == 0:
                twin.advance(days=1)
            twin.settings.fault_seed = run
            twin.reset_requests()
            summary = load(
                twin, base_url, path,
                page_size=10, rate_limit_requests=RATE_LIMIT[0], rate_limit_window=RATE_LIMIT[1],
            )  # fmt: skip
            faults_met += sum(1 for r in twin.requests if r.fault)
            assert summary.retries == sum(1 for r in twin.requests if r.fault), f"run {run + 1}"
            busiest.append(twin.max_requests_in_window(RATE_LIMIT[1] - ARRIVAL_JITTER_S))

    assert faults_met > RUNS, f"the drill should meet faults in most runs (met {faults_met})"
    print(f"faults met: {faults_met}; requests in the busiest window, per run: {busiest}")
    assert max(busiest) <= RATE_LIMIT[0], f"requests in the busiest window, per run: {busiest}"
    assert min(busiest) >= RATE_LIMIT[0] * 3 // 4, f"the limiter should pace every run: {busiest}"
    assert_same_tables(snapshot(path), expected)
