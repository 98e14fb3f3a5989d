"""`gatehouse run` as a scheduler sees it: exit codes and one clear line for every bad setting."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from gatehouse.console_twin import ConsoleTwin
from gatehouse.pipelines.cli.main import main
from gatehouse.pipelines.run.steps import SELECTABLE
from tests.drills.forked_commands import ForkedCommands

BAD_KEY = "console-sentinel-wrong-key-4711"


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    """No .dlt folder and no console settings but the ones a test sets."""
    monkeypatch.chdir(tmp_path)
    for name in ("BASE_URL", "API_KEY", "EXPERIMENT_IDS", "HOLDOUT_IDS", "INGESTION_RUN_IDS"):
        monkeypatch.delenv(f"SOURCES__CONSOLE__{name}", raising=False)
    return monkeypatch


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["run", "--no-progress", "--duckdb", "out.duckdb", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("gatehouse: error:")]
    assert len(lines) == 1, err
    return lines[0]


def test_demo_run_loads_and_summarises(clean_env, capsys):
    code, out, err = run_cli(capsys, "--demo")
    assert code == 0, err
    assert "out.duckdb" in out
    assert any(line.strip().startswith("gates ") and "new versions" in line for line in out.splitlines())


def test_missing_key_names_the_setting_and_suggests_the_demo(clean_env, capsys):
    clean_env.setenv("SOURCES__CONSOLE__BASE_URL", "http://127.0.0.1:9")
    code, _, err = run_cli(capsys)
    assert code == 2
    line = error_line(err)
    assert "api_key" in line and "--demo" in line


def test_rejected_key_names_the_setting_and_never_shows_the_key(clean_env, capsys):
    twin = ConsoleTwin(size="small")
    with twin.serve() as base_url:
        clean_env.setenv("SOURCES__CONSOLE__BASE_URL", base_url)
        clean_env.setenv("SOURCES__CONSOLE__API_KEY", BAD_KEY)
        code, out, err = run_cli(capsys)
    assert code == 2
    line = error_line(err)
    assert "api_key" in line.lower() and "401" in line and "--demo" in line
    assert BAD_KEY not in out + err and BAD_KEY[:12] not in out + err
    assert [r.status for r in twin.requests] == [401], "one rejected request, then stop"


@pytest.mark.parametrize("url", ["ftp://console.example", "console.example", "http://"])
def test_a_base_url_that_is_not_http_fails_before_any_request(clean_env, capsys, url):
    clean_env.setenv("SOURCES__CONSOLE__BASE_URL", url)
    clean_env.setenv("SOURCES__CONSOLE__API_KEY", "console-some-key")
    code, _, err = run_cli(capsys)
    assert code == 2
    assert "base_url" in error_line(err)


def test_malformed_id_list_names_the_setting(clean_env, capsys):
    clean_env.setenv("SOURCES__CONSOLE__BASE_URL", "http://127.0.0.1:9")
    clean_env.setenv("SOURCES__CONSOLE__API_KEY", "console-some-key")
    clean_env.setenv("SOURCES__CONSOLE__EXPERIMENT_IDS", "exp_a, exp_b")
    code, _, err = run_cli(capsys)
    assert code == 2
    assert "experiment_ids" in error_line(err)


def test_unknown_resource_is_refused(clean_env, capsys):
    code, _, err = run_cli(capsys, "--demo", "--resources", "gates,flags")
    assert code == 2
    assert error_line(err) == (f"gatehouse: error: unknown resource(s) flags; choose from {', '.join(SELECTABLE)}")


def test_any_dlt_destination_by_name_and_config(clean_env, capsys, tmp_path):
    # filesystem stands in for every other destination: chosen by name, configured through dlt.
    clean_env.setenv("DESTINATION__FILESYSTEM__BUCKET_URL", (tmp_path / "lake").as_uri())
    clean_env.setenv("DLT_DATA_DIR", str(tmp_path / "dlt-data"))
    code = main(["run", "--no-progress", "--demo", "--destination", "filesystem"])
    out = capsys.readouterr().out
    assert code == 0
    # the demo's two projects, each into its own dataset
    assert [line for line in out.splitlines() if line.startswith("gatehouse: ")] == [
        "gatehouse: filesystem (dataset console_web): project web",
        "gatehouse: filesystem (dataset console_mobile): project mobile",
    ]
    for dataset in ("console_web", "console_mobile"):
        tables = {p.name for p in (tmp_path / "lake" / dataset).iterdir()}
        assert {"gates", "dynamic_configs", "holdouts", "cumulative_exposures", "ingestion_runs"} <= tables
        assert list((tmp_path / "lake" / dataset / "gates").glob("*.parquet"))


@pytest.mark.parametrize("name", ["console.duckdb", "analytics.duckdb"])
def test_a_duckdb_file_named_like_a_schema_is_refused(clean_env, capsys, name):
    code = main(["run", "--no-progress", "--demo", "--duckdb", name])
    assert code == 2
    assert "pick another file name" in error_line(capsys.readouterr().err)


def test_a_duckdb_folder_that_cannot_be_made_is_one_line(clean_env, capsys, tmp_path):
    (tmp_path / "taken").write_text("a file where the folder should be")
    code = main(["run", "--no-progress", "--demo", "--duckdb", "taken/flags.duckdb"])
    assert code == 2
    assert (
        error_line(capsys.readouterr().err)
        == f"gatehouse: error: cannot use {tmp_path / 'taken'}: a file is where a folder is needed"
    )


BROKEN_TOML = {
    "config.toml": (
        '[sources.console]\nbase_url = "http://console.example\n',
        "Control characters (codes less than 0x1f and 0x7f) are not allowed in strings, use \\u000a instead at line 2 col 34",
    ),
    # the character dlt's parser quotes may be a secret's: it is left out
    "secrets.toml": ("[sources.console]\napi_key = console-key-pasted-without-quotes\n", "Unexpected character at line 2 col 10"),
}


@pytest.fixture(scope="module")
def commands(tmp_path_factory) -> Iterator[ForkedCommands]:
    """Each command a process of its own, forked from one that imported the commands and read no setting
    (tests/drills/forked_commands.py): dlt reads .dlt/*.toml once per process, on the first setting looked up."""
    work = tmp_path_factory.mktemp("broken_toml_commands")
    (work / "outputs").mkdir()
    forked = ForkedCommands(command_environment(), work, work / "outputs")
    yield forked
    forked.close()


def command_environment() -> dict[str, str]:
    return {name: value for name, value in os.environ.items() if not name.startswith(("SOURCES__", "GATEHOUSE", "DLT_"))}


@pytest.mark.parametrize("file_name", BROKEN_TOML)
@pytest.mark.parametrize("argv", [["run", "--demo"], ["run"], ["console", "gates"]], ids=" ".join)
def test_a_toml_file_that_does_not_parse_is_one_line(commands, tmp_path, file_name, argv):
    text, reason = BROKEN_TOML[file_name]
    (tmp_path / ".dlt").mkdir()
    (tmp_path / ".dlt" / file_name).write_text(text)
    done = commands.run(argv, command_environment(), tmp_path, timeout=120)
    assert done.code == 2
    assert error_line(done.err) == f"gatehouse: error: ./.dlt/{file_name} is not valid TOML: {reason}"
    assert "Traceback" not in done.err and "console-key" not in done.err
