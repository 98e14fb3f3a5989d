"""Where the data is: the one module that resolves a destination.

`gatehouse run`, `views`, `report`, `code-refs` and the notebooks all reach the data through a
`Destination`: it resolves `--duckdb PATH` / `--destination NAME` (credentials come from dlt config, the
dlt way, never from a second configuration of ours) into the dlt pipeline, hands out dlt's SQL client and a
`Reader` of DuckDB-dialect SQL, and loads. What guards the data it holds by name: its `lock` (one run at a time,
one writer per DuckDB file, the bounded wait for a file another program holds: lock.py), its `views` (views.py)
and, for a DuckDB file, the readers' `snapshot` (snapshot.py).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import dlt
from dlt.common.exceptions import MissingDependencyException

from gatehouse.pipelines import settings as gatehouse_settings
from gatehouse.pipelines.errors import GatehouseError, first_line
from gatehouse.pipelines.warehouse.duckdb_file import (
    DUCKDB_CAPABILITIES,
    capabilities_key,
    check_file_path,
    checkpoint,
    connect,
    duckdb_credentials,
    duckdb_file_client,
)
from gatehouse.pipelines.warehouse.lock import RunLock, Waits
from gatehouse.pipelines.warehouse.names import (
    DATASET_NAME,
    DEFAULT_DUCKDB,
    DEFAULT_NAME,
    DESTINATION_ENV,
    DUCKDB_ENV,
    PIPELINE_NAME,
    RESERVED_DUCKDB_NAMES,
)
from gatehouse.pipelines.warehouse.reaching import reaching
from gatehouse.pipelines.warehouse.reader import Reader
from gatehouse.pipelines.warehouse.snapshot import ReadersSnapshot
from gatehouse.pipelines.warehouse.state import adopt_machine_wide_state, warehouse_digest, warehouse_state_root
from gatehouse.pipelines.warehouse.views import Views

log = logging.getLogger("gatehouse.destination")

T = TypeVar("T")


@dataclass(frozen=True)
class Destination:
    """A dlt destination by name; for the default, DuckDB, the file it writes."""

    name: str = DEFAULT_NAME
    duckdb_path: Path = DEFAULT_DUCKDB
    # Where dlt keeps the pipeline's state; by default beside the DuckDB file, else dlt's own folder.
    pipelines_dir: Path | None = None
    # A reader's DuckDB connection: never writes, and any number of them share the file.
    read_only: bool = False
    # One console per pipeline and dataset: `gatehouse`/`console` for a single console, `gatehouse_<project>`/
    # `console_<project>` for each of several projects (`for_project`).
    pipeline_name: str = PIPELINE_NAME
    dataset_name: str = DATASET_NAME
    # A run may make the DuckDB file's missing folders (--create-dirs): never implied, a typo in a path would
    # start a new history silently.
    create_dirs: bool = False
    _pipeline: list = field(default_factory=list, compare=False, repr=False)
    waits: Waits = field(default_factory=Waits, compare=False, repr=False)
    # The SQL client `held` keeps open, with the thread it serves; never copied (`dataclasses.replace`).
    _held: list = field(default_factory=list, init=False, compare=False, repr=False)

    @classmethod
    def from_flags(cls, destination: str | None, duckdb: str | Path | None, create_dirs: bool = False) -> Destination:
        """The destination a command's flags name, else the settings (`gatehouse.destination`, `gatehouse.duckdb`,
        `gatehouse.pipelines_dir`: pipelines/settings.py), else the default: every command, Dagster and the DAG
        alike."""
        configured = gatehouse_settings.resolve(destination=destination, duckdb=str(duckdb) if duckdb is not None else None)
        name = (configured.destination or DEFAULT_NAME).strip()
        if duckdb is not None and name != DEFAULT_NAME:
            log.warning("--duckdb is for the default destination: with --destination %s, dlt config says where", name)
        # a DuckDB file's state always sits beside it (another file never inherits it); the setting is a warehouse's
        pipelines_dir = configured.pipelines_dir if name != DEFAULT_NAME else None
        return cls(
            name=name,
            duckdb_path=Path(configured.duckdb) if configured.duckdb else DEFAULT_DUCKDB,
            create_dirs=create_dirs,
            pipelines_dir=Path(pipelines_dir).expanduser() if pipelines_dir else None,
        )

    def for_project(self, project: str) -> Destination:
        """The same destination for one of several projects: its own pipeline, state and dataset."""
        return dataclasses.replace(
            self,
            pipeline_name=f"{PIPELINE_NAME}_{project}",
            dataset_name=f"{DATASET_NAME}_{project}",
            _pipeline=[],
            waits=Waits(),
        )

    # -- what it is -------------------------------------------------------------------------------

    @property
    def is_duckdb_file(self) -> bool:
        return self.name == DEFAULT_NAME

    @property
    def is_project(self) -> bool:
        """One of several configured projects (`for_project`), not the single console."""
        return self.pipeline_name != PIPELINE_NAME

    def check_duckdb_path(self) -> None:
        """A DuckDB file name gatehouse can use, in a folder that exists or can be made (an OSError if not)."""
        if self.is_duckdb_file:
            check_file_path(self.duckdb_path, self.create_dirs)

    def remove_unloaded_file(self) -> None:
        """The DuckDB file a first run made and loaded nothing into (it failed first): removed, with its log, so the
        folder holds no empty database that `report` or `sql` would take for a loaded one; and the pipeline's state
        beside it, which describes no database (what it extracted is read again by the next run)."""
        for leftover in (self.duckdb_path, self.duckdb_path.with_name(self.duckdb_path.name + ".wal")):
            leftover.unlink(missing_ok=True)
        working_dir = self.working_dir()
        if working_dir is not None and working_dir.exists():
            shutil.rmtree(working_dir)

    def forget_removed_database(self) -> None:
        """A DuckDB file removed by hand starts from empty state: its old state would make incremental
        resources skip data. Run before any pipeline of the file is made (several projects: once, first)."""
        pipelines_dir = self.working_dir()
        if self.is_duckdb_file and pipelines_dir is not None and pipelines_dir.exists() and not self.duckdb_path.exists():
            log.info("database %s is new: starting from empty state", self.duckdb_path)
            shutil.rmtree(pipelines_dir)

    def label(self) -> str:
        """How output names the destination: the file, or the destination's name (never a credential)."""
        where = str(self.duckdb_path) if self.is_duckdb_file else self.name
        return where if self.dataset_name == DATASET_NAME else f"{where} (dataset {self.dataset_name})"

    def working_dir(self) -> Path:
        """Where dlt keeps this deployment's pipeline state, and beside it the run lock: the setting
        `gatehouse.pipelines_dir` when given; beside a DuckDB file; for a warehouse, a folder of its own per
        destination, host, database and dataset under the user's own dlt folder (never the machine-wide one dlt
        takes as root), so two deployments on one machine never share state or a lock."""
        if self.pipelines_dir is not None:
            return self.pipelines_dir
        if self.is_duckdb_file:
            # State lives beside the database it describes, so another database never inherits it.
            db = self.duckdb_path.resolve()
            return db.parent / f".{db.name}.dlt"
        return warehouse_state_root() / f"{self.name}-{warehouse_digest(self.name)}"

    def notebook_environment(self) -> dict[str, str]:
        """What a notebook's kernel needs to read this destination (and dlt's config from this project)."""
        env = {DESTINATION_ENV: self.name, "DLT_PROJECT_DIR": os.environ.get("DLT_PROJECT_DIR", os.getcwd())}
        if self.is_duckdb_file:
            env[DUCKDB_ENV] = str(self.duckdb_path.resolve())
        return env

    # -- what guards it --------------------------------------------------------------------------------

    @functools.cached_property
    def lock(self) -> RunLock:
        return RunLock(self.label(), self.duckdb_path if self.is_duckdb_file else None, self.waits, self._lock_file)

    @functools.cached_property
    def views(self) -> Views:
        return Views(self.name, self.label(), self.sql_client, self.working_dir)

    @functools.cached_property
    def snapshot(self) -> ReadersSnapshot:
        return ReadersSnapshot(self.duckdb_path, self.lock, kept=self.is_duckdb_file)

    def _lock_file(self) -> Path:
        self.check_duckdb_path()  # a missing or read-only folder is one line naming it, not the lock file's
        # Beside the pipeline's folder, not in it: a run may remove the folder (a database deleted by
        # hand starts from empty state), and it must do so holding the lock. One lock per project, so
        # that projects load side by side (each one's state is its own).
        working_dir = self.working_dir()
        own = f".{self.pipeline_name}" if self.is_project else ""
        return working_dir.with_name(f"{working_dir.name}{own}.lock")

    def for_reading(self) -> Destination:
        """Where a reader should look: on DuckDB the published snapshot (a run never waits for its readers),
        else, before any snapshot exists, the database itself, read-only; a warehouse as it is."""
        if not self.is_duckdb_file:
            return self
        # A snapshot without its database (deleted by hand) is not read: it would answer for data that is gone.
        published = self.snapshot.path.is_file() and self.duckdb_path.is_file()
        path = self.snapshot.path if published else self.duckdb_path
        return Destination(duckdb_path=path, read_only=True, pipeline_name=self.pipeline_name, dataset_name=self.dataset_name)

    # -- reaching it -----------------------------------------------------------------------------------

    def pipeline(self) -> dlt.Pipeline:
        """The dlt pipeline that loads this destination (made once per Destination)."""
        if self._pipeline:
            return self._pipeline[0]
        pipelines_dir = self.working_dir()
        if self.is_duckdb_file:
            self.check_duckdb_path()
            if self.is_project:
                # Projects share the folder and may load side by side: each forgets only its own state
                # here; the whole folder was checked once before any of them started.
                own_state = pipelines_dir / self.pipeline_name if pipelines_dir is not None else None
                if own_state is not None and own_state.exists() and not self.duckdb_path.exists():
                    log.info(
                        "database %s is new: project pipeline %s starts from empty state", self.duckdb_path, self.pipeline_name
                    )
                    shutil.rmtree(own_state)
            else:
                self.forget_removed_database()
            # kept before the pipeline is made: making it asks for them too
            destination: Any = keep_capabilities(
                dlt.destinations.duckdb(duckdb_credentials(self.duckdb_path)), DUCKDB_CAPABILITIES
            )
        else:
            destination = self.name
            if self.pipelines_dir is None:
                adopt_machine_wide_state(self.pipeline_name, self.working_dir())
        with reaching(self.name):
            pipeline = dlt.pipeline(
                pipeline_name=self.pipeline_name,
                destination=destination,
                dataset_name=self.dataset_name,
                pipelines_dir=str(pipelines_dir),
            )
        if pipeline.destination is not None and pipeline.destination is not destination:  # made by dlt from the name
            keep_capabilities(pipeline.destination)
        self._pipeline.append(pipeline)
        return pipeline

    @contextlib.contextmanager
    def held(self, timeout_s: float | None = None) -> Iterator[None]:
        """The destination opened once for the steps taken inside (`sql_client` hands this thread that one client).

        Opening a DuckDB file reads its whole catalogue, the views' SQL included, and dlt resolves its
        configuration for each client: a run's checks, counts, views and snapshot each opened their own. While
        the file is held here, every other connection of this process to it (dlt's load jobs, the snapshot's
        checkpoint) shares its database, and no other program can open it: a run holds it around the steps that
        use it, never while it reads the console."""
        if self._held:
            yield
            return
        with self.sql_client(timeout_s) as client:
            self._held.append((threading.get_ident(), client))
            try:
                yield
            finally:
                self._held.clear()

    @contextlib.contextmanager
    def sql_client(self, timeout_s: float | None = None) -> Iterator[Any]:
        """dlt's own SQL client for the destination, opened; one-line errors for what cannot be reached.

        A DuckDB file is opened here, through the one bounded wait for a file another program holds, and
        handed to dlt's client; a reader opens it read-only and makes no pipeline folder beside it. Inside
        `held`, the client held open, on the thread that holds it.
        """
        held = [client for thread, client in self._held if thread == threading.get_ident()]
        if held:
            yield held[0]
            return
        if self.is_duckdb_file:
            if self.duckdb_path.stem in RESERVED_DUCKDB_NAMES:
                self.pipeline()  # the one line about the file name

            connection = self.lock.when_free(self._connect_duckdb, timeout_s)
            try:
                with duckdb_file_client(connection, self.dataset_name) as client:
                    yield client
            finally:
                connection.close()
            return
        pipeline = self.pipeline()
        with reaching(self.name):
            client = pipeline.sql_client()
            try:
                client.open_connection()
            except MissingDependencyException:
                raise
            except Exception as err:  # the driver's own words: refused, bad password, unknown database...
                raise GatehouseError(f"destination {self.label()}: cannot connect: {first_line(err)}") from err
        try:
            yield client
        finally:
            client.close_connection()

    def _connect_duckdb(self) -> Any:
        return connect(self.duckdb_path, read_only=self.read_only)

    @contextlib.contextmanager
    def reader(self, timeout_s: float | None = None) -> Iterator[Reader]:
        """Reads DuckDB-dialect SQL over the analysis views, translated for the destination."""
        with self.sql_client(timeout_s) as client:
            yield Reader(client)

    def load(
        self,
        pipeline: dlt.Pipeline,
        timeout_s: float | None = None,
        step: Callable[[], T] | None = None,
        extracted: bool = True,
    ) -> T:
        """`pipeline.load()` (or `step`, a dlt step that loads) through the one bounded wait, with a DuckDB file held
        open in this process the whole time: dlt's load jobs each open their own connection, and with the file
        open here they reuse this process's database (DuckDB keeps one per file and process) instead of taking
        the file again, where a reader polling it could hold it between two jobs (dlt then printed its lock
        text and retried the job). The file is held by a connection of this process's own, as `held` holds it: dlt's
        SQL client would resolve the destination's configuration and read the schema back only to open it. A project
        of several writes what it loaded into the file at once (`checkpoint`): the others load the same file beside it."""
        action: Callable[[], Any] = step or pipeline.load

        def holding() -> Any:
            if not self.is_duckdb_file or (self._held and not self.is_project):  # held open already (`held`)
                return action()
            # the database this process holds open already, or the file, held from here: one another program holds is
            # waited for around `holding`
            connection = self._connect_duckdb()
            try:
                loaded = action()
                if self.is_project:
                    checkpoint(connection)
                return loaded
            finally:
                connection.close()

        return self.lock.when_free(holding, timeout_s, extracted=extracted)


def keep_capabilities(factory: T, kept: dict[tuple[Any, ...], Any] | None = None) -> T:
    """The destination factory's capabilities worked out once per naming convention, for the pipeline's life
    (`kept`: for the process, where no setting changes them: DuckDB's, `DUCKDB_CAPABILITIES`).

    dlt asks the pipeline's factory for them some forty times in a run (each step, each client, each schema it
    reads back), and each ask resolves the destination's whole configuration from every provider again: about
    a tenth of the CPU of a run that changes nothing. Nothing a run does changes that configuration; each ask
    gets a copy of its own, as dlt sets file formats on the capabilities it is given."""
    worked_out = factory.capabilities  # type: ignore[attr-defined]
    kept = {} if kept is None else kept

    def capabilities(config: Any = None, naming: Any = None) -> Any:
        if config is not None:  # a client's own configuration, resolved already
            return worked_out(config, naming)
        key = capabilities_key(naming)
        if key not in kept:
            kept[key] = worked_out(None, naming)
        return kept[key].copy()

    factory.capabilities = capabilities  # type: ignore[attr-defined]  # the factory's own, kept per pipeline
    return factory
