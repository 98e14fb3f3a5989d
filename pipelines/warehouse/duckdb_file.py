"""A DuckDB file as gatehouse opens it: a name and folder it can use, a connection of ours (read-only for readers),
dlt's SQL client over a path or an open connection, dlt's credentials for a file and the limits a run sets on it."""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dlt

from gatehouse.pipelines.errors import GatehouseError, first_line
from gatehouse.pipelines.warehouse.lock import held_by
from gatehouse.pipelines.warehouse.names import DATASET_NAME, RESERVED_DUCKDB_NAMES

log = logging.getLogger("gatehouse.destination")

# DuckDB takes most of the RAM and every core by default; capped, its SCD2 merges spill to disk instead: a lower
# peak for the large twin's load, for a little more load time (bench/RESULTS.md, peak RSS).
RUN_DEFAULTS = {"destination.duckdb.credentials.global_config": '{"memory_limit": "128MB", "threads": 1}'}


def check_file_path(path: Path, create_dirs: bool = False) -> None:
    """A DuckDB file name gatehouse can use, in a folder that exists or can be made (`create_dirs`: --create-dirs),
    else one line (an OSError if the folder cannot be made)."""
    if path.stem in RESERVED_DUCKDB_NAMES:
        raise GatehouseError(
            f"--duckdb {path}: pick another file name; DuckDB would name its catalog"
            f" '{path.stem}', the name of a gatehouse schema"
        )
    folder = path.resolve().parent
    if not folder.is_dir():
        blocking = next((part for part in (folder, *folder.parents) if part.exists()), None)
        if blocking is not None and not blocking.is_dir():
            raise GatehouseError(f"cannot use {blocking}: a file is where a folder is needed")
        if not create_dirs:
            raise GatehouseError(
                f"--duckdb {path}: the folder {folder} does not exist; check the path, or pass --create-dirs to make it"
            )
        folder.mkdir(parents=True, exist_ok=True)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise GatehouseError(
            f"--duckdb {path}: the folder {folder} is not writable; choose a folder you"
            " can write to, or give yourself write permission on it"
        )


def import_driver() -> None:
    """DuckDB's driver imported ahead, by a process about to fork processes that read (the reports' lanes)."""
    import duckdb  # noqa: F401


@contextlib.contextmanager
def in_memory() -> Iterator[Any]:
    """An empty DuckDB database of this process, gone once closed."""
    import duckdb

    with duckdb.connect(":memory:") as connection:
        yield connection


def connect(path: Path, read_only: bool = False) -> Any:
    """DuckDB's own connection to the file; a file another program holds raises as DuckDB does (the caller waits
    for it), anything else that keeps it from opening is one line."""
    import duckdb

    try:
        return duckdb.connect(str(path), read_only=read_only)
    except duckdb.Error as err:
        if held_by(err) is not None:
            raise  # waited for by RunLock.when_free
        raise GatehouseError(f"cannot read {path} as a gatehouse DuckDB database: {first_line(err)}") from err


def checkpoint(connection: Any) -> None:
    """The rows a load appended written into the file now. DuckDB keeps them in memory until it checkpoints the file,
    which it did not do by itself while forty projects loaded one file side by side: their first loads kept all
    their rows, past the run's memory cap (`RUN_DEFAULTS`), and most of their loads and counts failed. A single
    console's run is left to DuckDB's own (checkpointing each phase raised its peak memory). One that cannot run now
    (another connection writing) is left to DuckDB's next."""
    import duckdb

    try:
        connection.execute("checkpoint")
    except duckdb.Error as err:
        log.debug("no checkpoint after the load: %s", first_line(err))


def checkpointed_copy(database: Path, copy: Path) -> None:
    """The database checkpointed, then its bytes copied with its times: the open connection keeps every other
    process from writing while they are copied."""
    import duckdb

    connection = duckdb.connect(str(database))
    try:
        connection.execute("checkpoint")
        shutil.copyfile(database, copy)
        copied = database.stat()
        os.utime(copy, ns=(copied.st_atime_ns, copied.st_mtime_ns))
    finally:
        connection.close()


@contextlib.contextmanager
def duckdb_file_client(database: str | Path | Any, dataset: str = DATASET_NAME) -> Iterator[Any]:
    """dlt's SQL client over a DuckDB file path or an open DuckDB connection, raw dataset `dataset`."""
    from dlt.common.configuration import resolve_configuration
    from dlt.destinations.exceptions import DestinationConnectionError
    from dlt.destinations.impl.duckdb.configuration import DuckDbCredentials
    from dlt.destinations.impl.duckdb.sql_client import DuckDbSqlClient

    credentials = resolve_configuration(DuckDbCredentials(str(database) if isinstance(database, Path) else database))
    client = DuckDbSqlClient(dataset, f"{dataset}_staging", credentials, duckdb_capabilities())
    try:
        client.open_connection()
    except DestinationConnectionError as error:
        # as duckdb.connect would: DuckDB's own error about the file (not a database, locked, ...)
        raise (error.inner_exc if isinstance(error.inner_exc, Exception) else error) from None
    try:
        yield client
    finally:
        client.close_connection()


# DuckDB's capabilities per naming convention (`capabilities_key`), worked out once per process: they are DuckDB's
# own and no setting changes them, yet dlt resolves the destination's whole configuration again for each ask.
DUCKDB_CAPABILITIES: dict[tuple[Any, ...], Any] = {}


def capabilities_key(naming: Any) -> tuple[Any, ...]:
    """What of a naming convention a destination's capabilities depend on."""
    return (type(naming), getattr(naming, "max_length", None), getattr(naming, "is_case_sensitive", None))


def duckdb_capabilities() -> Any:
    """DuckDB's capabilities as dlt's SQL client over a file needs them (no naming convention given), a copy of its
    own (dlt may set fields on them)."""
    key = capabilities_key(None)
    if key not in DUCKDB_CAPABILITIES:
        DUCKDB_CAPABILITIES[key] = dlt.destinations.duckdb().capabilities()
    return DUCKDB_CAPABILITIES[key].copy()


def duckdb_credentials(path: Path) -> Any:
    """dlt's DuckDB credentials for a file, made without parsing the path as a connection string.

    dlt parses a string with SQLAlchemy's URL parser when SQLAlchemy is installed, importing it for that
    alone: a wait in every run before its first request, and nothing else in
    a run needs it. The fields are the same either way, and config (`global_config`...) still resolves.

    The path is made absolute here, from the folder the command runs in: dlt would resolve a relative one against
    the folder the pipeline's first run started in (kept in its state), and load into another file than the one
    named (run from a subfolder, or from a copy of the project's folder).
    """
    from dlt.destinations.impl.duckdb.configuration import DuckDbCredentials

    credentials = DuckDbCredentials()
    credentials.database = os.path.abspath(path)
    return credentials
