"""The log level a user sets for dlt (`RUNTIME__LOG_LEVEL`, as a scheduled job does) is gatehouse's own too: at WARNING
or above a command that succeeds writes nothing on stderr, and its result (a summary, on stdout) is unchanged; unset,
gatehouse's progress lines (INFO) show as they always did, and `-v`/`-vv` still ask for more whatever the setting."""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from gatehouse.pipelines.cli.main import main
from gatehouse.pipelines.logs import DLT_LOG_LEVEL, DLT_LOG_LEVEL_DEFAULTED, configure_logging
from tests.drills.forked_commands import ForkedCommands
from tests.secret_scan import CommandOutput

PROGRESS = " INFO gatehouse.views: "  # `gatehouse views`: "applied 51 views on ..." or "the 51 views on ... are current"
RESULT = "views in schema analytics"  # its result, on stdout: "gatehouse: <database>: 51 views in schema analytics"


@pytest.fixture(autouse=True)
def logging_restored(monkeypatch):
    """No level from the session (console_db sets RUNTIME__LOG_LEVEL=ERROR for dlt's warnings): each test says its own.
    What configure_logging() sets up (a root handler on this test's stderr, the levels) is undone after the test."""
    for name in (DLT_LOG_LEVEL, DLT_LOG_LEVEL_DEFAULTED):
        monkeypatch.delenv(name, raising=False)
    loggers = [logging.getLogger(name) for name in ("", "gatehouse", "httpx")]
    saved = [(list(logger.handlers), logger.level) for logger in loggers]
    yield
    for logger, (handlers, level) in zip(loggers, saved):
        logger.handlers[:], logger.level = handlers, level


def logged(capsys, verbosity: int = 0) -> list[str]:
    """The lines on stderr after configure_logging(verbosity): a progress line, a warning, and a source's INFO line."""
    capsys.readouterr()
    configure_logging(verbosity)
    logging.getLogger("gatehouse.views").info("applied 51 views")
    logging.getLogger("gatehouse.views").warning("no loaded dataset for project(s) web yet")
    logging.getLogger("sources.console").info("412 items")
    return [line.split(" ", 1)[1] for line in capsys.readouterr().err.splitlines()]  # without the time


PROGRESS_LINE = "INFO gatehouse.views: applied 51 views"
WARNING_LINE = "WARNING gatehouse.views: no loaded dataset for project(s) web yet"
SOURCE_LINE = "INFO sources.console: 412 items"


@pytest.mark.parametrize(
    ("level", "verbosity", "lines"),
    [
        pytest.param(None, 0, [PROGRESS_LINE, WARNING_LINE], id="unset"),  # gatehouse's default, unchanged
        pytest.param("WARNING", 0, [WARNING_LINE], id="WARNING"),
        pytest.param("warning", 0, [WARNING_LINE], id="warning"),
        # gatehouse's warnings stay: ERROR is gatehouse's own default for dlt (its warnings are noise), not for gatehouse's
        pytest.param("ERROR", 0, [WARNING_LINE], id="ERROR"),
        pytest.param("CRITICAL", 0, [WARNING_LINE], id="CRITICAL"),
        pytest.param("INFO", 0, [PROGRESS_LINE, WARNING_LINE, SOURCE_LINE], id="INFO as -v"),
        pytest.param("DEBUG", 0, [PROGRESS_LINE, WARNING_LINE, SOURCE_LINE], id="DEBUG as -vv"),
        pytest.param("WARNING", 1, [PROGRESS_LINE, WARNING_LINE, SOURCE_LINE], id="WARNING with -v"),  # the command line wins
        pytest.param(None, 1, [PROGRESS_LINE, WARNING_LINE, SOURCE_LINE], id="unset with -v"),
        pytest.param(" Info ", 0, [PROGRESS_LINE, WARNING_LINE, SOURCE_LINE], id="Info with spaces"),
        pytest.param("", 0, [PROGRESS_LINE, WARNING_LINE], id="empty as unset"),  # `RUNTIME__LOG_LEVEL=` in a crontab
    ],
)
def test_the_level_set_for_dlt_is_gatehouses_unless_the_command_line_says(capsys, monkeypatch, level, verbosity, lines):
    if level is not None:
        monkeypatch.setenv(DLT_LOG_LEVEL, level)
    assert logged(capsys, verbosity) == lines
    # the user's level reaches dlt in capitals, the only spelling dlt reads (it ended in a traceback on `warning`)
    assert os.environ[DLT_LOG_LEVEL] == (level or "ERROR").strip().upper()


LEVELS = "DEBUG, INFO, WARNING, ERROR or CRITICAL (in any case), or unset it"


@pytest.mark.parametrize("level", ["LOUD", "not-a-level", "30", "warning!"])
def test_a_level_that_is_none_is_refused_in_one_line_naming_the_setting_and_the_levels(capsys, monkeypatch, level):
    monkeypatch.setenv(DLT_LOG_LEVEL, level)
    capsys.readouterr()
    assert main(["views", "--duckdb", "no-such.duckdb"]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"gatehouse: error: RUNTIME__LOG_LEVEL is {level!r}, which is no log level: set it to {LEVELS}\n")


