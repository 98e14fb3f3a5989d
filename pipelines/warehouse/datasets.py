"""The console datasets a destination holds (the single console's and each project's) and the newest extraction of
each: what every command that reads checks first, and what a run checks before it loads over a dataset."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

from dlt.common.exceptions import DltException

from gatehouse.pipelines.errors import GatehouseError, config_file_problem, explain
from gatehouse.pipelines.models import build as models
from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.pipelines.warehouse.names import LOAD_HINT
from gatehouse.pipelines.warehouse.reader import LastExtraction, Reader
from gatehouse.pipelines.warehouse.views import known_projects_with


def check_loaded(
    destination: Destination,
    timeout_s: float | None = None,
    known_projects: Sequence[str] = (),
    reader: Reader | None = None,
) -> LastExtraction:
    """The last extraction this dataset holds, or with several projects the newest any project's holds;
    fails with one line when no run has loaded any.

    A missing file, an empty one, or one a failed first run left behind all hold no console: reading
    them would report nothing to do, an all-clear nobody measured. `known_projects`: the projects whose
    datasets are looked up one by one where the information schema shows one dataset at a time (BigQuery);
    by default the configured ones, as for the views. `reader`: one already open on this destination, used
    for every look (else one connection is opened for them all).
    """
    check_readable(destination)
    with _read_as_gatehouse_made(destination), contextlib.ExitStack() as opened:
        if reader is None:
            reader = opened.enter_context(destination.reader(timeout_s))
        last = reader.last_extraction()
        if last is None and not destination.is_project:
            # several projects: the base dataset holds none of them, each its own dataset
            found = _extractions(reader, known_projects).values()
            last = max(found, key=lambda extraction: extraction.service_time, default=None)
    if last is None:
        raise GatehouseError(
            f"no run has loaded {destination.label()} yet (it holds no extraction): {LOAD_HINT}; nothing was read or written"
        )
    return last


@contextlib.contextmanager
def _read_as_gatehouse_made(destination: Destination) -> Iterator[None]:
    """What the database answers when its console tables are not as gatehouse makes them (another program's file
    with gatehouse's table names, a column dropped by hand): one line naming the database, nothing written."""
    try:
        yield
    except DltException as err:
        if config_file_problem(err) is not None:
            raise  # a setting that cannot be read: the command's own one line names it
        raise GatehouseError(
            f"cannot read the console data from {destination.label()}: {explain(err)}; nothing was written"
        ) from err


def check_readable(destination: Destination) -> None:
    """One line, before any connection, where nothing can be read: a destination the views do not serve, a
    DuckDB file that is not there."""
    destination.views.check_served()
    if destination.is_duckdb_file and not destination.duckdb_path.is_file():
        raise GatehouseError(f"no database at {destination.duckdb_path}: {LOAD_HINT}")


def console_extractions(
    destination: Destination, timeout_s: float | None = None, known_projects: Sequence[str] = ()
) -> dict[str, LastExtraction]:
    """The newest extraction of every console dataset in the database (the single console's and each
    project's), by dataset; {} for a file not made yet."""
    if _nothing_to_read(destination):
        return {}
    with _read_as_gatehouse_made(destination), destination.reader(timeout_s) as reader:
        return _extractions(reader, known_projects)


def console_datasets(
    destination: Destination, timeout_s: float | None = None, known_projects: Sequence[str] = ()
) -> dict[str, str]:
    """The console datasets in the database by project (`default` for the single console's), as the
    views read them; {} for a file not made yet, or files (no SQL reads across their datasets)."""
    if _nothing_to_read(destination):
        return {}
    with _read_as_gatehouse_made(destination), destination.sql_client(timeout_s) as client:
        return _console_datasets(client, known_projects)


def last_extraction(destination: Destination, timeout_s: float | None = None) -> LastExtraction | None:
    """The newest extraction the dataset holds and its console, or None when no run has loaded it."""
    if destination.is_duckdb_file and not destination.duckdb_path.is_file():
        return None
    with _read_as_gatehouse_made(destination), destination.reader(timeout_s) as reader:
        return reader.last_extraction()


def _nothing_to_read(destination: Destination) -> bool:
    return (destination.is_duckdb_file and not destination.duckdb_path.is_file()) or not destination.views.served


def _extractions(reader: Reader, known_projects: Sequence[str]) -> dict[str, LastExtraction]:
    """`console_extractions` on a reader already open: the datasets and their extractions on one connection."""
    datasets = _console_datasets(reader.client, known_projects)
    found = {dataset: reader.last_extraction(dataset) for dataset in datasets.values()}
    return {dataset: extraction for dataset, extraction in found.items() if extraction is not None}


def _console_datasets(client: Any, known_projects: Sequence[str]) -> dict[str, str]:
    return {str(raw.project): raw.dataset for raw in models.raw_tables(client, known_projects_with(known_projects)).projects}
