"""gatehouse's settings are declared once and never silently ignored: the destination setting from a flag, the
environment or .dlt/config.toml reaches every command; a mistyped name anywhere is refused in one line with its
suggestion before any request; `gatehouse config` says where each came from; each deployment keeps its own state."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from gatehouse.pipelines import settings
from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.pipelines.warehouse.state import adopt_machine_wide_state
from tests.drills.conftest import (
    clean_environment,
    console_variables,
    copy_database,
    make_twin,
    reference_path,  # noqa: F401  (the fixture: a first run of make_twin()'s organisation, made once per session)
)
from tests.drills.forked_commands import ForkedCommands
from tests.secret_scan import CommandOutput


@pytest.fixture(scope="module")
def commands(tmp_path_factory) -> Iterator[ForkedCommands]:
    """Each command a process of its own, as the script runs it, forked from one that imported the commands once
    (tests/drills/forked_commands.py): twenty starts of Python and dlt were most of this file's time. The server
    starts in a folder of its own, so that every setting a command sees is read from the command's own folder."""
    work = tmp_path_factory.mktemp("settings_commands")
    (work / "outputs").mkdir()
    forked = ForkedCommands(clean_environment(), work, work / "outputs")
    yield forked
    forked.close()


def gatehouse(
    commands: ForkedCommands, folder: Path, *args: str, config: str = "", secrets: str = "", **env: str
) -> CommandOutput:
    """`gatehouse ARGS` run from `folder`, a project whose .dlt/ holds `config` and `secrets`, with `env` alone."""
    (folder / ".dlt").mkdir(exist_ok=True)
    (folder / ".dlt" / "config.toml").write_text(config, errors="surrogateescape")  # "\udcff": the byte 0xff
    (folder / ".dlt" / "secrets.toml").write_text(secrets)
    return commands.run(list(args), clean_environment(**env), folder)


@pytest.fixture(scope="module")
def served():
    twin = make_twin()
    with twin.serve() as base_url:
        yield twin, console_variables(twin, base_url)


def test_the_duckdb_setting_reaches_run_views_sql_and_report(commands, tmp_path, served, request):
    """The setting from the environment, then from .dlt/config.toml, in one folder, each run continuing the file the
    setting names (a copy of the session's first load of the same organisation: the first load is not the subject);
    a run that missed the setting would have started ./gatehouse.duckdb, and not added its row to the file's."""
    twin, console = served
    target = tmp_path / "data" / "flags.duckdb"
    (tmp_path / "data").mkdir()
    copy_database(request.getfixturevalue("reference_path"), target, console["SOURCES__CONSOLE__BASE_URL"])
    for runs, where in enumerate(("environment", "config.toml"), start=2):
        env = {**console, "GATEHOUSE__DUCKDB": str(target)} if where == "environment" else dict(console)
        config = f'[gatehouse]\nduckdb = "{target}"\n' if where == "config.toml" else ""

        done = gatehouse(commands, tmp_path, "run", "--no-progress", config=config, **env)
        assert done.code == 0, (where, done.err)
        assert done.out.startswith(f"gatehouse: {target}\n"), (where, done.out)
        assert not (tmp_path / "gatehouse.duckdb").exists(), where
        with duckdb.connect(str(target), read_only=True) as connection:
            assert connection.execute("select count(*) from console.extraction_runs").fetchall() == [(runs,)], where
        for command in (["views"], ["sql", "select count(*) as n from console.gates"], ["alerts", "--dry-run"], ["config"]):
            done = gatehouse(commands, tmp_path, *command, config=config, **env)
            assert done.code == 0, (where, command, done.err)
        assert "no database" not in done.err, where
        origin = "environment GATEHOUSE__DUCKDB" if where == "environment" else "./.dlt/config.toml"
        [line] = [line for line in done.out.splitlines() if line.startswith("gatehouse.duckdb ")]
        assert line.split()[:2] == ["gatehouse.duckdb", str(target)] and line.endswith(f"({origin})"), (where, line)


def test_dagster_the_dag_and_the_notebooks_read_the_same_setting(tmp_path, monkeypatch):
    from gatehouse.pipelines.schedule import airflow_dag

    monkeypatch.setenv("GATEHOUSE__DUCKDB", str(tmp_path / "configured.duckdb"))
    assert airflow_dag.destination().duckdb_path == tmp_path / "configured.duckdb"
    dagster = pytest.importorskip("gatehouse.pipelines.schedule.dagster")
    assert dagster.GatehouseResource().target().duckdb_path == tmp_path / "configured.duckdb"
    monkeypatch.setenv("GATEHOUSE__DESTINATION", "postgres")
    assert airflow_dag.destination().name == dagster.GatehouseResource().target().name == "postgres"
    # the notebooks are told where to read by the destination the command resolved
    assert Destination.from_flags(None, None).notebook_environment()["GATEHOUSE__DESTINATION"] == "postgres"


