"""The results of a benchmark run: medians, paired ratios, targets and the Markdown table."""

import json

import pytest

from bench.findings import findings
from bench.floor import OrganisationShape, RateLimit
from bench.processes import Measured
from bench.results import BenchReport, JobRun, check_targets, render
from bench.run import peak_by_step, phases_summary
from bench.twin_control import endpoint_of

MB = 1 << 20
SHAPES = {
    size: OrganisationShape(
        size,
        {"gates": gates, "dynamic_configs": gates // 4, "qualifying_events": 20},
        holdouts=40 * factor,
        experiments=100 * factor,
        ingestion_runs=200 * factor,
        settled_runs=110 * factor,
        concluded_experiments=0,
    )
    for size, gates, factor in (("medium", 2_000, 1), ("large", 20_000, 10))
}


def run(size, rep, job, wall, requests=3_203, rows=400_000, peak_mb=300, **extra):
    return JobRun(
        size=size,
        rep=rep,
        job=job,
        ok=True,
        wall_s=wall,
        process_wall_s=wall + 2,
        requests=requests,
        rows=rows,
        peak_rss_bytes=peak_mb * MB,
        steps={"extract": wall - 10, "normalize": 6.0, "load": 2.0},
        **extra,
    )


def report(runs):
    return BenchReport(
        machine={"cpu": "test"},
        latency_ms=50,
        rate_limit=RateLimit(50, 1.0),
        reps={"medium": 1, "large": 2},
        shapes=SHAPES,
        max_page_size=None,
        runs=runs,
    )


RUNS = [
    run("medium", 0, "gatehouse_full", 8.0, requests=343, peak_mb=300, new_versions=2_500, settled_runs_requested=0),
    run("medium", 0, "gatehouse_rerun", 5.0, requests=233, peak_mb=280, new_versions=0, settled_runs_requested=0),
    run("large", 0, "gatehouse_full", 70.0, peak_mb=420, new_versions=24_000, settled_runs_requested=0),
    run("large", 1, "gatehouse_full", 90.0, peak_mb=440, new_versions=24_000, settled_runs_requested=0),
    run("large", 0, "gatehouse_rerun", 40.0, requests=2_000, peak_mb=400, new_versions=0, settled_runs_requested=0),
    run("large", 1, "gatehouse_rerun", 44.0, requests=2_000, peak_mb=400, new_versions=3, settled_runs_requested=0),
    run("large", 0, "rest_api_defaults", 210.0, requests=3_700, peak_mb=6_900),
    run("large", 1, "rest_api_defaults", 150.0, requests=3_700, peak_mb=6_900),
    run("large", 0, "rest_api_best", 140.0, peak_mb=1_000),
    run("large", 1, "rest_api_best", 100.0, peak_mb=1_000),
]


def test_medians_and_ratios_paired_within_a_repetition():
    bench = report(RUNS)
    assert bench.median("large", "gatehouse_full", lambda r: r.wall_s) == 80.0
    # 70/140 and 90/100: the median of the paired ratios, not the ratio of the medians (80/120)
    assert bench.paired_ratio("large", "gatehouse_full", "rest_api_best", lambda r: r.wall_s) == pytest.approx(0.7)


def test_targets_hold_or_miss_with_their_figures():
    checks = {check.target: check for check in check_targets(report(RUNS))}
    floor = checks["large full load within 1.25x the rate-limit floor"]
    # 3 lists + 400 holdouts + 1,000 experiments + 2,000 runs at 50/s = 68.06 s; 80 s is 1.18x that
    assert floor.holds is True and floor.measured.startswith("80.0 s = 1.18x") and "3403 requests" in floor.measured
    assert checks["large full load at least 2x faster than rest_api, defaults"].holds is True
    assert checks["large full load at least 2x faster than rest_api, best settings"].holds is False
    assert checks["large no-change rerun: no new SCD2 version"].holds is False  # median of 0 and 3
    assert checks["large no-change rerun under 15% of the full load's time"].holds is False
    assert checks["large peak memory under 500 MB"].holds is True
    assert checks["large peak under 1.5x the medium peak"].holds is True
    assert checks["normalise and load at least 50,000 rows/s (large full load)"].holds is True


def test_a_failed_job_is_reported_not_counted():
    failed = JobRun("large", 0, "rest_api_best", ok=False, error="PipelineStepFailed: boom")
    runs = [r for r in RUNS if r.job != "rest_api_best"] + [failed]
    text = render(report(runs))
    assert "failed: PipelineStepFailed: boom" in text
    checks = {check.target: check for check in check_targets(report(runs))}
    assert checks["large full load at least 2x faster than rest_api, best settings"].holds is None


def test_render_has_every_section_and_a_row_per_job():
    text = render(report(RUNS), findings(report(RUNS)))
    for heading in (
        "## Results",
        "## gatehouse / rest_api alternative",
        "## The floor",
        "## Where the time goes",
        "## Targets",
        "## What stands in the way",
        "## Machine",
    ):
        assert heading in text
    assert "| large | gatehouse full load | 2 | 80.0 | 1.18 |" in text
    assert "| medium | gatehouse no-change rerun | 1 | 5.0 |" in text
    assert "3,403 req = 68.1 s" in text


def test_reports_round_trip_through_json_for_re_rendering():
    bench = report(RUNS)
    assert BenchReport.from_dict(json.loads(json.dumps(bench.to_dict()))) == bench


def test_findings_explain_misses_with_the_run_figures():
    text = "\n".join(findings(report(RUNS)))
    # the alternative's best (median 120 s) is under 2x the 68.1 s floor: 2x faster than it is out of reach
    assert "2x faster than the alternative's best settings is out of reach" in text
    # 3 lists + 400 holdouts + 1,000 running experiments + 900 unsettled runs
    assert "A no-change rerun cannot be under 15%" in text and "2,303 requests" in text


@pytest.mark.parametrize(
    ("path", "endpoint"),
    [
        ("/console/v1/gates", "gates"),
        ("/console/v1/dynamic_configs", "dynamic_configs"),
        ("/console/v1/experiments/qualifying_events", "qualifying_events"),
        ("/console/v1/holdouts/h1", "holdouts"),
        ("/console/v1/experiments/e1/cumulative_exposures", "experiments"),
        ("/console/v1/ingestion/runs/r-1", "ingestion_runs"),
        ("/console/v1/gates/g1", "gate"),
        ("/_twin/advance", "other"),
    ],
)
def test_twin_requests_are_grouped_by_operation(path, endpoint):
    assert endpoint_of(path) == endpoint


def test_phases_give_list_time_and_the_overall_request_rate():
    phases = {
        "ingestion_runs": {"first_s": 0.5, "last_s": 16.0, "requests": 300},
        "gates": {"first_s": 0.0, "last_s": 4.0, "requests": 20},
        "qualifying_events": {"first_s": 4.5, "last_s": 4.5, "requests": 1},
        "holdouts": {"first_s": 5.0, "last_s": 9.0, "requests": 100},
    }
    lists_s, rate, requests = phases_summary(phases)
    assert lists_s == 4.5 and requests == 421 and rate == pytest.approx(421 / 16.0)


def test_peak_memory_is_attributed_to_the_step_it_happened_in():
    timeline = ((0.0, 50 * MB), (2.0, 180 * MB), (10.0, 300 * MB), (12.0, 500 * MB), (13.0, 200 * MB))
    measured = Measured(0, 14.0, 500 * MB, {}, timeline)
    peaks = peak_by_step(measured, {"extract": 1.5, "normalize": 9.5, "load": 11.5, "run": 1.4})
    assert peaks == {"extract": 180 * MB, "normalize": 300 * MB, "load": 500 * MB}


def test_a_bench_rewriting_its_section_keeps_the_code_refs_section_that_follows_whole(tmp_path):
    from bench.results_md import CODE_REFS_SECTION_END, CODE_REFS_SECTION_START, write_section

    results = tmp_path / "RESULTS.md"
    code_refs = f"{CODE_REFS_SECTION_START}\n## Code references\n\nscanner figures\n{CODE_REFS_SECTION_END}\n"
    results.write_text(f"## Results\n\nload\n\n## Dagster assets\n\nold figures\n\n{code_refs}\n## Three projects\n\nfigures\n")

    write_section("## Dagster assets", "## Dagster assets\n\nnew figures\n", results)

    assert results.read_text() == (
        f"## Results\n\nload\n\n## Dagster assets\n\nnew figures\n\n{code_refs}\n## Three projects\n\nfigures\n"
    )


def test_the_cleanup_section_has_a_row_per_command_with_its_figures():
    from bench.cleanup import render
    from bench.code_refs import Run

    section = render(
        [Run("cleanup --all --dry-run", 29.64, 570_000_000, 0, True, {}), Run("cleanup --all", 72.6, 569_400_000, 0, True, {})],
        files=32_086,
        branches=200,
    )
    assert section.startswith("## gatehouse cleanup on the bench tree\n")
    assert "(32,086 tracked\nfiles)" in section and "Branches made: 200." in section
    assert section.splitlines()[-2:] == ["| cleanup --all --dry-run | 29.6 | 570 |", "| cleanup --all | 72.6 | 569 |"]
