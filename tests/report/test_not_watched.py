"""What gatehouse does not watch is said, never shown as an all-clear: a console loaded with no ingestion run named
(the console cannot list them) and with no experiment named beyond what its holdouts name."""

from __future__ import annotations

import re

from tests.drills.conftest import load, make_twin

NOT_FOLLOWED = (
    "ingestion sources: no ingestion run is followed, so none is watched; name the runs to follow in"
    " sources.console.ingestion_run_ids (SOURCES__CONSOLE__INGESTION_RUN_IDS)"
)


def test_a_console_loaded_without_ingestion_run_ids_is_reported_as_not_watched(forked_gatehouse, tmp_path):
    twin = make_twin()
    # an experiment a holdout names that the console no longer has: its exposures answer 404
    gone = next(e for h in twin.organisation.holdouts.values() for e in h["experimentIDs"])
    del twin.organisation.experiments[gone]
    database = tmp_path / "gatehouse.duckdb"
    with twin.serve() as base_url:
        summary = load(twin, base_url, database, ingestion_run_ids=[], experiment_ids=[])
    [followed] = [line for line in summary.lines() if line.startswith("  followed: ")]
    found = re.fullmatch(
        r"  followed: experiments (\d+): 0 in experiment_ids, (\d+) more named by holdouts;"
        r" ingestion runs none: the console cannot list them; name them in ingestion_run_ids",
        followed,
    )
    assert found and found[1] == found[2] and int(found[1]) > 0, followed  # all of them named by holdouts

    report = forked_gatehouse("report", "--duckdb", str(database), "--out", str(tmp_path / "reports"))
    assert report.returncode == 0, report.stderr[-2000:]
    assert NOT_FOLLOWED in report.stdout.splitlines()
    assert "with failed runs" not in report.stdout
    page = (tmp_path / "reports" / "ingestion_health.html").read_text()
    assert "No ingestion run is followed" in page and "SOURCES__CONSOLE__INGESTION_RUN_IDS" in page
    assert "No source has a failed run" not in page and "sources with failed runs" not in page
    # experiments: who names those followed, which the console names without exposures, and what adds the others
    lines = report.stdout.splitlines()
    assert f"  named by a holdout, no exposures loaded: {gone}" in lines
    assert "  an experiment no holdout names is followed only when its id is in sources.console.experiment_ids" in lines
    page = (tmp_path / "reports" / "exposure_growth.html").read_text()
    assert "<strong>an experiment neither names is not followed</strong>" in page
    assert "<strong>1 named by a holdout have no exposures loaded</strong>" in page
    assert f'<td class="text">{gone}</td>' in page


def test_a_database_whose_extractions_recorded_no_time_is_reported_without_ages(forked_gatehouse, demo_db, tmp_path):
    # `analytics.as_of` has no row when no extraction recorded a time (the console sent no Date header and the run
    # kept no end): the views that count ages are empty, and every report is still made, saying so
    import duckdb

    database = tmp_path / "demo.duckdb"
    database.write_bytes(demo_db.read_bytes())
    with duckdb.connect(str(database)) as connection:
        for (schema,) in connection.execute(
            "select distinct table_schema from information_schema.tables where table_name = 'extraction_runs'"
        ).fetchall():
            connection.execute(f'update "{schema}".extraction_runs set service_time = null')  # no finished_at column: never sent
    report = forked_gatehouse("report", "--duckdb", str(database), "--out", str(tmp_path / "reports"))
    assert report.returncode == 0, report.stderr[-2000:]
    assert sorted(path.name for path in (tmp_path / "reports").iterdir()) == [
        "exposure_growth.html",
        "ingestion_health.html",
        "stale_gates.csv",
        "stale_gates.html",
    ]
    page = (tmp_path / "reports" / "ingestion_health.html").read_text()
    assert "no extraction recorded yet" in page and "Traceback" not in page
