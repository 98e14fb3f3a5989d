"""The run lock: one gatehouse run at a time per pipeline, one writer at a time per DuckDB file in this process,
and the one bounded wait for a DuckDB file another program holds (`when_free`, `--lock-timeout`), the time
waited kept apart from the command's own work (`Waits`)."""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.settings import DEFAULT_LOCK_TIMEOUT_S, seconds_setting

log = logging.getLogger("gatehouse.destination")

LOCK_TIMEOUT_SETTING = "gatehouse.lock_timeout"  # [gatehouse] lock_timeout = 600, or GATEHOUSE__LOCK_TIMEOUT
# Short: a BI tool that polls the file leaves gaps of a fraction of a second, and a wait must not miss them all.
LOCK_POLL_S = 0.1
# DuckDB's words for a file another process holds: `... Conflicting lock is held in /usr/bin/python3 (PID 42) ...`.
_DUCKDB_HELD = re.compile(r"Conflicting lock is held in (?P<program>.+?) \(PID (?P<pid>\d+)\)")
# One writer lock per DuckDB file for the runs of this process (RunLock.writing).
_WRITERS: dict[Path, threading.Lock] = {}
_WRITERS_GUARD = threading.Lock()
T = TypeVar("T")


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
class RunLock:
    """What keeps one destination's writers apart and waits for its DuckDB file (`Destination.lock`)."""

    # How output names the destination (never a credential).
    label: str
    # The DuckDB file every open waits for; None for other destinations, which run each open once.
    duckdb_file: Path | None
    waits: Waits
    # Where the run lock is kept; asked only when a run takes the lock (it checks the file's folder first).
    lock_file: Callable[[], Path]

    @contextlib.contextmanager
    def exclusive(self, timeout_s: float | None = None) -> Iterator[None]:
        """One gatehouse run at a time on this pipeline; a second waits, then gives up with one line."""
        timeout_s = lock_timeout(timeout_s)
        path = self.lock_file()
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a+", encoding="utf-8") as handle:
            self._take(handle, timeout_s)
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

    def _take(self, handle: Any, timeout_s: float) -> None:
        started = time.monotonic()
        deadline = started + timeout_s
        announced = False
        holder = ""
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                if announced:
                    self.waits.add(time.monotonic() - started, f"another gatehouse run ({holder})")
                return
            except BlockingIOError:
                holder = _read_holder(handle)
                if time.monotonic() >= deadline:
                    raise GatehouseError(
                        f"another gatehouse run ({holder}) is loading {self.label}; waited {timeout_s:.0f} s:"
                        " let it finish, or raise --lock-timeout"
                    ) from None
                if not announced:
                    log.warning("another gatehouse run (%s) is loading %s: waiting up to %.0f s", holder, self.label, timeout_s)
                    announced = True
                time.sleep(LOCK_POLL_S)

    def writing(self) -> contextlib.AbstractContextManager[Any]:
        """Held while a run normalises and loads: projects loading side by side in this process write
        a DuckDB file one at a time (one writer per file; other destinations take them together)."""
        if self.duckdb_file is None:
            return contextlib.nullcontext()
        with _WRITERS_GUARD:
            return _WRITERS.setdefault(self.duckdb_file.resolve(), threading.Lock())

    def when_free(self, action: Callable[[], T], timeout_s: float | None = None, extracted: bool = False) -> T:
        """Runs `action`, which opens the DuckDB file; while another program holds the file, waits and runs it again.

        The one bounded wait every open of the file goes through (a run's steps, views, report, code-refs,
        the notebooks, `gatehouse sql`): the action itself is retried, so no other program can take the
        file between a check and the open. One warning when the wait starts, one line when it runs out;
        the time waited is kept in `waits`. `extracted`: a run waiting to load what it extracted (the
        line on giving up says it is kept). Other destinations run `action` once.
        """
        started: float | None = None
        holder = ""
        try:
            while True:
                try:
                    return action()
                except Exception as err:
                    found = held_by(err) if self.duckdb_file is not None else None
                    if found is None:
                        raise
                    holder = found
                    limit = lock_timeout(timeout_s)
                    now = time.monotonic()
                    if started is None:
                        started = now
                        log.warning("%s is held open by %s: waiting up to %.0f s", self.duckdb_file, holder, limit)
                    if now - started >= limit:
                        raise GatehouseError(self.held_message(holder, limit, extracted)) from None
                    time.sleep(LOCK_POLL_S)
        finally:
            if started is not None:
                self.waits.add(time.monotonic() - started, holder)

    def held_message(self, holder: str, timeout_s: float, extracted: bool = False) -> str:
        # Only a run that has extracted has something kept for later; views, report and code-refs have not.
        kept = "; what was extracted is kept and loads on the next run" if extracted else ""
        return (
            f"{self.duckdb_file} is held open by {holder}; waited {timeout_s:.0f} s: close it there (a notebook or BI"
            f" tool holding the file) and try again, or raise --lock-timeout{kept}"
        )


def held_by(err: BaseException) -> str | None:
    """'program (PID n)' when `err`, or what it wraps, is DuckDB refusing a file another process holds."""
    seen: set[int] = set()
    current: BaseException | None = err
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        match = _DUCKDB_HELD.search(str(current))
        if match:
            return f"{match['program']} (PID {match['pid']})"
        current = getattr(current, "exception", None) or current.__cause__ or current.__context__
    return None


def lock_timeout(timeout_s: float | None = None) -> float:
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
