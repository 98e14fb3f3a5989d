"""The steps a run goes through, and a way to break it at each one: shared by the promise drills
(`test_promise_one_console.py`, `test_promise_projects.py`).

A step is broken for one dataset alone (`console` for the single console, `console_<project>` for one of several),
so that the other projects of the same run go on: the console's faults are the twin's own (a 500 at the first request,
a list page that lost its items mid-way, a 500 on the holdouts, the exposures or the ingestion runs), the warehouse's
are injected where gatehouse calls dlt's steps (normalise, load) and after the load (the views, the readers'
snapshot), which several projects share.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

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
LOST = "connection to the warehouse lost"


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
def broken_warehouse(monkeypatch: pytest.MonkeyPatch, step: str, dataset: str) -> Iterator[None]:
    """The warehouse failing at `step` for `dataset`'s pipeline (normalize, load), or for the views and the
    snapshot (shared: whichever dataset asks)."""
    with monkeypatch.context() as patch:
        if step == "normalize":
            normalize = dlt.Pipeline.normalize

            def failing_normalize(self: dlt.Pipeline, *args, **kwargs):
                if self.dataset_name == dataset:
                    raise OSError(28, "No space left on device")
                return normalize(self, *args, **kwargs)

            patch.setattr(dlt.Pipeline, "normalize", failing_normalize)
        elif step == "load":
            load = Destination.load

            def failing_load(self: Destination, pipeline: dlt.Pipeline, *args, **kwargs):
                if pipeline.dataset_name == dataset:
                    raise DatabaseTransientException(ConnectionError(LOST))
                return load(self, pipeline, *args, **kwargs)

            patch.setattr(Destination, "load", failing_load)
        elif step in AFTER_LOAD:
            owner, name = {"views": (Views, "refresh"), "snapshot": (ReadersSnapshot, "publish")}[step]

            def failing(self: object, *args, **kwargs):
                raise DatabaseTransientException(ConnectionError(LOST))

            patch.setattr(owner, name, failing)
        yield


def heal(twin: ConsoleTwin) -> None:
    twin.settings.faults = []
    twin.settings.pagination = default_pagination()
