"""The dlt settings a run starts from: forked normalize workers, extract files, and the user's word over ours."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from dlt.common.configuration.container import Container
from dlt.common.configuration.specs.pluggable_run_context import PluggableRunContext
from dlt.normalize.normalize import Normalize

from gatehouse.pipelines.run import tuning
from tests.drills.conftest import copy_database
from tests.pipeline.conftest import Loader

# dlt's own columns: row ids of merge tables' nested rows are random, validity and load ids are times.
DLT_COLUMNS = {"_dlt_id", "_dlt_parent_id", "_dlt_root_id", "_dlt_load_id", "_dlt_valid_from", "_dlt_valid_to"}


@pytest.mark.parametrize(
    ("cores", "start_method", "workers"),
    [({0, 1}, "fork", 2), ({0, 1, 2, 3}, "fork", 2), ({0}, "fork", 1), ({0, 1}, "spawn", 1)],
)
def test_two_normalize_workers_only_where_forking_them_uses_a_second_core(monkeypatch, cores, start_method, workers):
    monkeypatch.setattr(tuning.os, "sched_getaffinity", lambda pid: cores)
    monkeypatch.setattr(tuning, "get_default_start_method", lambda method: start_method)
    assert tuning.normalize_workers() == workers


@pytest.fixture
def project_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """dlt's run context (where it reads .dlt/config.toml) moved to an empty project, then back."""
    run_context = Container()[PluggableRunContext]
    previous = run_context.context.run_dir
    monkeypatch.setenv("DLT_PROJECT_DIR", str(tmp_path))
    run_context.reload(str(tmp_path))
    try:
        yield tmp_path
    finally:
        monkeypatch.setenv("DLT_PROJECT_DIR", previous)
        run_context.reload(previous)


def test_defaults_fill_only_what_the_user_left_unset(monkeypatch, project_dir):
    for key in tuning.run_defaults():
        monkeypatch.delenv(key.upper().replace(".", "__"), raising=False)
    monkeypatch.setenv("NORMALIZE__WORKERS", "3")
    monkeypatch.setenv("SOURCES__DATA_WRITER__DISABLE_COMPRESSION", "false")
    monkeypatch.setattr(tuning, "normalize_workers", lambda: 2)

    tuning.apply_run_defaults()

    assert os.environ["NORMALIZE__WORKERS"] == "3"
    assert os.environ["SOURCES__DATA_WRITER__DISABLE_COMPRESSION"] == "false"
    assert os.environ["SOURCES__DATA_WRITER__FILE_MAX_BYTES"] == str(tuning.EXTRACT_FILE_BYTES)
    assert os.environ["EXTRACT__NEXT_ITEM_MODE"] == "fifo"
    assert os.environ["NORMALIZE__DATA_WRITER__BUFFER_MAX_ITEMS"] == str(tuning.NORMALIZE_BUFFER_ITEMS)


def test_freed_memory_is_given_back_where_the_c_library_can_and_nothing_fails_elsewhere(monkeypatch):
    tuning.release_freed_memory()  # glibc here: malloc_trim

    def no_libc(name):
        raise OSError(f"{name}: not found")

    monkeypatch.setattr(tuning.ctypes, "CDLL", no_libc)
    tuning.release_freed_memory()  # macOS, musl: nothing to do


def test_a_setting_in_config_toml_is_not_overridden(monkeypatch, project_dir):
    (project_dir / ".dlt").mkdir()
    (project_dir / ".dlt" / "config.toml").write_text("[normalize]\nworkers = 1\n")
    Container()[PluggableRunContext].reload_providers()
    monkeypatch.delenv("NORMALIZE__WORKERS", raising=False)
    monkeypatch.delenv("SOURCES__DATA_WRITER__FILE_MAX_BYTES", raising=False)
    monkeypatch.setattr(tuning, "normalize_workers", lambda: 2)

    tuning.apply_run_defaults()

    assert "NORMALIZE__WORKERS" not in os.environ
    assert os.environ["SOURCES__DATA_WRITER__FILE_MAX_BYTES"] == str(tuning.EXTRACT_FILE_BYTES)


def table_columns(duckdb_path: Path) -> list[tuple]:
    """Every console table's columns and their types."""
    with duckdb.connect(str(duckdb_path), read_only=True) as con:
        return con.execute(
            "select table_name, column_name, data_type from information_schema.columns"
            " where table_schema = 'console' order by all"
        ).fetchall()


def table_contents(duckdb_path: Path) -> dict[str, list[tuple]]:
    """Every console table's rows without dlt's ids and times, sorted: what two loads must agree on."""
    columns_by_table: dict[str, list[str]] = {}
    for table, column, _ in table_columns(duckdb_path):
        if not table.startswith("_dlt") and table != "extraction_runs" and column not in DLT_COLUMNS:
            columns_by_table.setdefault(table, []).append(f'"{column}"')
    with duckdb.connect(str(duckdb_path), read_only=True) as con:
        return {
            table: sorted(con.execute(f'select {", ".join(columns)} from console."{table}"').fetchall(), key=repr)
            for table, columns in columns_by_table.items()
        }


