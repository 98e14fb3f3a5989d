"""Where the data is: the one module that knows the destination.

`gatehouse run`, `views`, `report`, `code-refs` and the notebooks all reach the data through a
`Destination`: it resolves `--duckdb PATH` / `--destination NAME` (credentials come from dlt config, the
dlt way, never from a second configuration of ours) into the dlt pipeline, hands out dlt's SQL client
for views and reads, translates the DuckDB-dialect SQL gatehouse writes into the destination's dialect,
and guards the data: one run at a time per pipeline, and a DuckDB file that another process holds is
waited for, not failed on. No other module imports a driver or tests a destination's name.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import hashlib
import logging
import os
import re
import shutil
import threading
import time
from dataclasses import dataclass, field
from datetime import timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Optional, Sequence, TypeVar

import dlt
from dlt.common.configuration.exceptions import ConfigFieldMissingException, ConfigurationValueError
from dlt.common.destination.exceptions import SqlClientNotAvailable, UnknownDestinationModule
from dlt.common.exceptions import MissingDependencyException
from dlt.destinations.exceptions import DatabaseUndefinedRelation
from dlt.destinations.sql_client import SqlClientBase

from gatehouse.pipelines import settings as gatehouse_settings
from gatehouse.pipelines.settings import DEFAULT_LOCK_TIMEOUT_S, seconds_setting
from gatehouse.pipelines.errors import GatehouseError, explain, first_line
from gatehouse.pipelines.projects import configured_projects
from gatehouse.pipelines.models import build as views
from gatehouse.sources.console.identity import ConsoleIdentity

log = logging.getLogger("gatehouse.destination")

PIPELINE_NAME = "gatehouse"
DATASET_NAME = "console"
DEFAULT_NAME = "duckdb"
DEFAULT_DUCKDB = Path("gatehouse.duckdb")
# The demo keeps to its own file: `gatehouse run --demo` never writes into a real console's history.
DEMO_DUCKDB = Path("demo.duckdb")
# What to do about a database that holds nothing yet; the demo writes a file of its own, which is named.
LOAD_HINT = f"load it with `gatehouse run` (or `gatehouse run --demo`, then read it with --duckdb {DEMO_DUCKDB})"
LOCK_TIMEOUT_SETTING = "gatehouse.lock_timeout"  # [gatehouse] lock_timeout = 600, or GATEHOUSE__LOCK_TIMEOUT
# Short: a BI tool that polls the file leaves gaps of a fraction of a second, and a wait must not miss them all.
LOCK_POLL_S = 0.1
# The notebooks, opened by hand or by `gatehouse report`, find the data through these two settings.
DESTINATION_ENV = "GATEHOUSE__DESTINATION"
DUCKDB_ENV = "GATEHOUSE__DUCKDB"
# DuckDB names a file's catalog after the file: these names would clash with the schemas.
RESERVED_DUCKDB_NAMES = (DATASET_NAME, "analytics")
# DuckDB takes 80% of RAM and every core by default; capped, its SCD2 merges spill to disk instead
# (measured on the large twin: peak 514 MB uncapped at 256 MB, 430 MB at 128 MB and one thread, for
# about a second more of load time).
RUN_DEFAULTS = {"destination.duckdb.credentials.global_config": '{"memory_limit": "128MB", "threads": 1}'}
# The pip extra that brings each destination's driver (dlt's extras carry the same names).
DRIVER_EXTRAS = {"postgres": "postgres", "snowflake": "snowflake", "bigquery": "bigquery",
                 "databricks": "databricks", "motherduck": "motherduck", "mssql": "mssql", "redshift": "redshift",
                 "clickhouse": "clickhouse", "athena": "athena", "synapse": "synapse", "filesystem": "filesystem"}
# Destinations dlt loads raw tables into but where the analysis views cannot live, and why (docs/destinations.md).
NO_VIEWS = {
    "filesystem": "files have no SCD2 history and no merge in dlt (every run appends, nothing retires), and views"
    " over files vanish with the session; for the views and reports load into duckdb, motherduck or a warehouse"
    " (docs/destinations.md)",
}
# DuckDB's words for a file another process holds: `... Conflicting lock is held in /usr/bin/python3 (PID 42) ...`.
_DUCKDB_HELD = re.compile(r"Conflicting lock is held in (?P<program>.+?) \(PID (?P<pid>\d+)\)")
# The read-only copy published beside the database after each good run: what analysts' tools open.
SNAPSHOT_SUFFIX = ".snapshot"
# One writer lock per DuckDB file for the runs of this process (Destination.writing).
_WRITERS: dict[Path, threading.Lock] = {}
_WRITERS_GUARD = threading.Lock()
T = TypeVar("T")


@dataclass(frozen=True)
class LastExtraction:
    """The newest extraction a dataset holds: when, by the service's clock, and from which console."""

    service_time: Any
    console: Optional[ConsoleIdentity]