def test_a_flag_wins_over_the_setting(tmp_path, monkeypatch):
    monkeypatch.setenv("GATEHOUSE__DUCKDB", str(tmp_path / "configured.duckdb"))
    assert Destination.from_flags(None, None).duckdb_path == tmp_path / "configured.duckdb"
    assert Destination.from_flags(None, str(tmp_path / "flag.duckdb")).duckdb_path == tmp_path / "flag.duckdb"
    monkeypatch.setenv("GATEHOUSE__DESTINATION", "postgres")
    assert Destination.from_flags(None, None).name == "postgres"
    assert Destination.from_flags("duckdb", None).name == "duckdb"


class Whole(str):
    """A refusal said as it is: a file dlt cannot read, found when dlt reads the setting, not by gatehouse's check."""


@pytest.mark.parametrize(
    "config, secrets, env, refused",
    [
        (
            "[sources.console.projects.web]\npage_sise = 100\n",
            "",
            {},
            "unknown setting page_sise in [sources.console.projects.web] in ./.dlt/config.toml: did you mean page_size?",
        ),
        (
            "[sources.console]\nrate_limit_request = 20\n",
            "",
            {},
            "unknown setting rate_limit_request in [sources.console] in ./.dlt/config.toml: did you mean rate_limit_requests?",
        ),
        (
            "",
            '[sources.console]\napi_kay = "console-x"\n',
            {},
            "unknown setting api_kay in [sources.console] in ./.dlt/secrets.toml: did you mean api_key?",
        ),
        (
            '[gatehouse]\ndestinaton = "postgres"\n',
            "",
            {},
            "unknown setting destinaton in [gatehouse] in ./.dlt/config.toml: did you mean destination?",
        ),
        (
            '[gatehouse.report]\ngate_ulr = "https://x/{{id}}"\n',
            "",
            {},
            "unknown setting gate_ulr in [gatehouse.report] in ./.dlt/config.toml: did you mean gate_url?",
        ),
        (
            "",
            "",
            {"SOURCES__CONSOLE__PROJECTS__WEB__PAGE_SIZ": "100"},
            "unknown setting SOURCES__CONSOLE__PROJECTS__WEB__PAGE_SIZ in the environment: did you mean"
            " SOURCES__CONSOLE__PROJECTS__WEB__PAGE_SIZE?",
        ),
        (
            "",
            "",
            {"GATEHOUSE__LOCK_TIMOUT": "10"},
            "unknown setting GATEHOUSE__LOCK_TIMOUT in the environment: did you mean GATEHOUSE__LOCK_TIMEOUT?",
        ),
        (
            "[gatehous]\nlock_timeout = 5\n",
            "",
            {},
            "unknown section [gatehous] in ./.dlt/config.toml: did you mean [gatehouse]?",
        ),
        (
            "[source.console]\npage_size = 100\n",
            "",
            {},
            "unknown section [source] in ./.dlt/config.toml: did you mean [sources]?",
        ),
        (
            "[sources.consol]\npage_size = 100\n",
            "",
            {},
            "unknown section [sources.consol] in ./.dlt/config.toml: did you mean [sources.console]?",
        ),
        (
            '[gatehouse]\nreport = "x"\n',
            "",
            {},
            "gatehouse.report is a section, [gatehouse.report], not a setting (in ./.dlt/config.toml)",
        ),
        (
            '[gatehouse.alerts]\nwebhook_url = "https://hooks.example.com/T0/secret"\n',
            "",
            {},
            Whole(
                "gatehouse.alerts.webhook_url is a secret, which config.toml may not hold (it is meant to be committed):"
                " move it to .dlt/secrets.toml, or set GATEHOUSE__ALERTS__WEBHOOK_URL in the environment"
            ),
        ),
        (
            "\udcff[gatehouse]\n",
            "",
            {},
            Whole("./.dlt/config.toml is not valid TOML: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"),
        ),
        (
            "",
            "",
            {"SOURCES__CONSOLE__HOLDOUT_IDS": "[1, 2]"},
            'sources.console.holdout_ids: every id must be a non-empty string (in JSON, quoted: ["exp_1"]), not 1',
        ),
        (
            "",
            "",
            {"SOURCES__CONSOLE__HOLDOUT_IDS": '["h1", ""]'},
            "sources.console.holdout_ids: every id must be a non-empty string (in JSON, quoted: [\"exp_1\"]), not ''",
        ),
        (
            "",
            "",
            {"SOURCES__CONSOLE__LATE_EXPOSURE_DAYS": "-3"},
            "sources.console.late_exposure_days must be a number of days, 0 or more, not -3",
        ),
        (
            "",
            "",
            {"SOURCES__CONSOLE__TIMEOUT": "nan"},
            Whole("sources.console.timeout must be a positive number of seconds, got nan"),
        ),
    ],
    ids=[
        "project-toml",
        "console-toml",
        "secrets-toml",
        "gatehouse-toml",
        "gatehouse-report-toml",
        "project-env",
        "gatehouse-env",
        "section-typo",
        "sources-typo",
        "console-typo",
        "section-as-setting",
        "secret-in-config",
        "not-utf8",
        "id-not-a-string",
        "empty-id",
        "negative-days",
        "timeout-nan",
    ],
)
def test_a_mistyped_setting_is_refused_before_any_request(commands, tmp_path, served, config, secrets, env, refused):
    twin, console = served
    twin.reset_requests()
    done = gatehouse(commands, tmp_path, "run", "--no-progress", config=config, secrets=secrets, **console, **env)
    assert done.code == 2
    ending = "" if isinstance(refused, Whole) else " (nothing was read or loaded)"
    assert done.err.strip().splitlines() == ["gatehouse: error: " + refused + ending]
    assert twin.requests == [] and not (tmp_path / "gatehouse.duckdb").exists()


