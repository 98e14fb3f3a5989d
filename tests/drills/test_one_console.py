"""One database holds one console's history: no command retires it by mistake, an empty one never reports
all clear, and readers never fail or block a run.

Each drill is a situation a user met on earlier code: the demo or another console loaded over a real
history, a report on a file a failed first run left behind, a run failing on a reader's lock, and an
analyst's tool holding the database a run must write.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from gatehouse.console_twin import ConsoleTwin, TwinSettings
from gatehouse.pipelines.cli.main import main
from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.reports.notebook import NotebookData
from gatehouse.pipelines.run.steps import RunOptions, run_extraction
from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.sources.console.identity import identify
from tests.conftest import made_once
from tests.drills.conftest import (
    REPO,
    closed_port_url,
    copy_database,
    error_lines,
    make_twin,
    point_at,
    refused_run,
    run_environment,
)
from tests.drills.forked_commands import ForkedCommands
from tests.drills.snapshot import assert_same_tables, snapshot
from tests.report.conftest import demo_load

pytestmark = pytest.mark.slow

LOCK_TEXT = re.compile(r"Conflicting lock|Could not set lock|IO Error|client_type|Please check if you configured")
OTHER_KEY = "console-Zp3Lq8Vx2Nc7Rb4Tm9"
QUALIFYING_EVENTS = "/console/v1/experiments/qualifying_events"

# A second process holding a DuckDB file as a notebook does; on a line from stdin it counts the extraction
# runs it can see through the connection it opened first, prints them and lets go.
HOLD = """\
import sys, duckdb
connection = duckdb.connect(sys.argv[1], read_only=True)
print("held", flush=True)
sys.stdin.readline()
print(connection.execute("select count(*) from console.extraction_runs").fetchone()[0], flush=True)
"""
# A BI tool polling the database: opens it read-only, reads, closes, again and again for `seconds` or until a line
# arrives on stdin (the runs it was to meet are done: each open costs the reader a catalog's read).
POLL = """\
import select, sys, time, duckdb
path, seconds = sys.argv[1], float(sys.argv[2])
end = time.monotonic() + seconds
reads = 0
print("polling", flush=True)
while time.monotonic() < end and not select.select([sys.stdin], [], [], 0)[0]:
    try:
        connection = duckdb.connect(path, read_only=True)
        connection.execute("select count(*) from console.gates").fetchall()
        time.sleep(0.1)
        connection.close()
        reads += 1
    except duckdb.Error:
        pass
    time.sleep(0.05)
print(reads, flush=True)
"""


class Holder:
    def __init__(self, path: Path) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)  # fmt: skip
        assert self.process.stdout.readline().strip() == "held"

    def extraction_runs_seen(self) -> int:
        out, _ = self.process.communicate("go\n", timeout=60)
        return int(out.strip())


@pytest.fixture(scope="module")
def consoles():
    """Two consoles: the drills' organisation, and another organisation with another key."""
    home, other = make_twin(), ConsoleTwin(size="small", seed=8, settings=TwinSettings(api_key=OTHER_KEY))
    with home.serve() as home_url, other.serve() as other_url:
        yield {"home": (home, home_url), "other": (other, other_url)}


