"""What a user types wrong on the command line: one line on standard error, exit 2, before anything is opened or
read; the value after an option no command knows is never quoted (it may be a secret)."""

from __future__ import annotations

import pytest

from gatehouse.pipelines.cli.main import main


def refused(capsys: pytest.CaptureFixture, argv: list[str]) -> list[str]:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    return capsys.readouterr().err.splitlines()


@pytest.mark.parametrize(
    "argv, line",
    [
        # an empty value (an unset variable in a script) is not the default: it names nothing
        (["run", "--duckdb", ""], "gatehouse run: error: argument --duckdb: must not be empty"),
        (["views", "--destination", " "], "gatehouse views: error: argument --destination: must not be empty"),
        (["run", "--resources", ""], "gatehouse run: error: argument --resources: must not be empty"),
        (["report", "--out", ""], "gatehouse report: error: argument --out: must not be empty"),
        (["code-refs", ".", "--branch", ""], "gatehouse code-refs: error: argument --branch: must not be empty"),
        # every command that waits for the database checks its wait the same way, when it starts
        (["views", "--lock-timeout", "-5"],
         "gatehouse views: error: argument --lock-timeout: expected 0 or more seconds, got '-5'"),
        (["sql", "select 1", "--lock-timeout", "nan"],
         "gatehouse sql: error: argument --lock-timeout: expected 0 or more seconds, got 'nan'"),
        (["views", "--lock-timeout", "abc"],
         "gatehouse views: error: argument --lock-timeout: expected 0 or more seconds, got 'abc'"),
        # argparse's usage lines are not printed above it: the line says what is wrong
        (["views", "--sett", "stall_days=5"],
         "gatehouse: error: unrecognized arguments: --sett (and 1 word after them, not shown)"),
        (["run", "--kee=hunter2-secret"], "gatehouse: error: unrecognized arguments: --kee (and 1 word after them, not shown)"),
    ],
)  # fmt: skip
def test_a_bad_flag_is_one_line_and_exit_2(capsys, tmp_path, monkeypatch, argv, line):
    monkeypatch.chdir(tmp_path)
    assert refused(capsys, argv) == [line]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("option", ["--key", "--auth", "--pwd", "--bearer", "--auth-header", "--sshKey"])
def test_an_option_named_like_a_secret_is_refused_without_its_value(capsys, tmp_path, monkeypatch, option):
    monkeypatch.chdir(tmp_path)
    assert main(["run", option, "hunter2-secret"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"gatehouse: error: {option} is not accepted: secrets are never taken from the command line")
    assert "hunter2" not in line


def test_the_lock_timeout_setting_is_checked_by_every_command_that_may_wait(capsys, tmp_path, monkeypatch):
    # read only when a wait came before: `views` and `gates snoozes` took any value while `run` refused it
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GATEHOUSE__LOCK_TIMEOUT", "abc")
    for argv in (["views"], ["gates", "snoozes"]):
        assert main(argv) == 2
        assert capsys.readouterr().err.splitlines() == [
            "gatehouse: error: gatehouse.lock_timeout must be a number of seconds, not 'abc'"
        ]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "argv",
    [["sql", "select 1"], ["views"], ["alerts", "--dry-run"], ["gates", "snoozes"], ["run", "--demo"]],
    ids=["sql", "views", "alerts", "gates", "run"],
)
def test_a_database_another_program_made_is_one_line_and_left_as_it_was(capsys, tmp_path, monkeypatch, argv):
    # gatehouse's table names, not its columns: a traceback from the database's binder before
    import duckdb

    monkeypatch.chdir(tmp_path)
    database = tmp_path / "other.duckdb"
    with duckdb.connect(str(database)) as connection:
        connection.execute(
            "create schema console; create table console.extraction_runs (x int); insert into console.extraction_runs values (1)"
        )
    assert main([*argv, "--duckdb", str(database)]) == 2
    err = capsys.readouterr().err
    line = err.splitlines()[-1]  # the demo's run says first where its twins are
    assert "Traceback" not in err
    assert line.startswith(f"gatehouse: error: cannot read the console data from {database}: Binder Error: Referenced column")
    assert line.endswith("; nothing was written")
    with duckdb.connect(str(database), read_only=True) as connection:
        tables = connection.execute("select table_schema, table_name from information_schema.tables").fetchall()
    assert tables == [("console", "extraction_runs")]