def test_a_level_in_config_toml_that_is_none_is_refused_too(capsys, monkeypatch, tmp_path):
    # the same setting as dlt reads it from .dlt/config.toml: taken as no level, the run logged at INFO
    monkeypatch.delenv(DLT_LOG_LEVEL, raising=False)
    (tmp_path / ".dlt").mkdir()
    (tmp_path / ".dlt" / "config.toml").write_text('[runtime]\nlog_level = "LOUD"\n')
    monkeypatch.setenv("DLT_PROJECT_DIR", str(tmp_path))
    capsys.readouterr()
    assert main(["views", "--duckdb", str(tmp_path / "no-such.duckdb")]) == 2
    assert capsys.readouterr() == (
        "",
        f"gatehouse: error: [runtime] log_level in .dlt/config.toml is 'LOUD', which is no log level: set it to {LEVELS}\n",
    )


@pytest.fixture(scope="module")
def installed_command(tmp_path_factory) -> Iterator[ForkedCommands]:
    """The installed command's runs, each a process of its own (dlt reads its level once a process), as cron runs it:
    forked from one that imported the commands once and read no level (tests/drills/forked_commands.py), its
    environment without the setting; a new Python and gatehouse's imports for each were most of this file's time."""
    work = tmp_path_factory.mktemp("log_level_commands")
    env = {name: value for name, value in os.environ.items() if name not in (DLT_LOG_LEVEL, DLT_LOG_LEVEL_DEFAULTED)}
    commands = ForkedCommands(env, work, work)
    yield commands
    commands.close()


def gatehouse(commands: ForkedCommands, cwd: Path, level: str, *args: str) -> CommandOutput:
    """`gatehouse *args` in `cwd` with RUNTIME__LOG_LEVEL=`level` in its environment."""
    env = {name: value for name, value in os.environ.items() if name != DLT_LOG_LEVEL_DEFAULTED}
    return commands.run(list(args), {**env, DLT_LOG_LEVEL: level}, cwd, timeout=300)


def test_a_run_with_a_level_in_lower_case_loads_and_one_with_no_level_ends_in_one_line(installed_command, tmp_path):
    """`gatehouse run`, where dlt reads the level: `warning` is WARNING (it ended in dlt's `ValueError: Unknown level:
    'warning'` traceback), `LOUD` one line and exit 2 before anything runs."""
    # one of the demo's projects: the level is read once a process, however many projects it loads
    done = gatehouse(installed_command, tmp_path, "warning", "run", "--demo", "--project", "web")
    assert done.code == 0, done.err[-2000:]
    assert "Traceback" not in done.err and " INFO gatehouse" not in done.err, done.err[-2000:]
    assert (tmp_path / "demo.duckdb").exists()
    done = gatehouse(installed_command, tmp_path, "LOUD", "run", "--demo")
    assert (done.code, done.out) == (2, "")
    assert done.err == f"gatehouse: error: RUNTIME__LOG_LEVEL is 'LOUD', which is no log level: set it to {LEVELS}\n"


def test_gatehouses_own_default_for_dlt_is_not_taken_for_the_users_level(capsys):
    # the first set-up puts RUNTIME__LOG_LEVEL=ERROR in this process's environment (dlt's warnings are noise);
    # the next command in the same process (a scheduler's, a test's) still runs at the default level
    assert logged(capsys) == logged(capsys) == [PROGRESS_LINE, WARNING_LINE]
    assert os.environ[DLT_LOG_LEVEL] == "ERROR"


@pytest.fixture
def database(console_db, tmp_path) -> Path:
    """A copy of the session's hand-built console (views applied): `gatehouse views` refreshes it."""
    copy = tmp_path / "flags.duckdb"
    shutil.copy(console_db, copy)
    return copy


@pytest.mark.parametrize("level", [None, "WARNING"], ids=["unset", "WARNING"])
def test_a_command_at_the_default_level_and_at_warning(database, capsys, monkeypatch, level):
    if level is not None:
        monkeypatch.setenv(DLT_LOG_LEVEL, level)
    capsys.readouterr()
    assert main(["views", "--duckdb", str(database)]) == 0
    out, err = capsys.readouterr()
    assert RESULT in out  # the command's result is no log line: it is printed at any level
    if level is None:
        assert PROGRESS in err, err
    else:
        assert err == ""


def test_a_scheduled_command_at_warning_is_silent_on_stderr(installed_command, database, tmp_path):
    """As cron runs it: the installed command, a process of its own, the setting in its environment."""
    done = gatehouse(installed_command, tmp_path, "WARNING", "views", "--duckdb", str(database))
    assert (done.code, done.err) == (0, "")
    [line] = done.out.splitlines()
    assert line.startswith(f"gatehouse: {database}: ") and line.endswith(RESULT)