@dataclass(frozen=True)
class Snapshot:
    path: Path
    seconds: float
    size_bytes: int


# What tells one warehouse from another in its credentials (none of them a secret), for its state's folder.
WAREHOUSE_PLACE = ("host", "port", "database", "project_id", "server_hostname", "http_path", "catalog", "account")


def warehouse_state_root() -> Path:
    """The user's own dlt folder (DLT_DATA_DIR when set, else ~/.dlt), never dlt's machine-wide /var/dlt as root."""
    data_dir = os.environ.get("DLT_DATA_DIR")
    return (Path(data_dir) if data_dir else Path.home() / ".dlt") / "gatehouse"

@dataclass
class Waits:
    """Time a command spent waiting for the DuckDB file or for another run, kept apart from its own work."""

    seconds: float = 0.0
    holders: list[str] = field(default_factory=list)

    def add(self, seconds: float, holder: str) -> None:
        self.seconds += seconds
        if holder not in self.holders:
            self.holders.append(holder)


@dataclass(frozen=True)
class Destination:
    """A dlt destination by name; for the default, DuckDB, the file it writes."""

    name: str = DEFAULT_NAME
    duckdb_path: Path = DEFAULT_DUCKDB
    # Where dlt keeps the pipeline's state; by default beside the DuckDB file, else dlt's own folder.
    pipelines_dir: Optional[Path] = None
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

    @classmethod
    def from_flags(cls, destination: Optional[str], duckdb: Optional[str | Path], create_dirs: bool = False) -> "Destination":
        """The destination a command's flags name, else the settings (`gatehouse.destination`, `gatehouse.duckdb`,
        `gatehouse.pipelines_dir`: pipelines/settings.py), else the default: every command, Dagster and the DAG
        alike."""
        configured = gatehouse_settings.resolve(destination=destination, duckdb=str(duckdb) if duckdb is not None else None)
        name = (configured.destination or DEFAULT_NAME).strip()
        if duckdb is not None and name != DEFAULT_NAME:
            log.warning("--duckdb is for the default destination: with --destination %s, dlt config says where", name)
        # a DuckDB file's state always sits beside it (another file never inherits it); the setting is a warehouse's
        pipelines_dir = configured.pipelines_dir if name != DEFAULT_NAME else None
        return cls(name=name, duckdb_path=Path(configured.duckdb) if configured.duckdb else DEFAULT_DUCKDB,
                   create_dirs=create_dirs, pipelines_dir=Path(pipelines_dir).expanduser() if pipelines_dir else None)

    def for_project(self, project: str) -> "Destination":
        """The same destination for one of several projects: its own pipeline, state and dataset."""
        return dataclasses.replace(self, pipeline_name=f"{PIPELINE_NAME}_{project}", dataset_name=f"{DATASET_NAME}_{project}",
                                   _pipeline=[], waits=Waits())

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
        if not self.is_duckdb_file:
            return
        if self.duckdb_path.stem in RESERVED_DUCKDB_NAMES:
            raise GatehouseError(
                f"--duckdb {self.duckdb_path}: pick another file name; DuckDB would name its catalog"
                f" '{self.duckdb_path.stem}', the name of a gatehouse schema"
            )
        folder = self.duckdb_path.resolve().parent
        if not folder.is_dir():
            blocking = next((part for part in (folder, *folder.parents) if part.exists()), None)
            if blocking is not None and not blocking.is_dir():
                raise GatehouseError(f"cannot use {blocking}: a file is where a folder is needed")
            if not self.create_dirs:
                raise GatehouseError(f"--duckdb {self.duckdb_path}: the folder {folder} does not exist; check the path,"
                                     " or pass --create-dirs to make it")
            folder.mkdir(parents=True, exist_ok=True)
        if not os.access(folder, os.W_OK | os.X_OK):
            raise GatehouseError(f"--duckdb {self.duckdb_path}: the folder {folder} is not writable; choose a folder you"
                                 " can write to, or give yourself write permission on it")

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

    def writing(self) -> contextlib.AbstractContextManager[Any]:
        """Held while a run normalises and loads: projects loading side by side in this process write
        a DuckDB file one at a time (one writer per file; other destinations take them together)."""
        if not self.is_duckdb_file:
            return contextlib.nullcontext()
        with _WRITERS_GUARD:
            return _WRITERS.setdefault(self.duckdb_path.resolve(), threading.Lock())

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
        return warehouse_state_root() / f"{self.name}-{self._warehouse_digest()}"

    def _warehouse_digest(self) -> str:
        """A digest of where the warehouse is (its credentials' non-secret parts) and of the dataset."""
        from dlt.common.configuration import resolve_configuration
        from dlt.common.destination import Destination as DltDestination

        try:
            reference = DltDestination.from_reference(self.name)
            spec = reference.spec() if reference is not None else None
            config = resolve_configuration(spec, sections=("destination", self.name), accept_partial=True) if spec else None
            credentials = getattr(config, "credentials", None)
        except Exception:  # an unknown destination is refused with its own line where the pipeline is made
            credentials = None
        place = [self.name, DATASET_NAME] + [
            str(getattr(credentials, part, None) or "") for part in WAREHOUSE_PLACE if credentials is not None
        ]
        return hashlib.sha256("\x1f".join(place).encode()).hexdigest()[:12]

    def adopt_machine_wide_state(self) -> None:
        """A warehouse pipeline's state that dlt kept in its machine-wide folder (before deployments had their own):
        moved once into this deployment's folder, said in one line."""
        if self.is_duckdb_file or self.pipelines_dir is not None:
            return
        from dlt.common.pipeline import get_dlt_pipelines_dir

        old = Path(get_dlt_pipelines_dir()) / self.pipeline_name
        new = self.working_dir() / self.pipeline_name
        if old.is_dir() and not new.exists() and old.resolve() not in (new.resolve(), *new.resolve().parents):
            new.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(old), str(new))
            log.warning("moved pipeline state %s to %s: each deployment keeps its own (gatehouse.pipelines_dir)", old, new)

    def notebook_environment(self) -> dict[str, str]:
        """What a notebook's kernel needs to read this destination (and dlt's config from this project)."""
        env = {DESTINATION_ENV: self.name, "DLT_PROJECT_DIR": os.environ.get("DLT_PROJECT_DIR", os.getcwd())}
        if self.is_duckdb_file:
            env[DUCKDB_ENV] = str(self.duckdb_path.resolve())
        return env

    @property
    def serves_views(self) -> bool:
        return self.name not in NO_VIEWS

    def check_serves_views(self) -> None:
        """Fails with one line, before anything is read, where the analysis views cannot live."""
        if not self.serves_views:
            raise GatehouseError(f"destination {self.name} has no analysis views: {NO_VIEWS[self.name]}")

    def refresh_views(self, timeout_s: Optional[float] = None, known_projects: Sequence[str] = ()) -> None:
        """After a load: the views where they can live, applied unless they are current (a load that added no
        column and no dataset leaves them as they are); elsewhere a warning, and the raw tables stay loaded."""
        if self.serves_views:
            self.apply_views(timeout_s=timeout_s, known_projects=known_projects, unless_current=True)
        else:
            log.warning("raw tables loaded; no analysis views on %s: %s", self.name, NO_VIEWS[self.name])

    def drop_views(self, timeout_s: Optional[float] = None) -> None:
        """The analysis views dropped (dependants first) before a load that drops the tables they read; the run
        applies them again at its end (models/build.py `drop_views`)."""
        if not self.serves_views:
            return
        from gatehouse.pipelines.models import build as views

        with self.sql_client(timeout_s) as client:
            views.drop_views(client)

    def render_views_ahead(self, loading: Mapping[str, Iterable[str]], timeout_s: Optional[float] = None
                           ) -> Optional[threading.Thread]:
        """Translates the views, in a background thread, for the raw columns there will be once `loading` (tables
        of this dataset and their columns) is loaded: the translation, most of the time a first run's views take,
        then runs beside the load instead of after it (`models.build.render_views_ahead`). Join it after the load."""
        if not self.serves_views:
            return None
        with self.sql_client(timeout_s) as client:
            raw = views.raw_tables(client, _known(()), loading=loading)
        cache = self.working_dir() or Path(self.pipeline().working_dir)

        def render() -> None:
            try:
                views.render_views_ahead(client, raw, cache)
            except Exception:  # the refresh after the load translates them again, and reports what fails
                log.debug("views not translated ahead", exc_info=True)

        thread = threading.Thread(target=render, name="gatehouse-views-ahead", daemon=True)
        thread.start()
        return thread

    def refresh_statistics(self, timeout_s: Optional[float] = None) -> None:
        """After a load, on PostgreSQL: the loaded dataset's tables analyzed at once. PostgreSQL plans the views'
        joins from table statistics, which a fresh load leaves empty until autovacuum comes round: the first
        report after loading the large organisation took 33-50 s instead of about 9 (bench, issue 27). Other
        destinations keep their statistics themselves."""
        if self.name != "postgres":
            return
        with self.sql_client(timeout_s) as client:
            tables = views.dataset_tables(client)
            if tables:
                client.execute_sql("analyze " + ", ".join(client.make_qualified_table_name(table) for table in tables))

    def check_loaded(self, timeout_s: Optional[float] = None, known_projects: Sequence[str] = (),
                     reader: Optional["Reader"] = None) -> LastExtraction:
        """The last extraction this dataset holds, or with several projects the newest any project's holds;
        fails with one line when no run has loaded any.

        A missing file, an empty one, or one a failed first run left behind all hold no console: reading
        them would report nothing to do, an all-clear nobody measured. `known_projects`: the projects whose
        datasets are looked up one by one where the information schema shows one dataset at a time (BigQuery);
        by default the configured ones, as for the views. `reader`: one already open on this destination, used
        for every look (else one connection is opened for them all).
        """
        self.check_readable()
        with contextlib.ExitStack() as opened:
            if reader is None:
                reader = opened.enter_context(self.reader(timeout_s))
            last = reader.last_extraction()
            if last is None and not self.is_project:
                # several projects: the base dataset holds none of them, each its own dataset
                found = self._extractions(reader, known_projects).values()
                last = max(found, key=lambda extraction: extraction.service_time, default=None)
        if last is None:
            raise GatehouseError(
                f"no run has loaded {self.label()} yet (it holds no extraction): {LOAD_HINT}; nothing was read or written"
            )
        return last

    def check_readable(self) -> None:
        """One line, before any connection, where nothing can be read: a destination the views do not serve, a
        DuckDB file that is not there."""
        self.check_serves_views()
        if self.is_duckdb_file and not self.duckdb_path.is_file():
            raise GatehouseError(f"no database at {self.duckdb_path}: {LOAD_HINT}")

    def console_extractions(self, timeout_s: Optional[float] = None, known_projects: Sequence[str] = ()) -> dict[str, LastExtraction]:
        """The newest extraction of every console dataset in the database (the single console's and each
        project's), by dataset; {} for a file not made yet."""
        if (self.is_duckdb_file and not self.duckdb_path.is_file()) or not self.serves_views:
            return {}
        with self.reader(timeout_s) as reader:
            return self._extractions(reader, known_projects)

    @staticmethod
    def _extractions(reader: "Reader", known_projects: Sequence[str]) -> dict[str, LastExtraction]:
        """`console_extractions` on a reader already open: the datasets and their extractions on one connection."""
        datasets = _console_datasets(reader.client, known_projects)
        found = {dataset: reader.last_extraction(dataset) for dataset in datasets.values()}
        return {dataset: extraction for dataset, extraction in found.items() if extraction is not None}

    def console_datasets(self, timeout_s: Optional[float] = None, known_projects: Sequence[str] = ()) -> dict[str, str]:
        """The console datasets in the database by project (`default` for the single console's), as the
        views read them; {} for a file not made yet, or files (no SQL reads across their datasets)."""
        if (self.is_duckdb_file and not self.duckdb_path.is_file()) or not self.serves_views:
            return {}
        with self.sql_client(timeout_s) as client:
            return _console_datasets(client, known_projects)

    def last_extraction(self, timeout_s: Optional[float] = None) -> Optional[LastExtraction]:
        """The newest extraction the dataset holds and its console, or None when no run has loaded it."""
        if self.is_duckdb_file and not self.duckdb_path.is_file():
            return None
        with self.reader(timeout_s) as reader:
            return reader.last_extraction()

    # -- the snapshot readers open ----------------------------------------------------------------

    @property
    def snapshot_path(self) -> Path:
        """`gatehouse.duckdb` -> `gatehouse.snapshot.duckdb`, beside it."""
        path = self.duckdb_path
        return path.with_name(f"{path.stem}{SNAPSHOT_SUFFIX}{path.suffix or '.duckdb'}")

    def for_reading(self) -> "Destination":
        """Where a reader should look: on DuckDB the published snapshot (a run never waits for its readers),
        else, before any snapshot exists, the database itself, read-only; a warehouse as it is."""
        if not self.is_duckdb_file:
            return self
        # A snapshot without its database (deleted by hand) is not read: it would answer for data that is gone.
        published = self.snapshot_path.is_file() and self.duckdb_path.is_file()
        path = self.snapshot_path if published else self.duckdb_path
        return Destination(duckdb_path=path, read_only=True, pipeline_name=self.pipeline_name, dataset_name=self.dataset_name)

    def publish_snapshot(self, timeout_s: Optional[float] = None, unless_current: bool = False) -> Optional[Snapshot]:
        """Copies the DuckDB file, checkpointed, to a temporary file, then renames it over the snapshot.

        The rename is atomic: a reader opens the old snapshot or the new one, never half of either, and one
        that holds the old one open keeps reading it (its file stays until closed). Other destinations have
        no snapshot: their readers do not lock out the loader.

        The snapshot takes the database's modification time: `unless_current`, a snapshot of the same size and
        time as a database with nothing pending in its write-ahead log is the database as it is, and is kept.
        """
        if not self.is_duckdb_file:
            return None
        import duckdb

        started = time.monotonic()
        target = self.snapshot_path
        if unless_current and self.snapshot_is_current():
            return Snapshot(target, time.monotonic() - started, target.stat().st_size)
        partial = target.with_name(f".{target.name}.{os.getpid()}.partial")

        def copy() -> None:
            # The open connection keeps every other process from writing while the bytes are copied.
            connection = duckdb.connect(str(self.duckdb_path))
            try:
                connection.execute("checkpoint")
                shutil.copyfile(self.duckdb_path, partial)
                copied = self.duckdb_path.stat()
                os.utime(partial, ns=(copied.st_atime_ns, copied.st_mtime_ns))
            finally:
                connection.close()

        try:
            self.when_free(copy, timeout_s)
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)
        return Snapshot(target, time.monotonic() - started, target.stat().st_size)

    def snapshot_is_current(self) -> bool:
        """The published snapshot is a copy of the database as it is now (see `publish_snapshot`)."""
        try:
            database, snapshot = self.duckdb_path.stat(), self.snapshot_path.stat()
        except OSError:
            return False
        pending = Path(f"{self.duckdb_path}.wal").exists()
        return not pending and (snapshot.st_size, snapshot.st_mtime_ns) == (database.st_size, database.st_mtime_ns)

    # -- the pipeline -----------------------------------------------------------------------------

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
                    log.info("database %s is new: project pipeline %s starts from empty state", self.duckdb_path, self.pipeline_name)
                    shutil.rmtree(own_state)
            else:
                self.forget_removed_database()
            destination: Any = dlt.destinations.duckdb(duckdb_credentials(self.duckdb_path))
        else:
            destination = self.name
            self.adopt_machine_wide_state()
        with self._reaching():
            pipeline = dlt.pipeline(
                pipeline_name=self.pipeline_name,
                destination=destination,
                dataset_name=self.dataset_name,
                pipelines_dir=str(pipelines_dir),
            )
        self._pipeline.append(pipeline)
        return pipeline

    @contextlib.contextmanager
    def _reaching(self) -> Iterator[None]:
        """What dlt raises when a destination cannot be reached from here, as one line that says what to do."""
        try:
            yield
        except UnknownDestinationModule as err:
            raise GatehouseError(
                f"--destination {self.name}: not a dlt destination (e.g. duckdb, motherduck, snowflake,"
                " bigquery, databricks, postgres)"
            ) from err
        except SqlClientNotAvailable as err:
            raise GatehouseError(
                f"destination {self.name} has no SQL client: the views and reports need a SQL destination"
                " (duckdb, postgres, snowflake, bigquery, databricks, motherduck...)"
            ) from err
        except (ConfigFieldMissingException, ConfigurationValueError) as err:
            # credentials are resolved when the client is made: the same line as `gatehouse run` gives
            raise GatehouseError(explain(err)) from err
        except MissingDependencyException as err:
            # dlt imports a driver when the pipeline, its client or its connection first needs it
            extra = DRIVER_EXTRAS.get(self.name, self.name)
            raise GatehouseError(
                f"destination {self.name}: its driver is not installed; pip install \"dlt[{extra}]\" (or gatehouse[{extra}])"
            ) from err

    # -- reaching it with SQL ---------------------------------------------------------------------

    @contextlib.contextmanager
    def sql_client(self, timeout_s: Optional[float] = None) -> Iterator[Any]:
        """dlt's own SQL client for the destination, opened; one-line errors for what cannot be reached.

        A DuckDB file is opened here, through the one bounded wait for a file another program holds, and
        handed to dlt's client; a reader opens it read-only and makes no pipeline folder beside it.
        """
        if self.is_duckdb_file:
            if self.duckdb_path.stem in RESERVED_DUCKDB_NAMES:
                self.pipeline()  # the one line about the file name

            connection = self.when_free(self._connect_duckdb, timeout_s)
            try:
                with duckdb_file_client(connection, self.dataset_name) as client:
                    yield client
            finally:
                connection.close()
            return
        pipeline = self.pipeline()
        with self._reaching():
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
        import duckdb

        try:
            return duckdb.connect(str(self.duckdb_path), read_only=self.read_only)
        except duckdb.Error as err:
            if self.held_by(err) is not None:
                raise  # waited for by when_free
            raise GatehouseError(f"cannot read {self.duckdb_path} as a gatehouse DuckDB database: {first_line(err)}") from err

    def apply_views(self, parameters: Optional[Mapping[str, float]] = None, timeout_s: Optional[float] = None,
                    projects: Optional[Sequence[str]] = None, known_projects: Sequence[str] = (),
                    unless_current: bool = False) -> list[str]:
        """Creates or refreshes every analysis view on the destination, next to the raw dataset, over every
        console dataset beside it (`projects`, `known_projects`, `unless_current`: not when they are already as
        this version makes them over these raw columns; as `models.build.apply_views`)."""
        with self.sql_client(timeout_s) as client:
            # the translated views are kept with the pipeline's state: beside the DuckDB file, else in dlt's folder
            cache = self.working_dir() or Path(self.pipeline().working_dir)
            return views.apply_views(client, parameters=parameters, projects=projects, known_projects=_known(known_projects),
                                     destination_name=self.label(), rendered_cache=cache, unless_current=unless_current)

    @contextlib.contextmanager
    def reader(self, timeout_s: Optional[float] = None) -> Iterator["Reader"]:
        """Reads DuckDB-dialect SQL over the analysis views, translated for the destination."""
        with self.sql_client(timeout_s) as client:
            yield Reader(client)

    # -- guarding it ------------------------------------------------------------------------------

    @contextlib.contextmanager
    def exclusive(self, timeout_s: Optional[float] = None) -> Iterator[None]:
        """One gatehouse run at a time on this pipeline; a second waits, then gives up with one line."""
        timeout_s = lock_timeout(timeout_s)
        self.check_duckdb_path()  # a missing or read-only folder is one line naming it, not the lock file's
        path = self._lock_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a+", encoding="utf-8") as handle:
            started = time.monotonic()
            deadline = started + timeout_s
            announced = False
            holder = ""
            while True:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    if announced:
                        self.waits.add(time.monotonic() - started, f"another gatehouse run ({holder})")
                    break
                except BlockingIOError:
                    holder = _read_holder(handle)
                    if time.monotonic() >= deadline:
                        raise GatehouseError(
                            f"another gatehouse run ({holder}) is loading {self.label()}; waited {timeout_s:.0f} s:"
                            " let it finish, or raise --lock-timeout"
                        ) from None
                    if not announced:
                        log.warning("another gatehouse run (%s) is loading %s: waiting up to %.0f s", holder, self.label(), timeout_s)
                        announced = True
                    time.sleep(LOCK_POLL_S)
            handle.seek(0)
            handle.truncate()
            handle.write(f"PID {os.getpid()}, run from {os.getcwd()}\n")
            handle.flush()
            try:
                yield
            finally:
                handle.seek(0)
                handle.truncate()
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _lock_path(self) -> Path:
        # Beside the pipeline's folder, not in it: a run may remove the folder (a database deleted by
        # hand starts from empty state), and it must do so holding the lock. One lock per project, so
        # that projects load side by side (each one's state is its own).
        working_dir = self.working_dir()
        own = f".{self.pipeline_name}" if self.is_project else ""
        return working_dir.with_name(f"{working_dir.name}{own}.lock")

    def when_free(self, action: Callable[[], T], timeout_s: Optional[float] = None, extracted: bool = False) -> T:
        """Runs `action`, which opens the DuckDB file; while another program holds the file, waits and runs it again.

        The one bounded wait every open of the file goes through (a run's steps, views, report, code-refs,
        the notebooks, `gatehouse sql`): the action itself is retried, so no other program can take the
        file between a check and the open. One warning when the wait starts, one line when it runs out;
        the time waited is kept in `waits`. `extracted`: a run waiting to load what it extracted (the
        line on giving up says it is kept). Other destinations run `action` once.
        """
        started: Optional[float] = None
        holder = ""
        try:
            while True:
                try:
                    return action()
                except Exception as err:
                    found = self.held_by(err) if self.is_duckdb_file else None
                    if found is None:
                        raise
                    holder = found
                    limit = lock_timeout(timeout_s)
                    now = time.monotonic()
                    if started is None:
                        started = now
                        log.warning("%s is held open by %s: waiting up to %.0f s", self.duckdb_path, holder, limit)
                    if now - started >= limit:
                        raise GatehouseError(self.held_message(holder, limit, extracted)) from None
                    time.sleep(LOCK_POLL_S)
        finally:
            if started is not None:
                self.waits.add(time.monotonic() - started, holder)

    def load(self, pipeline: dlt.Pipeline, timeout_s: Optional[float] = None, step: Optional[Callable[[], T]] = None,
             extracted: bool = True) -> T:
        """`pipeline.load()` (or `step`, a dlt step that loads) through the one bounded wait, with a DuckDB file held
        open in this process the whole time: dlt's load jobs each open their own connection, and with the file
        open here they reuse this process's database (DuckDB keeps one per file and process) instead of taking
        the file again, where a reader polling it could hold it between two jobs (dlt then printed its lock
        text and retried the job)."""
        action: Callable[[], Any] = step or pipeline.load

        def holding() -> Any:
            if not self.is_duckdb_file:
                return action()
            with pipeline.sql_client():
                return action()

        return self.when_free(holding, timeout_s, extracted=extracted)

    def held_by(self, err: BaseException) -> Optional[str]:
        """'program (PID n)' when `err`, or what it wraps, is DuckDB refusing a file another process holds."""
        seen: set[int] = set()
        current: Optional[BaseException] = err
        while current is not None and id(current) not in seen:
            seen.add(id(current))
            match = _DUCKDB_HELD.search(str(current))
            if match:
                return f"{match['program']} (PID {match['pid']})"
            current = getattr(current, "exception", None) or current.__cause__ or current.__context__
        return None

    def held_message(self, holder: str, timeout_s: float, extracted: bool = False) -> str:
        # Only a run that has extracted has something kept for later; views, report and code-refs have not.
        kept = "; what was extracted is kept and loads on the next run" if extracted else ""
        return (
            f"{self.duckdb_path} is held open by {holder}; waited {timeout_s:.0f} s: close it there (a notebook or BI"
            f" tool holding the file) and try again, or raise --lock-timeout{kept}"
        )


