"""A relative `--duckdb` path is the file it names from where the command runs, whatever folder an earlier run of
the same database ran from (dlt resolves a relative path against the folder its first run started in)."""

from __future__ import annotations

import duckdb

from gatehouse.pipelines.cli.main import main


def runs_of_web(path) -> int:
    with duckdb.connect(str(path), read_only=True) as connection:
        return connection.sql("select count(*) from console_web.extraction_runs").fetchall()[0][0]


def test_a_relative_path_names_the_file_from_where_the_command_runs(tmp_path, monkeypatch):
    (tmp_path / "srv" / "gh").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "srv")
    assert main(["run", "--demo", "--duckdb", "gh/flags.duckdb", "--no-progress"]) == 0
    monkeypatch.chdir(tmp_path / "srv" / "gh")
    assert main(["run", "--demo", "--duckdb", "flags.duckdb", "--no-progress"]) == 0
    assert not (tmp_path / "srv" / "flags.duckdb").exists(), "a stray database where the first run started"
    assert runs_of_web(tmp_path / "srv" / "gh" / "flags.duckdb") == 2
