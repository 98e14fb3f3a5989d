"""What each resource keeps in dlt's resource state between runs, typed in one place.

dlt saves a resource's state only when its extraction succeeds, and commits it with the load package that
carries the rows, so each entry below is exactly as new as the rows loaded beside it. Every reader and writer
of these keys annotates the state with its type here (mypy checks the keys).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict, cast

import dlt


class ListState(TypedDict, total=False):
    """`gates` and `dynamic_configs` (absence.py, unchanged.py)."""

    # id -> what the list said of it last run: an id missing now is confirmed gone before it is retired
    listed: dict[str, Any]
    # the digest of the whole list as last loaded: an identical list is not loaded again
    loaded_digest: str
    # `qualifying_events`: the names of the list as last loaded; one missing from a later complete read is deleted
    loaded_keys: list[str]


class AnswersState(TypedDict, total=False):
    """`holdouts` (unchanged.AnswerDigests)."""

    # id -> digest of the answer last loaded: an identical answer is left out of the merge
    loaded_digests: dict[str, str]
    # `holdouts`: id asked for -> the id the console answered, where the two differ (the row's key)
    answered_ids: dict[str, str]


class ExposuresState(AnswersState, total=False):
    """`cumulative_exposures`."""

    # experiment id -> the last day of its series loaded (ISO date): the next read starts there
    last_day: dict[str, str]
    # experiment id -> the digest of its rows before `last_day` as loaded: a series whose earlier days differ from
    # them (the service re-stated a day) is loaded whole
    earlier_days_digest: dict[str, str]
    # experiment id -> the day its series was found concluded (ISO date): asked again only when due
    concluded: dict[str, str]


class ExtractionRunsState(TypedDict, total=False):
    """`extraction_runs`."""

    # the digest of the experiments the last run that recorded them followed (as a set): a run that follows the same
    # records only their number, not the list again
    followed_digest: str


def extraction_runs_state() -> ExtractionRunsState:
    return cast(ExtractionRunsState, dlt.current.resource_state())


class IngestionRunsState(AnswersState, total=False):
    """`ingestion_runs`."""

    # runs that completed (pulse_complete, settle.is_settled): never asked again
    complete: list[str]
    # written by older versions, which also settled a run whose error status had not moved for a day: an error is
    # not final, so each is asked once more (and recorded in `complete` or `pending`), then this entry is dropped
    settled: list[str]
    # run id -> its last status, for runs still moving
    pending: dict[str, str]
    # run id -> the day it was found quiet (ISO date): asked again weekly
    quiet: dict[str, str]
    # the service's clock less this machine's at the last answer, in seconds (clock.py)
    clock_offset_s: float


def list_state() -> ListState:
    return cast(ListState, dlt.current.resource_state())


def answers_state(resource: str | None = None) -> AnswersState:
    """The current resource's state, or that of `resource`."""
    return cast(AnswersState, dlt.current.resource_state(resource) if resource else dlt.current.resource_state())


def exposures_state() -> ExposuresState:
    return cast(ExposuresState, dlt.current.resource_state("cumulative_exposures"))


def ingestion_runs_state(resource: str | None = None) -> IngestionRunsState:
    """The ingestion runs' state, from that resource or from its id resource (`resource="ingestion_runs"`)."""
    return cast(IngestionRunsState, dlt.current.resource_state(resource) if resource else dlt.current.resource_state())


class SavedStates:
    """Each resource's state as the last run saved it, read from the source's state before dlt extracts."""

    def __init__(self, source_state: Mapping[str, Any]) -> None:
        self._resources: Mapping[str, Any] = source_state.get("resources", {})

    @property
    def holdouts(self) -> AnswersState:
        return cast(AnswersState, self._resources.get("holdouts", {}))

    @property
    def exposures(self) -> ExposuresState:
        return cast(ExposuresState, self._resources.get("cumulative_exposures", {}))

    @property
    def ingestion_runs(self) -> IngestionRunsState:
        return cast(IngestionRunsState, self._resources.get("ingestion_runs", {}))