class Reader:
    """Rows and data frames from DuckDB-dialect SQL, run on the destination in its own dialect."""

    def __init__(self, client: Any) -> None:
        self.client = client

    @property
    def dataset_name(self) -> str:
        """The raw dataset the reader's client was opened on (`console`, or `console_<project>`)."""
        return str(self.client.dataset_name)

    @property
    def dialect(self) -> str:
        return views.destination_dialect(self.client)

    def translate(self, sql: str) -> str:
        return views.render_query(self.client, sql)

    def rows(self, sql: str) -> list[tuple]:
        """Rows as DuckDB gives them: instants in UTC whatever the warehouse session's time zone."""
        with self.client.execute_query(self.translate(sql)) as cursor:
            return [tuple(_in_utc(value) for value in row) for row in cursor.fetchall()]

    def frame(self, sql: str) -> Any:
        with self.client.execute_query(self.translate(sql)) as cursor:
            return _same_dtypes(cursor.df())

    def table(self, sql: str, translate: bool = True) -> tuple[list[str], list[tuple]]:
        """Column names and rows, for a query whose columns are not known in advance (`translate=False`: SQL
        already in the destination's own dialect)."""
        with self.client.execute_query(self.translate(sql) if translate else sql) as cursor:
            names = [column[0] for column in cursor.description or ()]
            return names, [tuple(_in_utc(value) for value in row) for row in cursor.fetchall()]

    def last_extraction(self, dataset: Optional[str] = None) -> Optional[LastExtraction]:
        """The raw dataset's (or `dataset`'s) newest `extraction_runs` row (None: no run has loaded it).

        Read as `select *`: a dataset loaded before consoles were recorded has no identity columns, and
        the extraction_runs table exists only once a run has loaded.
        """
        try:
            names, rows = self.table(f"select * from {dataset or self.dataset_name}.extraction_runs order by started_at desc limit 1")
        except DatabaseUndefinedRelation:
            return None
        if not rows:
            return None
        row = dict(zip(names, rows[0]))
        base_url = row.get("console_base_url")
        console = ConsoleIdentity(base_url, row.get("console_key_fingerprint")) if base_url else None
        return LastExtraction(row.get("service_time") or row.get("started_at"), console)