def test_two_forked_normalize_workers_load_exactly_what_one_does(twin, tmp_path, monkeypatch):
    parallel_calls = []
    map_parallel = Normalize.map_parallel

    def counting_map_parallel(self, schema, load_id, files):
        parallel_calls.append([Path(f).name for f in files])
        return map_parallel(self, schema, load_id, files)

    monkeypatch.setattr(Normalize, "map_parallel", counting_map_parallel)
    # Pages of 10 items and small files: the small twin's gates (57, 86 KB) are written to several
    # files, which dlt deals out between the workers.
    monkeypatch.setenv("SOURCES__DATA_WRITER__FILE_MAX_BYTES", "10000")
    monkeypatch.setenv("SOURCES__DATA_WRITER__BUFFER_MAX_ITEMS", "20")
    loaded, columns = {}, {}
    with twin.serve() as base_url:
        for workers in ("1", "2"):
            monkeypatch.setenv("NORMALIZE__WORKERS", workers)
            loader = Loader(twin, base_url, tmp_path / f"workers-{workers}")
            loader.run(source_args={"page_size": 10})
            loaded[workers] = table_contents(loader.duckdb_path)
            columns[workers] = table_columns(loader.duckdb_path)

    # only the two-worker run went through dlt's worker pool: once a load phase (sources.console.LOAD_PHASES)
    assert len(parallel_calls) == 2
    assert sum(name.startswith("gates.") for name in parallel_calls[0]) >= 2  # gates split over files
    assert sum(len(rows) for rows in loaded["1"].values()) > 1000
    assert columns["2"] == columns["1"]
    assert loaded["2"] == loaded["1"]


def test_a_condition_target_value_column_is_text_whatever_value_comes_first(loader):
    # Numbers first: dlt would have typed the column bigint and put later strings in a variant column.
    first = next(
        gate
        for gate in loader.twin.organisation.listed_gates()
        if any(isinstance(c.get("targetValue"), list) and c["targetValue"] for r in gate["rules"] for c in r["conditions"])
    )
    for rule in first["rules"]:
        for condition in rule["conditions"]:
            if isinstance(condition.get("targetValue"), list) and condition["targetValue"]:
                condition["targetValue"] = [7, 8]
    loader.run()
    assert [
        (c, t)
        for (table, c, t) in table_columns(loader.duckdb_path)
        if table == "gates__rules__conditions__target_value" and c.startswith("value")
    ] == [("value", "VARCHAR")]
    assert ("7",) in loader.query("select value from console.gates__rules__conditions__target_value")


def test_the_duckdb_file_reaches_dlt_as_credentials_with_the_run_defaults(monkeypatch, tmp_path, project_dir):
    """The file is handed to dlt as credentials, not a string dlt parses (which imports SQLAlchemy): the same
    file, and the destination settings a run starts from still resolve into them."""
    from gatehouse.pipelines.warehouse.destination import Destination
    from gatehouse.pipelines.warehouse.duckdb_file import RUN_DEFAULTS

    for key, value in RUN_DEFAULTS.items():
        monkeypatch.setenv(key.upper().replace(".", "__"), value)
    database = tmp_path / "a folder" / "gate house.duckdb"
    database.parent.mkdir()
    destination = Destination(duckdb_path=database, pipelines_dir=tmp_path / "pipelines")

    credentials = destination.pipeline().destination_client().config.credentials

    assert credentials.database == str(database)
    assert credentials.global_config == {"memory_limit": "128MB", "threads": 1}
    assert not credentials.read_only


def test_counting_statements_hold_a_bounded_number_of_semi_joins_in_a_duckdb_file():
    from gatehouse.pipelines.run.summary import count_batches

    parents = {
        "gates": None,
        "gates__rules": "gates",
        "gates__rules__conditions": "gates__rules",
        "gates__tags": "gates",
        "holdouts": None,
        "holdouts__gate_i_ds": "holdouts",
    }
    # by name; a table's semi-joins are its depth: 0 + 1 | 2 | 1 + 0 + 1, a new statement where the next would pass 2
    assert count_batches(parents, 2) == [
        ["gates", "gates__rules"],
        ["gates__rules__conditions"],
        ["gates__tags", "holdouts", "holdouts__gate_i_ds"],
    ]
    assert count_batches(parents, None) == [sorted(parents)]


def test_a_first_loads_rows_are_counted_back_within_a_third_of_the_memory_cap(seed_reference_path, tmp_path):
    """What the summary says was loaded is read back from the file under the run's memory cap, which the projects
    of one file share: the forty tables' semi-joins in one statement took more than 60 MB of it, and nine projects
    in one file ran out (one statement needs more than 96 MB here). Here the whole count runs under 40 MB."""
    from gatehouse.pipelines.run.summary import rows_in_database
    from gatehouse.pipelines.warehouse.destination import Destination

    database = copy_database(seed_reference_path, tmp_path / "gatehouse.duckdb")
    with duckdb.connect(str(database)) as connection:
        load_ids = [load_id for (load_id,) in connection.execute("select load_id from console._dlt_loads").fetchall()]
        names = {
            table
            for (table,) in connection.execute(
                "select table_name from information_schema.tables where table_schema = 'console'"
                " and table_type = 'BASE TABLE' and table_name not like '\\_dlt%' escape '\\'"
            ).fetchall()
        }
        expected = {table: connection.execute(f"select count(*) from console.{table}").fetchone()[0] for table in names}
    # dlt names a nested table after its parent: the longest other table name it starts with
    parents = {table: max((p for p in names if table.startswith(p + "__")), key=len, default=None) for table in names}
    assert sum(parent is not None for parent in parents.values()) > 20  # the semi-joins are there to hold

    # held open with the cap, as a run holds it once dlt's load jobs set theirs: the count shares this database
    with duckdb.connect(str(database)) as held:
        held.execute("set memory_limit = '40MB'; set threads = 1")
        assert rows_in_database(Destination(duckdb_path=database), load_ids, parents) == expected
