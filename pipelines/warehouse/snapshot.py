"""The readers' snapshot: the read-only copy of a DuckDB file published beside it after each good run, what
analysts' tools and the reports open so that a run never waits for its readers."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from gatehouse.pipelines.warehouse.duckdb_file import checkpointed_copy
from gatehouse.pipelines.warehouse.lock import RunLock

SNAPSHOT_SUFFIX = ".snapshot"


@dataclass(frozen=True)
class Published:
    """A snapshot as a run published it (or found it current): where, how long it took, its size."""

    path: Path
    seconds: float
    size_bytes: int


@dataclass(frozen=True)
class ReadersSnapshot:
    """The snapshot of one DuckDB file (`Destination.snapshot`); other destinations have none: their readers do not
    lock out the loader."""

    database: Path
    # the file's lock: the copy opens the database through its one bounded wait
    lock: RunLock
    # False for a destination other than a DuckDB file: nothing is published
    kept: bool = True

    @property
    def path(self) -> Path:
        """`gatehouse.duckdb` -> `gatehouse.snapshot.duckdb`, beside it."""
        return self.database.with_name(f"{self.database.stem}{SNAPSHOT_SUFFIX}{self.database.suffix or '.duckdb'}")

    def publish(self, timeout_s: float | None = None, unless_current: bool = False) -> Published | None:
        """Copies the DuckDB file, checkpointed, to a temporary file, then renames it over the snapshot.

        The rename is atomic: a reader opens the old snapshot or the new one, never half of either, and one
        that holds the old one open keeps reading it (its file stays until closed).

        The snapshot takes the database's modification time: `unless_current`, a snapshot of the same size and
        time as a database with nothing pending in its write-ahead log is the database as it is, and is kept.
        """
        if not self.kept:
            return None
        started = time.monotonic()
        target = self.path
        if unless_current and self.is_current():
            return Published(target, time.monotonic() - started, target.stat().st_size)
        partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
        try:
            self.lock.when_free(lambda: checkpointed_copy(self.database, partial), timeout_s)
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)
        return Published(target, time.monotonic() - started, target.stat().st_size)

    def is_current(self) -> bool:
        """The published snapshot is a copy of the database as it is now (see `publish`)."""
        try:
            database, snapshot = self.database.stat(), self.path.stat()
        except OSError:
            return False
        pending = Path(f"{self.database}.wal").exists()
        return not pending and (snapshot.st_size, snapshot.st_mtime_ns) == (database.st_size, database.st_mtime_ns)


def database_of(path: Path) -> Path:
    """The database a readers' snapshot was published from (`x.snapshot.duckdb` -> `x.duckdb`); else the path."""
    suffix = f"{SNAPSHOT_SUFFIX}{path.suffix}"
    return path.with_name(path.name[: -len(suffix)] + path.suffix) if path.name.endswith(suffix) else path
