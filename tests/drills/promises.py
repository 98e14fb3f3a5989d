"""The steps a run goes through, and a way to break it at each one: shared by the promise drills
(`test_promise_one_console.py`, `test_promise_projects.py`) and the schedulers' (tests/schedule/).

A step is broken for one dataset alone (`console` for the single console, `console_<project>` for one of several),
so that the other projects of the same run go on, and several projects of one run can each fail at a step of its
own (`failing_project`): the console's faults are the twin's own (a 500 at the first request, a list page that lost
its items mid-way, a 500 on the holdouts, the exposures or the ingestion runs), the warehouse's are injected where
gatehouse calls dlt's steps (normalise, load) and after the load (the views, the readers' snapshot), which several
projects share.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping

import dlt
import pytest
from dlt.destinations.exceptions import DatabaseTransientException

from gatehouse.console_twin import ConsoleTwin, Fault, PaginationStyle
from gatehouse.console_twin.settings import default_pagination
from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.pipelines.warehouse.snapshot import ReadersSnapshot
from gatehouse.pipelines.warehouse.views import Views

# In the order a run goes through them.
STEPS = ("first_request", "mid_list", "holdouts", "exposures", "ingestion_runs", "normalize", "load", "views", "snapshot")
# Those after the load: several projects share them, and the run they fail has loaded every table.
AFTER_LOAD = ("views", "snapshot")
# The steps one project fails at alone, the others of its run going on.
PROJECT_STEPS = tuple(step for step in STEPS if step not in AFTER_LOAD)
LOST = "connection to the warehouse lost"


def failing_project(step: str) -> str:
    """The project (of tools' organisation) that fails at `step` in a run where several fail, each at its own step."""
    return f"tools_{step}"


def console_faults(step: str) -> tuple[list[Fault], dict[str, PaginationStyle]]:
    """The twin's faults that break a run at `step` (none for the warehouse's steps)."""
    server_error = {
        "first_request": Fault("server_error", rate=1.0),
        "holdouts": Fault("server_error", rate=1.0, path_prefix="/console/v1/holdouts"),
        "exposures": Fault("server_error", rate=1.0, path_suffix="/cumulative_exposures"),
        "ingestion_runs": Fault("server_error", rate=1.0, path_prefix="/console/v1/ingestion"),
    }
    if step in server_error:
        return [server_error[step]], {}
    if step == "mid_list":
        return [], {"gates": PaginationStyle(null_data_page=2)}
    return [], {}


def break_console(twin: ConsoleTwin, step: str) -> None:
    faults, pagination = console_faults(step)
    twin.settings.faults = faults
    if pagination:
        twin.settings.pagination = {**twin.settings.pagination, **pagination}


@contextlib.contextmanager
def broken_warehouse(monkeypatch: pytest.MonkeyPatch, failing: Mapping[str, str]) -> Iterator[None]:
    """The warehouse failing for each dataset of `failing` ({dataset: step}) at its step: normalise or load for that
    dataset's pipeline alone, the others going on; the views or the snapshot for every dataset (shared: whichever
    dataset asks)."""
    steps = set(failing.values())
    with monkeypatch.context() as patch:
        if "normalize" in steps:
            normalize = dlt.Pipeline.normalize

            def failing_normalize(self: dlt.Pipeline, *args, **kwargs):
                if failing.get(self.dataset_name) == "normalize":
                    raise OSError(28, "No space left on device")
                return normalize(self, *args, **kwargs)

            patch.setattr(dlt.Pipeline, "normalize", failing_normalize)
        if "load" in steps:
            load = Destination.load

            def failing_load(self: Destination, pipeline: dlt.Pipeline, *args, **kwargs):
                if failing.get(pipeline.dataset_name) == "load":
                    raise DatabaseTransientException(ConnectionError(LOST))
                return load(self, pipeline, *args, **kwargs)

            patch.setattr(Destination, "load", failing_load)
        for step in steps.intersection(AFTER_LOAD):
            owner, name = {"views": (Views, "refresh"), "snapshot": (ReadersSnapshot, "publish")}[step]

            def failing(self: object, *args, **kwargs):
                raise DatabaseTransientException(ConnectionError(LOST))

            patch.setattr(owner, name, failing)
        yield


def heal(twin: ConsoleTwin) -> None:
    twin.settings.faults = []
    twin.settings.pagination = default_pagination()