def _console_datasets(client: Any, known_projects: Sequence[str]) -> dict[str, str]:
    return {str(raw.project): raw.dataset for raw in views.raw_tables(client, _known(known_projects)).projects}


def _in_utc(value: Any) -> Any:
    tzinfo = getattr(value, "tzinfo", None)
    return value.astimezone(timezone.utc) if tzinfo is not None and hasattr(value, "astimezone") else value


def _same_dtypes(frame: Any) -> Any:
    """The frame a DuckDB read gives, from any driver: instants as UTC datetimes, numerics as floats.

    Drivers other than DuckDB's hand dlt Python objects (datetimes with a fixed offset, `Decimal`s),
    which pandas keeps as `object` columns; the notebooks' `.dt` and arithmetic need real dtypes.
    """
    import datetime as dt
    from decimal import Decimal

    import pandas as pd

    for column in frame.columns:
        series = frame[column]
        if series.dtype != object:
            if isinstance(series.dtype, pd.DatetimeTZDtype):
                frame[column] = series.dt.tz_convert("UTC")
            continue
        values = series.dropna()
        if values.empty:
            continue
        if all(isinstance(v, dt.date) for v in values):  # dates too: DuckDB's reads give them as datetime64
            frame[column] = pd.to_datetime(series, utc=any(getattr(v, "tzinfo", None) is not None for v in values))
        elif all(isinstance(v, Decimal) for v in values):
            frame[column] = series.astype(float)
    return frame