def point_only_at(monkeypatch: pytest.MonkeyPatch, twin: ConsoleTwin, base_url: str) -> None:
    """Only this twin's console settings: none of another drill's or the caller's."""
    for name in [n for n in os.environ if n.startswith("SOURCES__")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("RUNTIME__DLTHUB_TELEMETRY", "false")
    point_at(monkeypatch, twin, base_url)


# -- 1. identity ----------------------------------------------------------------------------------------


def test_a_run_against_another_console_is_refused_before_it_extracts(consoles, reference_path, tmp_path, monkeypatch, capsys):
    (home, home_url), (other, other_url) = consoles["home"], consoles["other"]
    monkeypatch.chdir(tmp_path)
    point_only_at(monkeypatch, home, home_url)
    copy_database(reference_path, tmp_path / "real.duckdb", home_url)  # a load of the home console
    before = snapshot(tmp_path / "real.duckdb")

    line = refused_run(monkeypatch, capsys, other, other_url, "--duckdb", "real.duckdb")
    held, wanted = identify(home_url, home.settings.api_key), identify(other_url, OTHER_KEY)
    assert line == (
        f"gatehouse: error: real.duckdb holds the console {held}, not {wanted}: load this console into another"
        " file (--duckdb PATH), or pass --repoint to make real.duckdb follow it (with --full-refresh to drop what"
        " it holds first)"
    )
    # one cheap read proved the new URL and key work; nothing was extracted
    assert [request.path for request in other.requests] == [QUALIFYING_EVENTS]
    assert_same_tables(snapshot(tmp_path / "real.duckdb"), before, "the database after the refused run")

    # --repoint: the dataset follows the new console from now on, and records it (never its key)
    assert main(["run", "--no-progress", "--duckdb", "real.duckdb", "--repoint"]) == 0
    with duckdb.connect(str(tmp_path / "real.duckdb"), read_only=True) as connection:
        recorded = connection.execute(
            "select console_base_url, console_key_fingerprint from console.extraction_runs order by started_at"
        ).fetchall()
    assert recorded == [(held.base_url, held.key_fingerprint), (wanted.base_url, wanted.key_fingerprint)]
    for key in (home.settings.api_key, OTHER_KEY):
        assert key.encode() not in (tmp_path / "real.duckdb").read_bytes()


def test_a_mistyped_key_is_reported_as_the_key_not_as_another_console(consoles, reference_path, tmp_path, monkeypatch, capsys):
    home, home_url = consoles["home"]
    monkeypatch.chdir(tmp_path)
    point_only_at(monkeypatch, home, home_url)
    copy_database(reference_path, tmp_path / "real.duckdb", home_url)  # a load of the home console
    monkeypatch.setenv("SOURCES__CONSOLE__API_KEY", "console-Wrong4Key7Typed2Here9")
    monkeypatch.setenv("SOURCES__CONSOLE__MAX_ATTEMPTS", "1")
    capsys.readouterr()
    assert main(["run", "--no-progress", "--duckdb", "real.duckdb"]) == 2
    [line] = error_lines(capsys.readouterr().err)
    assert "401" in line and "sources.console.api_key" in line and "holds the console" not in line, line


def demo_extractions(path: Path) -> list[tuple[str, int]]:
    """Each of the demo's datasets with the extractions it records."""
    with duckdb.connect(str(path), read_only=True) as connection:
        datasets = [row[0] for row in connection.execute(
            "select table_schema from information_schema.tables where table_name = 'extraction_runs' order by 1"
        ).fetchall()]  # fmt: skip
        return [(d, connection.execute(f"select count(*) from {d}.extraction_runs").fetchone()[0]) for d in datasets]


def test_the_demo_keeps_to_its_own_file_and_never_loads_over_a_real_console(
    consoles, reference_path, tmp_path, tmp_path_factory, monkeypatch, capsys
):
    home, home_url = consoles["home"]
    # the demo's first load, as the session made it (`gatehouse run --demo` in a process of its own), copied with its
    # pipeline folder and snapshot: the demo run drilled here is a later one (its first is no part of what this drills)
    made = made_once(tmp_path_factory, "demo", demo_load)
    shutil.copytree(made.parent, tmp_path, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".made"))
    assert demo_extractions(tmp_path / "demo.duckdb") == [("console_mobile", 1), ("console_web", 1)]
    monkeypatch.chdir(tmp_path)
    for name in [n for n in os.environ if n.startswith("SOURCES__")]:
        monkeypatch.delenv(name)
    assert main(["run", "--demo", "--no-progress"]) == 0, "the demo's console is the same on every run"
    # the run, without --duckdb, loaded the demo's own file and made no other
    assert demo_extractions(tmp_path / "demo.duckdb") == [("console_mobile", 2), ("console_web", 2)]
    assert not (tmp_path / "gatehouse.duckdb").exists()

    point_only_at(monkeypatch, home, home_url)
    copy_database(reference_path, tmp_path / "real.duckdb", home_url)  # a load of the home console
    before = snapshot(tmp_path / "real.duckdb")
    for flags in ([], ["--repoint"]):
        capsys.readouterr()
        assert main(["run", "--demo", "--no-progress", "--duckdb", "real.duckdb", *flags]) == 2
        [line] = error_lines(capsys.readouterr().err)
        assert "(dataset console): the demo never loads into a real console's database" in line
        assert str(identify(home_url, home.settings.api_key)) in line
    assert_same_tables(snapshot(tmp_path / "real.duckdb"), before, "the real console's database")

    # and the other way round: a console's run is refused the demo's file, by its name or by what it holds
    demo_before, requested = snapshot(tmp_path / "demo.duckdb"), len(home.requests)
    shutil.copy(tmp_path / "demo.duckdb", tmp_path / "renamed.duckdb")
    for name, said in [
        ("demo.duckdb", "demo.duckdb is the demo's file: a console loads into a file of its own;"),
        ("renamed.duckdb", "renamed.duckdb holds the demo (dataset console_"),
    ]:
        capsys.readouterr()
        assert main(["run", "--no-progress", "--duckdb", name]) == 2
        [line] = error_lines(capsys.readouterr().err)
        assert line.startswith(f"gatehouse: error: {said}"), line
        assert "run it without --duckdb (it writes gatehouse.duckdb)" in line
    assert len(home.requests) == requested, "refused before any request"
    assert_same_tables(snapshot(tmp_path / "demo.duckdb"), demo_before, "the demo's database")

    # the README's ad hoc line, as written there, answers from the demo's file
    readme = (REPO / "README.md").read_text()
    command = re.findall(r"^\.venv/bin/gatehouse (sql --duckdb demo\.duckdb .+?)\s*(?:#.*)?$", readme, re.M)[0]
    capsys.readouterr()
    argv = __import__("shlex").split(command)
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["owner_name", "gate_count", "marked_stale_count", "gate_ids"] and re.fullmatch(
        r"\(\d+ rows\)", out[-1]
    ), out