@pytest.mark.parametrize(
    "toml",
    [
        "[gatehouse_web.sources.console]\npage_size = 100\n",  # a project's pipeline's own section
        '[destinations.warehouse]\ndestination_type = "postgres"\n',
        "[sources.console_web]\nx = 1\n",
        "[loader]\nx = 1\n",
        "[normalize.data_writer]\nbuffer_max_items = 10\n",
    ],
)
def test_dlts_own_and_a_pipelines_sections_are_no_typo(tmp_path, monkeypatch, toml):
    (tmp_path / ".dlt").mkdir()
    (tmp_path / ".dlt" / "config.toml").write_text(toml)
    monkeypatch.setenv("DLT_PROJECT_DIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert settings.unknown_settings() == []


def test_every_declared_setting_is_known_and_dlts_own_sections_stay_dlts(monkeypatch):
    for variable in (
        "GATEHOUSE__DESTINATION",
        "GATEHOUSE__REPORT__KERNELS",
        "GATEHOUSE__ALERTS__WEBHOOK_URL",
        "GATEHOUSE__PIPELINES_DIR",
        "SOURCES__CONSOLE__PROJECTS__WEB__API_KEY",
        "SOURCES__CONSOLE__PAGE_SIZE",
        "RUNTIME__LOG_LEVEL",
        "DESTINATION__POSTGRES__CREDENTIALS",
        "NORMALIZE__WORKERS",
    ):
        monkeypatch.setenv(variable, "1")
    assert settings.unknown_settings() == []


def rows_of(done) -> dict[str, str]:
    return {line.split()[0]: line for line in done.out.splitlines()}


def test_config_shows_each_setting_and_where_it_came_from_with_secrets_hidden(commands, tmp_path):
    done = gatehouse(
        commands,
        tmp_path,
        "config",
        config="[gatehouse]\nlock_timeout = 60\n",
        secrets='[sources.console.projects.web]\napi_key = "console-Sekr3tKeyValue"\n',
        GATEHOUSE__ALERTS__WEBHOOK_URL="https://hooks.example.com/T0/secret-path",
        # a base URL must not hold credentials (every command refuses it), but a user may have typed them there
        SOURCES__CONSOLE__BASE_URL="https://loader:Sekr3tPassword@console.example.com/?api_key=Sekr3tInQuery",
    )
    assert done.code == 0, done.err
    assert rows_of(done)["sources.console.base_url"].split()[1] == "https://***@console.example.com/?api_key=***"
    rows = rows_of(done)
    assert rows["gatehouse.lock_timeout"].split() == ["gatehouse.lock_timeout", "60", "(./.dlt/config.toml)"]
    assert rows["gatehouse.destination"].split() == ["gatehouse.destination", "duckdb", "(default)"]
    assert rows["gatehouse.alerts.webhook_url"].split() == [
        "gatehouse.alerts.webhook_url",
        "***",
        "(environment",
        "GATEHOUSE__ALERTS__WEBHOOK_URL)",
    ]
    assert rows["sources.console.projects.web.api_key"].split()[1] == "***"
    assert "Sekr3t" not in done.out + done.err and "secret-path" not in done.out + done.err


def test_the_runtime_log_level_of_config_toml_is_honoured(commands, tmp_path, request):
    # `[runtime] log_level` in .dlt/config.toml, as dlt reads it: WARNING hides gatehouse's progress lines. Both runs
    # continue a copy of the session's first load (a run that loads nothing new logs its progress all the same).
    twin = make_twin()
    with twin.serve() as base_url:
        env = console_variables(twin, base_url)
        copy_database(request.getfixturevalue("reference_path"), tmp_path / "gatehouse.duckdb", base_url)
        quiet = gatehouse(commands, tmp_path, "run", "--no-progress", config='[runtime]\nlog_level = "WARNING"\n', **env)
        chatty = gatehouse(commands, tmp_path, "run", "--no-progress", config='[runtime]\nlog_level = "INFO"\n', **env)
    assert quiet.code == chatty.code == 0, quiet.err + chatty.err
    assert " INFO gatehouse" not in quiet.err  # dlt's own warnings may show: WARNING was asked for
    assert " INFO gatehouse.views: " in chatty.err


def test_two_warehouse_deployments_keep_their_own_state_and_lock_under_the_users_own_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("DLT_DATA_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    places = {}
    for deployment, host in (("staging", "db-staging"), ("production", "db-prod")):
        monkeypatch.setenv("DESTINATION__POSTGRES__CREDENTIALS", f"postgresql://loader:pw@{host}:5432/analytics")
        destination = Destination(name="postgres")
        places[deployment] = (destination.working_dir(), destination.lock.lock_file())
        assert places[deployment][0].parent == tmp_path / "home" / ".dlt" / "gatehouse"  # never /var/dlt as root
        assert places[deployment][1].parent == places[deployment][0].parent
    assert places["staging"][0] != places["production"][0] and places["staging"][1] != places["production"][1]
    # the same warehouse is the same deployment; the password is no part of where
    monkeypatch.setenv("DESTINATION__POSTGRES__CREDENTIALS", "postgresql://loader:other@db-prod:5432/analytics")
    assert Destination(name="postgres").working_dir() == places["production"][0]
    # and the user's own folder, when set, wins
    monkeypatch.setenv("GATEHOUSE__PIPELINES_DIR", str(tmp_path / "state"))
    assert Destination.from_flags("postgres", None).working_dir() == tmp_path / "state"
    # a DuckDB file's state stays beside the file: another file never inherits it
    assert Destination.from_flags(None, str(tmp_path / "a.duckdb")).working_dir() == tmp_path / ".a.duckdb.dlt"


def test_state_in_dlts_machine_wide_folder_is_moved_once(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("DLT_DATA_DIR", str(tmp_path / "dlt"))
    monkeypatch.setenv("DESTINATION__POSTGRES__CREDENTIALS", "postgresql://loader:pw@db:5432/analytics")
    old = tmp_path / "dlt" / "pipelines" / "gatehouse"
    old.mkdir(parents=True)
    (old / "state.json").write_text(json.dumps({"pipeline_name": "gatehouse"}))
    deployment = Destination(name="postgres")
    adopt_machine_wide_state(deployment.pipeline_name, deployment.working_dir())
    moved = deployment.working_dir() / "gatehouse" / "state.json"
    assert moved.is_file() and not old.exists()
    assert [r.getMessage() for r in caplog.records if "moved pipeline state" in r.getMessage()] == [
        f"moved pipeline state {old} to {moved.parent}: each deployment keeps its own (gatehouse.pipelines_dir)"
    ]
    adopt_machine_wide_state(deployment.pipeline_name, deployment.working_dir())  # once
    assert moved.is_file()


def test_a_held_lock_names_the_deployment_holding_it(tmp_path):
    destination = Destination(duckdb_path=tmp_path / "gatehouse.duckdb")
    with destination.lock.exclusive(1):
        holder = destination.lock.lock_file().read_text()
    assert holder.startswith("PID ") and ", run from " in holder


def test_the_reports_folder_is_read_the_same_way_by_the_command_and_every_scheduler(monkeypatch):
    # `gatehouse report` and Dagster's asset wrote to ./reports whatever the setting; only Airflow's task read it
    from gatehouse.pipelines.schedule import airflow_dag
    from gatehouse.pipelines.schedule.dagster import GatehouseResource

    assert settings.reports_folder() == Path("reports")
    monkeypatch.setenv("GATEHOUSE__REPORTS_DIR", "team-reports")
    assert settings.reports_folder() == Path("team-reports") and settings.reports_folder("given") == Path("given")
    assert GatehouseResource().reports_dir is None  # its default is the setting's, through reports_folder
    assert main_parser_default("report", "--out") is None  # the command's too
    written = []

    class Target:
        def for_reading(self):
            return self

    monkeypatch.setattr(airflow_dag, "destination", Target)
    monkeypatch.setattr("gatehouse.pipelines.reports.report.prepare", lambda target: "prepared")
    monkeypatch.setattr("gatehouse.pipelines.reports.report.write_reports", lambda target, out: written.append(out) or [])
    airflow_dag.report()
    assert written == [Path("team-reports")]


def main_parser_default(command: str, option: str):
    from gatehouse.pipelines.cli.main import build_parser

    parser = build_parser()
    sub = next(action for action in parser._actions if action.dest == "command").choices[command]
    return next(action.default for action in sub._actions if option in action.option_strings)
