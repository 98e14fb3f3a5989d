"""What a new user meets in the first hour outside the demo: a mistyped or read-only folder, a closed pipe, a failed
first run, the version; each one line, nothing lost, nothing left behind."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gatehouse.pipelines.cli.main import main
from tests.drills.conftest import clean_environment, error_lines, make_twin


def test_a_missing_folder_is_refused_in_one_line_unless_asked_to_make_it(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--demo", "--duckdb", "no/such/dir/flags.duckdb", "--no-progress"]) == 2
    assert error_lines(capsys.readouterr().err) == [
        f"gatehouse: error: --duckdb no/such/dir/flags.duckdb: the folder {tmp_path}/no/such/dir does not exist;"
        " check the path, or pass --create-dirs to make it"
    ]
    assert not (tmp_path / "no").exists()


def test_a_read_only_folder_is_refused_before_the_lock_file(tmp_path, capsys, monkeypatch):
    # root may write anywhere, so the permission is what os.access says: the check asks nothing else
    folder = tmp_path / "locked"
    folder.mkdir()
    monkeypatch.setattr(os, "access", lambda path, mode: Path(path) != folder)
    assert main(["run", "--demo", "--duckdb", str(folder / "flags.duckdb"), "--no-progress"]) == 2
    assert error_lines(capsys.readouterr().err) == [
        f"gatehouse: error: --duckdb {folder}/flags.duckdb: the folder {folder} is not writable; choose a folder you"
        " can write to, or give yourself write permission on it"
    ]
    assert list(folder.iterdir()) == [], "no lock file, no database"


def test_a_first_run_that_fails_leaves_no_empty_database(tmp_path, capsys, monkeypatch):
    twin = make_twin()
    monkeypatch.chdir(tmp_path)
    with twin.serve() as base_url:
        monkeypatch.setenv("SOURCES__CONSOLE__BASE_URL", base_url)
        monkeypatch.setenv("SOURCES__CONSOLE__API_KEY", "console-wrong-key-for-the-twin")
        assert main(["run", "--duckdb", "flags.duckdb", "--no-progress"]) == 2
    assert not (tmp_path / "flags.duckdb").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["sql", "--format", "csv", "select * from range(100000)"],
        ["sql", "select * from range(100000)"],
    ],
    ids=["sql csv", "sql table"],
)
def test_a_reader_closing_the_pipe_ends_the_command_quietly(console_db, argv):
    command = f"{sys.executable} -m gatehouse.pipelines.cli {' '.join(argv[:-1])} --duckdb {console_db} '{argv[-1]}' | head -1"
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True, timeout=120, env=clean_environment()
    )
    assert done.stderr == "" and done.returncode == 0, done.stderr[-2000:]
    assert len(done.stdout.splitlines()) == 1


def test_the_version_is_the_installed_distributions(capsys):
    with pytest.raises(SystemExit) as shown:
        main(["--version"])
    assert shown.value.code == 0
    from importlib.metadata import version

    assert capsys.readouterr().out == f"gatehouse {version('gatehouse-console')}\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["sql", "--destination", "postgres", "select 1"],
        ["run", "--destination", "postgres", "--no-progress"],
    ],
    ids=["sql", "run"],
)
def test_a_connection_string_of_the_wrong_form_is_one_line_that_never_shows_it(argv, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DESTINATION__POSTGRES__CREDENTIALS", "gatehouse:S3cretPW@127.0.0.1:5432/gh")  # no scheme
    monkeypatch.setenv("SOURCES__CONSOLE__BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("SOURCES__CONSOLE__API_KEY", "console-key-for-no-console")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert error_lines(err) == [
        "gatehouse: error: destination.postgres.credentials (DESTINATION__POSTGRES__CREDENTIALS): its value cannot be"
        " read as PostgresCredentials (the value is not shown); write it as postgresql://user:password@host:5432/database,"
        " or as its fields in .dlt/secrets.toml"
    ]
    assert "S3cretPW" not in err and "Traceback" not in err


def test_ctrl_c_during_a_run_is_said_as_interrupted_not_as_a_failure(tmp_path, capsys, monkeypatch):
    import signal

    from gatehouse.pipelines.run import steps
    from gatehouse.sources.console.errors import ConsoleError

    def interrupted(*args, **kwargs):
        # what Ctrl-C does while dlt extracts: each step takes the signal as a request to stop (its handler set
        # over the step), then fails with whatever the stop broke
        from dlt.common.runtime import signals

        with signals.intercepted_signals():
            signal.raise_signal(signal.SIGINT)
            raise ConsoleError("generator already executing")

    monkeypatch.setattr(steps.Run, "extract", interrupted)
    twin = make_twin()
    monkeypatch.chdir(tmp_path)
    # Python's own handler, as a terminal's command starts with (pytest started in the background inherits SIGINT
    # ignored instead)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with twin.serve() as base_url:
            monkeypatch.setenv("SOURCES__CONSOLE__BASE_URL", base_url)
            monkeypatch.setenv("SOURCES__CONSOLE__API_KEY", twin.settings.api_key)
            assert main(["run", "--duckdb", "flags.duckdb", "--no-progress"]) == 130
        handler_after = signal.getsignal(signal.SIGINT)
    finally:
        signal.signal(signal.SIGINT, before)
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == "gatehouse: interrupted" and "error" not in err
    assert handler_after is signal.default_int_handler  # the command's own handler is back