# -- 3. no false all-clear ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def never_loaded_folder(tmp_path_factory) -> Path:
    """A folder where a first run failed and a tool left an empty database: made once, copied for each drill."""
    from gatehouse.sources.console import constants

    folder = tmp_path_factory.mktemp("never-loaded")
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(constants, "BACKOFF_BASE_S", constants.BACKOFF_BASE_S / 10)  # as `quick_backoff`
        monkeypatch.chdir(folder)
        point_only_at(monkeypatch, make_twin(), closed_port_url())
        assert main(["run", "--no-progress", "--duckdb", "flags.duckdb"]) == 2
    database = folder / "flags.duckdb"
    assert not database.exists(), "a first run that loaded nothing leaves no database behind"
    # an empty database all the same, as a tool, a colleague or an older gatehouse may leave one
    duckdb.connect(str(database)).close()
    return folder


@pytest.fixture
def never_loaded_database(never_loaded_folder, tmp_path, monkeypatch, capsys) -> Path:
    shutil.copytree(never_loaded_folder, tmp_path, dirs_exist_ok=True)
    monkeypatch.chdir(tmp_path)
    point_only_at(monkeypatch, make_twin(), closed_port_url())  # the settings the failed run had
    capsys.readouterr()
    return tmp_path / "flags.duckdb"


@pytest.mark.parametrize("command", [
    ["report", "--out", "reports"],
    ["views"],
    ["code-refs", str(REPO)],
    ["sql", "select count(*) from analytics.stale_gates"],
])  # fmt: skip
def test_a_dataset_no_run_has_loaded_is_never_reported_all_clear(never_loaded_database, command, tmp_path, capsys):
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "stale_gates.html").write_text("the good report of yesterday")
    assert main([command[0], "--duckdb", "flags.duckdb", *command[1:]]) == 2
    out, err = capsys.readouterr()
    assert error_lines(err) == [
        "gatehouse: error: no run has loaded flags.duckdb yet (it holds no extraction): load it with `gatehouse run`"
        " (or `gatehouse run --demo`, then read it with --duckdb demo.duckdb); nothing was read or written"
    ]
    assert out == ""
    assert [p.name for p in reports.iterdir()] == ["stale_gates.html"]
    assert (reports / "stale_gates.html").read_text() == "the good report of yesterday"


def test_a_notebook_on_a_dataset_no_run_has_loaded_says_so(never_loaded_database):
    with pytest.raises(GatehouseError) as failure:
        NotebookData.open("duckdb", "flags.duckdb")
    assert str(failure.value).startswith(f"no run has loaded {never_loaded_database} yet (it holds no extraction)")


# -- 4 and 5. every open waits; readers never block the writer -----------------------------------------


def load(twin: ConsoleTwin, base_url: str, path: Path, **options) -> object:
    return run_extraction(RunOptions(
        destination=Destination(duckdb_path=path), progress=False,
        source_args={"base_url": base_url, "api_key": twin.settings.api_key, "experiment_ids": twin.experiment_ids,
                     "ingestion_run_ids": twin.ingestion_run_ids},
        **options,
    ))  # fmt: skip