def lock_timeout(timeout_s: Optional[float] = None) -> float:
    """--lock-timeout when given, else the `gatehouse.lock_timeout` setting, else the default."""
    # nan would make the deadline unreachable (a run waiting for ever on a held file); inf waits for ever on purpose
    if timeout_s is not None:
        if not float(timeout_s) >= 0:
            raise GatehouseError(f"--lock-timeout {timeout_s:g}: give 0 or more seconds")
        return float(timeout_s)
    return seconds_setting(LOCK_TIMEOUT_SETTING, DEFAULT_LOCK_TIMEOUT_S, zero_allowed=True)


def _read_holder(handle: Any) -> str:
    handle.seek(0)
    text = handle.read().strip()
    return text or "PID unknown"


@contextlib.contextmanager
def duckdb_file_client(database: str | Path | Any, dataset: str = DATASET_NAME) -> Iterator[Any]:
    """dlt's SQL client over a DuckDB file path or an open DuckDB connection, raw dataset `dataset`."""
    from dlt.common.configuration import resolve_configuration
    from dlt.destinations.impl.duckdb.configuration import DuckDbCredentials
    from dlt.destinations.exceptions import DestinationConnectionError
    from dlt.destinations.impl.duckdb.sql_client import DuckDbSqlClient

    credentials = resolve_configuration(DuckDbCredentials(str(database) if isinstance(database, Path) else database))
    client = DuckDbSqlClient(dataset, f"{dataset}_staging", credentials, dlt.destinations.duckdb().capabilities())
    try:
        client.open_connection()
    except DestinationConnectionError as error:
        # as duckdb.connect would: DuckDB's own error about the file (not a database, locked, ...)
        raise (error.inner_exc if isinstance(error.inner_exc, Exception) else error) from None
    try:
        yield client
    finally:
        client.close_connection()


