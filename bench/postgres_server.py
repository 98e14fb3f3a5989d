"""A real PostgreSQL server from the `pgserver` wheel's binaries: no root, no system package, no network.

Used by the tests (tests/conftest.py) and by bench.analysis_layer: it lives in bench/ because tests may
import bench, while nothing outside tests/ imports tests.

One server per test session (or bench run), on 127.0.0.1 and a free port, with password authentication
(the way a team's warehouse is reached), its data in a temporary folder that goes with it. Each user of
the server asks for a database of its own, so tests never share a schema.

PostgreSQL refuses to run as root. Run as root (as here and in CI), the server runs as the dedicated
system user that `pgserver` itself creates and uses for that case (`pgserver`), with the same helpers
`pgserver` uses to let that user reach the binaries and the data folder.
"""

from __future__ import annotations

import fcntl
import logging
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import warnings
from pathlib import Path
from urllib.parse import quote

log = logging.getLogger("bench.postgres")

SYSTEM_USER_AS_ROOT = "pgserver"
SUPERUSER = "gatehouse"
START_TIMEOUT_S = 60


def _pgserver_bin() -> Path:
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset (CI): pgserver's import asks for it, we do not use it
        warnings.simplefilter("ignore")
        import pgserver

    return Path(pgserver.__file__).resolve().parent / "pginstall" / "bin"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PostgresServer:
    """`start()`, then `database(name)` for the credentials of a fresh database, `stop()` at the end."""

    def __init__(self, timezone: str = "UTC") -> None:
        self.timezone = timezone
        self.password = secrets.token_urlsafe(16)
        self.port: int | None = None
        self._root: Path | None = None
        self._user: str | None = None

    @property
    def pgdata(self) -> Path:
        assert self._root is not None
        return self._root / "pgdata"

    def start(self) -> PostgresServer:
        binaries = _pgserver_bin()
        self._root = Path(tempfile.mkdtemp(prefix="gatehouse-pg-"))
        if os.geteuid() == 0:
            self._prepare_system_user(binaries)
        password_file = self._root / "password"
        password_file.write_text(self.password)
        self._chown(password_file)
        self._pg(
            binaries / "initdb",
            "-D",
            str(self.pgdata),
            "-U",
            SUPERUSER,
            f"--pwfile={password_file}",
            "--auth=scram-sha-256",
            "--encoding=UTF8",
            "--locale=C",
        )
        password_file.unlink()
        self.port = _free_port()
        options = (
            f"-h 127.0.0.1 -p {self.port} -k {self._root} -c timezone={self.timezone}"
            # a throwaway server: durability costs time and buys nothing
            " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        self._pg(
            binaries / "pg_ctl",
            "-D",
            str(self.pgdata),
            "-w",
            "-t",
            str(START_TIMEOUT_S),
            "-l",
            str(self._root / "log"),
            "-o",
            options,
            "start",
        )
        log.info("postgres on 127.0.0.1:%s (data in %s)", self.port, self.pgdata)
        return self

    def stop(self) -> None:
        if self._root is None:
            return
        try:
            if (self.pgdata / "postmaster.pid").exists():
                self._pg(_pgserver_bin() / "pg_ctl", "-D", str(self.pgdata), "-w", "-m", "fast", "stop")
        finally:
            shutil.rmtree(self._root, ignore_errors=True)
            self._root = None

    def credentials(self, database: str = "postgres") -> str:
        """A dlt `postgres` connection string for `database` on this server."""
        return f"postgresql://{SUPERUSER}:{quote(self.password, safe='')}@127.0.0.1:{self.port}/{database}"

    def database(self, name: str, template: str | None = None) -> str:
        """Creates database `name` (dropped first if a previous use left it) and returns its credentials.
        `template`: a copy of that database of this server (no one may be connected to it), made by the server
        itself, instead of an empty one."""
        import psycopg2

        connection = psycopg2.connect(self.credentials())
        try:
            connection.autocommit = True  # create database cannot run in a transaction
            with connection.cursor() as cursor:
                cursor.execute(f'drop database if exists "{name}"')
                cursor.execute(f'create database "{name}"' + (f' template "{template}"' if template else ""))
        finally:
            connection.close()
        return self.credentials(name)

    def log_tail(self, lines: int = 20) -> str:
        log_file = self._root / "log" if self._root else None
        if log_file is None or not log_file.exists():
            return ""
        return "\n".join(log_file.read_text(errors="replace").splitlines()[-lines:])

    def _prepare_system_user(self, binaries: Path) -> None:
        import stat

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from pgserver.utils import ensure_folder_permissions, ensure_prefix_permissions, ensure_user_exists

        # Each pytest-xdist worker starts a server: one creates the user and opens the binaries at a time
        # (two `useradd` at once, the second fails).
        with open(Path(tempfile.gettempdir()) / "gatehouse-pgserver-user.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            ensure_user_exists(SYSTEM_USER_AS_ROOT)
            # the user must traverse to the binaries and read their libraries, and own the data folder
            ensure_prefix_permissions(binaries)
            readable = stat.S_IRGRP | stat.S_IROTH
            ensure_folder_permissions(binaries, readable | stat.S_IXGRP | stat.S_IXOTH)
            ensure_folder_permissions(binaries.parent / "lib", readable)
        self._user = SYSTEM_USER_AS_ROOT
        ensure_prefix_permissions(self._root)
        self._chown(self._root)

    def _chown(self, path: Path) -> None:
        if self._user is not None:
            shutil.chown(path, self._user, self._user)

    def _pg(self, executable: Path, *args: str) -> None:
        result = subprocess.run(
            [str(executable), *args], capture_output=True, text=True, user=self._user, timeout=START_TIMEOUT_S + 30
        )
        if result.returncode != 0:
            raise RuntimeError(
                f"{executable.name} failed ({result.returncode}):"
                f" {result.stderr.strip() or result.stdout.strip()}\n{self.log_tail()}"
            )