def test_a_reader_polling_the_database_never_fails_a_run_and_the_wait_is_shown_apart(reference_path, tmp_path, caplog):
    twin = make_twin()
    database = tmp_path / "gatehouse.duckdb"
    with twin.serve() as base_url:
        copy_database(reference_path, database, base_url)
        poller = subprocess.Popen([sys.executable, "-c", POLL, str(database), "60"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)  # fmt: skip
        assert poller.stdout.readline().strip() == "polling"
        summaries = []
        with caplog.at_level("INFO"):
            for _ in range(3):
                twin.advance(days=1)
                summaries.append(load(twin, base_url, database, lock_timeout_s=60))
        reads = int(poller.communicate("done\n", timeout=60)[0].strip())
    assert reads > 5, "the poller read the database between the runs' opens"
    assert not LOCK_TEXT.search(caplog.text), caplog.text
    waited = [summary for summary in summaries if summary.waited_s >= 0.05]
    assert waited, "some run met the poller's connection"
    for summary in waited:
        first, second = summary.lines()[:2]
        assert first.startswith(f"loaded in {summary.wall_time_s - summary.waited_s:.1f}s with ")
        assert second.startswith(f"  waited {summary.waited_s:.1f}s before that for ") and "(PID " in second


def test_readers_hold_the_snapshot_and_never_delay_a_run(reference_path, reference, tmp_path):
    # the session's reference is a first run: it published its snapshot beside it
    assert_same_tables(snapshot(Destination(duckdb_path=reference_path).snapshot.path), reference, "the snapshot")
    twin = make_twin()
    database = tmp_path / "gatehouse.duckdb"
    with twin.serve() as base_url:
        copy_database(reference_path, database, base_url, readers_snapshot=True)  # that first run, copied
        published = tmp_path / "gatehouse.snapshot.duckdb"
        holder = Holder(published)  # a notebook open on the snapshot all day
        twin.advance(days=1)
        second = load(twin, base_url, database, lock_timeout_s=5)
    assert second.snapshot == published
    assert second.waited_s == 0, "the run did not wait for the snapshot's reader"
    assert_same_tables(snapshot(published), snapshot(database), "the new snapshot")
    assert holder.extraction_runs_seen() == 1, "a reader that held the old snapshot keeps reading it whole"
    with duckdb.connect(str(published), read_only=True) as connection:
        assert connection.execute("select count(*) from console.extraction_runs").fetchone() == (2,)


def test_gatehouse_sql_answers_from_the_snapshot_while_the_database_is_held(reference_path, tmp_path, capsys):
    database = copy_database(reference_path, tmp_path / "gatehouse.duckdb", readers_snapshot=True)
    expected = (
        duckdb.connect(str(database), read_only=True)
        .execute("select gate_id, days_since_modified from analytics.stale_gates order by gate_id limit 3")
        .fetchall()
    )
    writer = subprocess.Popen([sys.executable, "-c", HOLD.replace("read_only=True", "read_only=False"), str(database)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert writer.stdout.readline().strip() == "held"
    query = "select gate_id, days_since_modified from analytics.stale_gates order by gate_id limit 3"
    try:
        assert main(["sql", "--duckdb", str(database), "--lock-timeout", "0", query]) == 0
        table = capsys.readouterr().out
        assert main(["sql", "--duckdb", str(database), "--format", "csv", query]) == 0
        csv_out = capsys.readouterr().out
        assert main(["sql", "--duckdb", str(database), "--format", "json", query]) == 0
        json_out = capsys.readouterr().out
    finally:
        writer.communicate("go\n", timeout=60)
    width = max(len("gate_id"), *(len(gate) for gate, _ in expected))
    assert table.splitlines() == [
        f"{'gate_id':<{width}}  days_since_modified",
        f"{'-' * width}  {'-' * len('days_since_modified')}",
        *(f"{gate:<{width}}  {days:>19}" for gate, days in expected),
        "(3 rows)",
    ]
    assert csv_out.splitlines() == ["gate_id,days_since_modified", *(f"{gate},{days}" for gate, days in expected)]
    assert json.loads(json_out) == [{"gate_id": gate, "days_since_modified": days} for gate, days in expected]

    # the database's own words, whole: its hints too
    for sql, message in (
        ("select nope from analytics.stale_gates",
         "gatehouse: error: query failed on gatehouse.snapshot.duckdb: Binder Error: Referenced column \"nope\" not found"
         " in FROM clause! Candidate bindings: "),
        ("select * from analytics.stale_gates_by_ownr",
         "gatehouse: error: query failed on gatehouse.snapshot.duckdb: Catalog Error: Table with name stale_gates_by_ownr"
         " does not exist! Did you mean \"stale_gates_by_owner\"?"),
        ("drop table console.gates",
         "gatehouse: error: only a query is run here, not DROP: gatehouse sql never changes the data"
         " (SHOW, DESCRIBE, SUMMARIZE, EXPLAIN and PRAGMA table_info are read too)"),
        ("pragma enable_profiling",
         "gatehouse: error: only a query is run here, not PRAGMA: gatehouse sql never changes the data"
         " (SHOW, DESCRIBE, SUMMARIZE, EXPLAIN and PRAGMA table_info are read too)"),
        ("select 1; select 2", "gatehouse: error: give one query, not 2 statements"),
    ):  # fmt: skip
        assert main(["sql", "--duckdb", str(database), sql]) == 2
        [line] = error_lines(capsys.readouterr().err)
        assert line.replace(str(tmp_path) + "/", "").startswith(message), line
    # what describes the data is read too, and changes nothing
    for sql, first_column in (("describe analytics.stale_gates", "column_name"), ("show tables", "name"),
                              ("summarize analytics.stale_gates", "column_name"), ("explain select 1", "explain_key"),
                              ("pragma table_info('analytics.stale_gates')", "cid")):  # fmt: skip
        assert main(["sql", "--duckdb", str(database), "--format", "csv", sql]) == 0, sql
        assert capsys.readouterr().out.splitlines()[0].split(",")[0] == first_column, sql


# -- 7. notebooks find the database ---------------------------------------------------------------------


def test_notebooks_find_the_database_from_the_project_root_and_from_notebooks(reference_path, tmp_path, monkeypatch):
    project = tmp_path / "project"
    (project / ".dlt").mkdir(parents=True)
    (project / "notebooks").mkdir()
    copy_database(reference_path, project / "gatehouse.duckdb", readers_snapshot=True)
    monkeypatch.delenv("DLT_PROJECT_DIR", raising=False)
    for folder in (project, project / "notebooks"):
        monkeypatch.chdir(folder)
        data = NotebookData.open("duckdb", None)
        try:
            assert data.destination.duckdb_path == project / "gatehouse.snapshot.duckdb"
            assert data.as_of_line().startswith(f"Data in `{project / 'gatehouse.snapshot.duckdb'}`, as of **2026-")
        finally:
            data.close()


# What a run must never print, whoever holds the file meanwhile: DuckDB's lock text, dlt's job retries and its
# credentials hint, a Python traceback.
NOISE = re.compile(r"Traceback|Conflicting lock|Could not set lock|Transient exception|configured the credentials")
POLL_EVERY_0_3_S = POLL.replace("time.sleep(0.05)", "time.sleep(0.3)")


def test_a_reader_polling_every_third_of_a_second_never_shows_in_five_runs_output(reference_path, tmp_path):
    twin = make_twin()
    database = tmp_path / "gatehouse.duckdb"
    with twin.serve() as base_url:
        environment = run_environment(twin, base_url)
        copy_database(reference_path, database, base_url)
        poller = subprocess.Popen(
            [sys.executable, "-c", POLL_EVERY_0_3_S, str(database), "600"],
            stdin=subprocess.PIPE,  # never written: it polls until it is killed
            stdout=subprocess.PIPE,
            text=True,
        )
        assert poller.stdout.readline().strip() == "polling"
        # each run a process of its own, forked from one that has imported gatehouse (tests/drills/forked_commands.py)
        (tmp_path / "outputs").mkdir()
        runs = ForkedCommands(environment, tmp_path, tmp_path / "outputs")
        try:
            for day in range(5):
                twin.advance(days=1)
                done = runs.run(
                    ["run", "--duckdb", str(database), "--no-progress", "--lock-timeout", "60"], environment, tmp_path
                )
                assert done.code == 0, done.err[-3000:]
                assert not NOISE.search(done.out + done.err), f"run {day + 1}:\n{done.err[-3000:]}"
        finally:
            runs.close()
            poller.kill()
            poller.wait()
