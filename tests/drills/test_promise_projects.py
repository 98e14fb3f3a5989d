"""The promises about failure, for three projects where one fails, broken at every step a run goes through
(tests/drills/promises.py), through the run a scheduler makes (`run_scheduled`, which Dagster's asset and the Airflow
DAG's task call): a failing project never costs the others their load, on its first run or a later one; what the
summary says was loaded is in the database; the next run of the healthy ones is a no-change rerun asking no more
than a single project's. The drill for one step is `three_projects_one_failing_at`; a third of the steps is one
xdist group (`STEP_PARTS`), so that workers share them.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from gatehouse.console_twin import ConsoleTwin
from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.run.scheduled import run_scheduled
from gatehouse.pipelines.warehouse.destination import Destination
from tests.drills.conftest import source_args
from tests.drills.projects import COMPARED_VIEWS, HEALTHY, SingleLoad, healthy_single_loads, organisation, view_rows
from tests.drills.promises import AFTER_LOAD, STEPS, break_console, broken_warehouse, heal
from tests.drills.snapshot import assert_same_tables, repeated, snapshot

pytestmark = pytest.mark.slow

# The steps, a third to each xdist group (workers share them); together every step.
STEP_PARTS = {
    "requests": ["first_request", "mid_list", "holdouts"],
    "reads": ["exposures", "ingestion_runs", "normalize"],
    "warehouse": ["load", "views", "snapshot"],
}
assert [step for part in STEP_PARTS.values() for step in part] == list(STEPS)

PROJECTS = ["web", "mobile", "tools"]


@pytest.fixture(scope="module")
def single_loads(tmp_path_factory: pytest.TempPathFactory) -> dict[str, SingleLoad]:
    return healthy_single_loads(tmp_path_factory)


@contextlib.contextmanager
def healthy_loaded_first(monkeypatch: pytest.MonkeyPatch, failing: ConsoleTwin) -> Iterator[None]:
    """The failing project's twin serves its list pages only once the healthy projects have each loaded a phase (or
    after 30 s)."""
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
        failing.settings.after_page = lambda page: both.wait(30)
        try:
            yield
        finally:
            failing.settings.after_page = None


def three_projects_one_failing_at(
    step: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, single_loads: dict[str, SingleLoad]
) -> None:
    database = tmp_path / "gatehouse.duckdb"
    twins = {name: organisation(name) for name in PROJECTS}
    with twins["web"].serve() as web, twins["mobile"].serve() as mobile, twins["tools"].serve() as tools:
        urls = {"web": web, "mobile": mobile, "tools": tools}
        args = {name: {**source_args(twins[name], urls[name]), "max_attempts": 2} for name in PROJECTS}
        args["tools"]["page_size"] = 10  # its lists in several pages: one can fail mid-way

        def run() -> dict:
            outcomes = run_scheduled(Destination(duckdb_path=database), projects=PROJECTS, projects_args=args)
            return {outcome.project: outcome for outcome in outcomes}

        # The first run: tools fails at the step, the others load exactly what they load alone. Its lists are served
        # only once both have loaded a phase, so that it fails late, after their loads, as a console that answers
        # slowly makes it fail (a failure then removed the file they had loaded into).
        break_console(twins["tools"], step)
        with healthy_loaded_first(monkeypatch, twins["tools"]), broken_warehouse(monkeypatch, step, "console_tools"):
            if step in AFTER_LOAD:
                # shared by the projects: the run fails after every project loaded, and says the load is kept
                with pytest.raises(GatehouseError, match="after the load, which is kept"):
                    run()
                outcomes = None
            else:
                outcomes = run()
                assert outcomes["tools"].error and outcomes["tools"].summary is None
        views = view_rows(database) if step not in AFTER_LOAD else {}
        for name in HEALTHY:
            loaded = snapshot(database, f"console_{name}")
            assert_same_tables(loaded, single_loads[name].tables, f"project {name}'s dataset")
            if step not in AFTER_LOAD:  # the views, applied once after every project, show each as it loads alone
                for view in COMPARED_VIEWS:
                    assert views.get((view, name), []) == single_loads[name].views.get(view, []), (name, view)
            if outcomes is not None:
                summary = outcomes[name].summary
                assert summary is not None, outcomes[name].error
                # what the summary says was loaded is in the database (a first load: every row is this run's)
                for table, rows in summary.rows_loaded.items():
                    assert rows == len(loaded[f"console.{table}"].rows), (name, table)

        # The next run, healed: the healthy ones ask what a single project's no-change rerun asks.
        heal(twins["tools"])
        for twin in twins.values():
            twin.reset_requests()
        outcomes = run()
        assert all(outcome.summary for outcome in outcomes.values()), {n: o.error for n, o in outcomes.items()}
        for name in HEALTHY:
            assert outcomes[name].summary.requests == single_loads[name].rerun_requests == len(twins[name].requests), name
            assert outcomes[name].summary.new_versions == {"gates": 0, "dynamic_configs": 0}, name
        tools_loaded = snapshot(database, "console_tools")

        # A later run where tools fails at the step again: nothing anyone loaded is undone.
        break_console(twins["tools"], step)
        with broken_warehouse(monkeypatch, step, "console_tools"):
            if step in AFTER_LOAD:
                with pytest.raises(GatehouseError, match="after the load, which is kept"):
                    run()
            else:
                assert run()["tools"].error
        for name in HEALTHY:  # three runs, each recorded
            assert_same_tables(
                snapshot(database, f"console_{name}"),
                repeated(single_loads[name].tables, "console.extraction_runs", 3),
                f"project {name}'s dataset after tools failed again",
            )
        if step not in AFTER_LOAD:
            assert_same_tables(snapshot(database, "console_tools"), tools_loaded, "tools' dataset after it failed again")


@pytest.mark.parametrize(
    "step",
    [
        pytest.param(step, marks=pytest.mark.xdist_group(f"promise_projects_{part}"))
        for part, steps in STEP_PARTS.items()
        for step in steps
    ],
)
def test_three_projects_one_failing_at_each_step(tmp_path, monkeypatch, quick_backoff, single_loads, step):
    three_projects_one_failing_at(step, tmp_path, monkeypatch, single_loads)
