"""The promises about failure, for several projects where some fail, broken at every step a run goes through
(tests/drills/promises.py), through the run a scheduler makes (`run_scheduled`, which Dagster's asset and the Airflow
DAG's task call): a failing project never costs the others their load, on its first run or a later one; what the
summary says was loaded is in the database; the next run of the healthy ones is a no-change rerun asking no more
than a single project's. The drill is `projects_failing_at`: every step before the views at once, one failing
project of tools' organisation at each (`failing_project`), beside web and mobile; the views and the snapshot, which
fail the run of every project, each in a run of its own.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from gatehouse.console_twin import ConsoleTwin
from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.run.scheduled import run_scheduled
from gatehouse.pipelines.warehouse.destination import Destination
from tests.drills.conftest import source_args
from tests.drills.projects import COMPARED_VIEWS, HEALTHY, SingleLoad, healthy_single_loads, organisation, view_rows
from tests.drills.promises import AFTER_LOAD, PROJECT_STEPS, STEPS, break_console, broken_warehouse, failing_project, heal
from tests.drills.snapshot import assert_same_tables, repeated, snapshot

pytestmark = pytest.mark.slow

assert [*PROJECT_STEPS, *AFTER_LOAD] == list(STEPS)


@pytest.fixture(scope="module")
def single_loads(tmp_path_factory: pytest.TempPathFactory) -> dict[str, SingleLoad]:
    return healthy_single_loads(tmp_path_factory)


@contextlib.contextmanager
def healthy_loaded_first(monkeypatch: pytest.MonkeyPatch, failing: Sequence[ConsoleTwin]) -> Iterator[None]:
    """The failing projects' twins serve their list pages only once the healthy projects have each loaded a phase
    (or after 30 s): the projects of a run go side by side, so without it a failing one could fail before the
    healthy ones loaded anything."""
    loaded: set[str] = set()
    both = threading.Event()
    load = Destination.load

    def recorded(self: Destination, pipeline, *args, **kwargs):
        done = load(self, pipeline, *args, **kwargs)
        loaded.add(pipeline.dataset_name)
        if {f"console_{name}" for name in HEALTHY} <= loaded:
            both.set()
        return done

    with monkeypatch.context() as patch:
        patch.setattr(Destination, "load", recorded)
        for twin in failing:
            twin.settings.after_page = lambda page: both.wait(30)
        try:
            yield
        finally:
            for twin in failing:
                twin.settings.after_page = None


def projects_failing_at(
    steps: Sequence[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, single_loads: dict[str, SingleLoad]
) -> None:
    """web and mobile healthy beside one project of tools' organisation failing at each of `steps`, each at its own
    (`failing_project`): every step before the views, or one after the load, which fails every project's run."""
    failing = {failing_project(step): step for step in steps}
    shared = [step for step in steps if step in AFTER_LOAD]
    assert not shared or len(steps) == 1, "a step after the load fails every project's run: one such step a run"
    # what a healthy project's assertion names: the steps that failed beside it
    beside = "beside " + ", ".join(f"{project} failing at {step}" for project, step in failing.items())
    database = tmp_path / "gatehouse.duckdb"
    twins = {name: organisation(name) for name in HEALTHY} | {project: organisation("tools") for project in failing}
    with contextlib.ExitStack() as serving:
        urls = {name: serving.enter_context(twin.serve()) for name, twin in twins.items()}
        args = {name: {**source_args(twin, urls[name]), "max_attempts": 2} for name, twin in twins.items()}
        for project in failing:
            args[project]["page_size"] = 10  # its lists in several pages: one can fail mid-way

        def run() -> dict:
            outcomes = run_scheduled(Destination(duckdb_path=database), projects=list(twins), projects_args=args)
            return {outcome.project: outcome for outcome in outcomes}

        def break_failing() -> contextlib.AbstractContextManager[None]:
            for project, step in failing.items():
                break_console(twins[project], step)
            return broken_warehouse(monkeypatch, {f"console_{project}": step for project, step in failing.items()})

        # The first run: each failing project fails at its step, the others load exactly what they load alone. The
        # failing ones' lists are served only once both healthy ones have loaded a phase, so that they fail late,
        # after their loads, as a console that answers slowly makes it fail (a failure then removed the file they
        # had loaded into).
        with healthy_loaded_first(monkeypatch, [twins[project] for project in failing]), break_failing():
            if shared:
                # shared by the projects: the run fails after every project loaded, and says the load is kept
                with pytest.raises(GatehouseError, match="after the load, which is kept"):
                    run()
                outcomes = None
            else:
                outcomes = run()
                for project, step in failing.items():
                    outcome = outcomes[project]
                    assert outcome.error and outcome.summary is None, f"{project}, failing at {step}: {outcome}"
        views = view_rows(database) if not shared else {}
        for name in HEALTHY:
            loaded = snapshot(database, f"console_{name}")
            assert_same_tables(loaded, single_loads[name].tables, f"project {name}'s dataset {beside}")
            if not shared:  # the views, applied once after every project, show each as it loads alone
                for view in COMPARED_VIEWS:
                    assert views.get((view, name), []) == single_loads[name].views.get(view, []), (name, view, beside)
            if outcomes is not None:
                summary = outcomes[name].summary
                assert summary is not None, (outcomes[name].error, beside)
                # what the summary says was loaded is in the database (a first load: every row is this run's)
                for table, rows in summary.rows_loaded.items():
                    assert rows == len(loaded[f"console.{table}"].rows), (name, table, beside)

        # The next run, healed: the healthy ones ask what a single project's no-change rerun asks.
        for project in failing:
            heal(twins[project])
        for twin in twins.values():
            twin.reset_requests()
        outcomes = run()
        assert all(outcome.summary for outcome in outcomes.values()), {n: o.error for n, o in outcomes.items()}
        for name in HEALTHY:
            summary = outcomes[name].summary
            assert summary.requests == single_loads[name].rerun_requests == len(twins[name].requests), (name, beside)
            assert summary.new_versions == {"gates": 0, "dynamic_configs": 0}, (name, beside)
        failing_loaded = {project: snapshot(database, f"console_{project}") for project in failing}

        # A later run where each fails at its step again: nothing anyone loaded is undone.
        with break_failing():
            if shared:
                with pytest.raises(GatehouseError, match="after the load, which is kept"):
                    run()
            else:
                outcomes = run()
                for project, step in failing.items():
                    assert outcomes[project].error, f"{project}, failing at {step} again: {outcomes[project]}"
        for name in HEALTHY:  # three runs, each recorded
            assert_same_tables(
                snapshot(database, f"console_{name}"),
                repeated(single_loads[name].tables, "console.extraction_runs", 3),
                f"project {name}'s dataset after the failing projects failed again {beside}",
            )
        if not shared:
            for project, step in failing.items():
                assert_same_tables(
                    snapshot(database, f"console_{project}"),
                    failing_loaded[project],
                    f"{project}'s dataset after it failed at {step} again",
                )


@pytest.mark.xdist_group("promise_projects_before_views")
def test_projects_failing_each_at_its_own_step_before_the_views(tmp_path, monkeypatch, quick_backoff, single_loads):
    projects_failing_at(PROJECT_STEPS, tmp_path, monkeypatch, single_loads)


@pytest.mark.parametrize("step", AFTER_LOAD)
@pytest.mark.xdist_group("promise_projects_after_load")
def test_three_projects_failing_after_the_load(tmp_path, monkeypatch, quick_backoff, single_loads, step):
    projects_failing_at([step], tmp_path, monkeypatch, single_loads)
