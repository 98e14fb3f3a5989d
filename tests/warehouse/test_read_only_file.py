"""A DuckDB file that cannot be written (a read-only mount): `gatehouse report` reads it as it is when it holds this
version's views, and otherwise says in one line why it cannot and what to do; the file is never changed.

The folder is made read-only the way the user has it: a read-only bind mount when the tests run as root (root
writes through a folder's permissions), else the folder's and the file's write permissions taken away."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from gatehouse.pipelines.cli.main import main
from tests.drills.conftest import error_lines


@pytest.fixture
def read_only_copy(console_db, tmp_path) -> Iterator[tuple[Path, Path]]:
    """(the hand-built console in a folder this process cannot write, the same file where the test can change it)."""
    source = tmp_path / "source"
    source.mkdir()
    writable = source / "gatehouse.duckdb"
    shutil.copyfile(console_db, writable)
    if os.geteuid() != 0:
        writable.chmod(0o444)
        source.chmod(0o555)
        try:
            yield writable, writable
        finally:
            source.chmod(0o755)
            writable.chmod(0o644)
        return
    mounted = tmp_path / "ro"
    mounted.mkdir()
    mount = subprocess.run(["mount", "--bind", str(source), str(mounted)], capture_output=True)
    if mount.returncode != 0:
        pytest.skip(f"running as root without a read-only mount to test on: {mount.stderr.decode().strip()}")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(mounted)], check=True, capture_output=True)
        yield mounted / "gatehouse.duckdb", writable
    finally:
        subprocess.run(["umount", str(mounted)], check=True)


def refused(database: Path, why: str) -> list[str]:
    return [
        f"gatehouse: error: {database} cannot be written and {why}: run `gatehouse views --duckdb {database}` where"
        " the file can be written, or give a writable copy of it; nothing was written"
    ]


def test_a_report_reads_a_file_it_cannot_write_when_its_views_are_current(read_only_copy, tmp_path, capsys):
    database, _ = read_only_copy
    before = database.read_bytes()
    out = tmp_path / "reports"
    assert main(["report", "--duckdb", str(database), "--out", str(out)]) == 0, capsys.readouterr().err
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"gatehouse report: {database}, as of 2026-11-20 12:00 UTC"
    assert lines[-5:] == [
        "reports:",
        *(f"  {out / name}" for name in ("stale_gates.html", "exposure_growth.html", "ingestion_health.html", "stale_gates.csv")),
    ]
    assert sorted(path.name for path in out.iterdir()) == [
        "exposure_growth.html",
        "ingestion_health.html",
        "stale_gates.csv",
        "stale_gates.html",
    ]
    assert database.read_bytes() == before
    assert sorted(path.name for path in database.parent.iterdir()) == ["gatehouse.duckdb"]


def test_views_older_than_this_version_are_one_line(read_only_copy, tmp_path, capsys):
    database, writable = read_only_copy
    if writable == database:
        os.chmod(database.parent, 0o755), os.chmod(database, 0o644)
    with duckdb.connect(str(writable)) as connection:
        connection.execute("drop view analytics.applied_views")  # as a version before this one left them
    if writable == database:
        os.chmod(database, 0o444), os.chmod(database.parent, 0o555)
    assert main(["report", "--duckdb", str(database), "--out", str(tmp_path / "reports")]) == 2
    assert error_lines(capsys.readouterr().err) == refused(database, "its analysis views are not this version's over its tables")
    assert not (tmp_path / "reports").exists()


def test_a_snapshot_older_than_the_database_is_one_line(read_only_copy, tmp_path, capsys):
    database, writable = read_only_copy
    if writable == database:
        os.chmod(database.parent, 0o755)
    snapshot = writable.with_name("gatehouse.snapshot.duckdb")
    shutil.copyfile(writable, snapshot)  # a copy, not published: its time is not the database's
    if writable == database:
        os.chmod(database.parent, 0o555)
    assert main(["report", "--duckdb", str(database), "--out", str(tmp_path / "reports")]) == 2
    assert error_lines(capsys.readouterr().err) == refused(database, "its snapshot gatehouse.snapshot.duckdb is older than it")
