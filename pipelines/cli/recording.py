"""Rows of gatehouse's own tables (cleanup branches, snoozes) into the warehouse: one way for every command."""

from __future__ import annotations

from typing import Any

from dlt.pipeline.exceptions import PipelineStepFailed

from gatehouse.pipelines.errors import GatehouseError, explain
from gatehouse.pipelines.warehouse.destination import Destination


def record(destination: Destination, source: Any, timeout_s: Any, failed: str) -> None:
    """`source` loaded under the run lock, then the views refreshed (the first load makes the table they read) and
    the readers' snapshot published. A failed step is one line, starting with `failed`."""
    with destination.lock.exclusive(timeout_s):
        pipeline = destination.pipeline()
        try:
            destination.load(pipeline, timeout_s, step=lambda: pipeline.run(source), extracted=False)
        except PipelineStepFailed as err:
            raise GatehouseError(f"{failed} at the {err.step} step: {explain(err)}") from err
        destination.views.refresh(timeout_s)
        destination.snapshot.publish(timeout_s)