def duckdb_credentials(path: Path) -> Any:
    """dlt's DuckDB credentials for a file, made without parsing the path as a connection string.

    dlt parses a string with SQLAlchemy's URL parser when SQLAlchemy is installed, importing it for that
    alone: 0.1 s of every run before its first request (large twin, no-change rerun), and nothing else in
    a run needs it. The fields are the same either way, and config (`global_config`...) still resolves.

    The path is made absolute here, from the folder the command runs in: dlt would resolve a relative one against
    the folder the pipeline's first run started in (kept in its state), and load into another file than the one
    named (run from a subfolder, or from a copy of the project's folder).
    """
    from dlt.destinations.impl.duckdb.configuration import DuckDbCredentials

    credentials = DuckDbCredentials()
    credentials.database = os.path.abspath(path)
    return credentials


def database_of(path: Path) -> Path:
    """The database a readers' snapshot was published from (`x.snapshot.duckdb` -> `x.duckdb`); else the path."""
    suffix = f"{SNAPSHOT_SUFFIX}{path.suffix}"
    return path.with_name(path.name[: -len(suffix)] + path.suffix) if path.name.endswith(suffix) else path


def apply_views(target: Any, **options: Any) -> list[str]:
    """The views on dlt's SQL client of a destination, or on a DuckDB file path or open connection
    (`options` as `models.build.apply_views`: parameters, projects, known_projects, destination_name, rendered_cache)."""
    if isinstance(target, SqlClientBase):
        return views.apply_views(target, **options)
    with duckdb_file_client(target) as client:
        return views.apply_views(client, **options)


def _known(known_projects: Sequence[str]) -> list[str]:
    """The projects whose datasets are looked up one by one (BigQuery): those named, and every configured one."""
    return sorted(set(known_projects) | set(configured_projects()))
