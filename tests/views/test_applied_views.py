"""`gatehouse report` leaves views that are already this version's as they are, and a readers' snapshot the
database has not changed since: but never when the raw columns, a view or a parameter changed, nor after a load."""

from __future__ import annotations

import shutil

import duckdb
import pytest

from gatehouse.pipelines.models import build as views
from gatehouse.pipelines.reports.report import refresh
from gatehouse.pipelines.warehouse.destination import Destination
from tests.views.conftest import query


@pytest.fixture
def applied(writable_db):
    """The hand-built console with this version's views applied and a snapshot published."""
    destination = Destination(duckdb_path=writable_db)
    destination.views.apply()
    destination.snapshot.publish()
    return destination


@pytest.fixture
def drops(record_calls):
    """How many times the views were dropped and applied again."""
    return record_calls(views, "_drop_views", lambda client, names: names)


def test_current_views_are_left_as_they_are(applied, drops):
    before = query(applied.duckdb_path, "select view_name, sql from duckdb_views() where schema_name = 'analytics' order by 1")
    applied.views.apply(unless_current=True)
    assert drops == []
    assert (
        query(applied.duckdb_path, "select view_name, sql from duckdb_views() where schema_name = 'analytics' order by 1")
        == before
    )
    applied.views.apply()  # `gatehouse views` always applies them
    assert len(drops) == 1


def test_a_raw_column_that_appears_applies_them_again(applied, drops):
    table, column = "gates", "checks_per_hour__v_double"
    stored = {
        name
        for (name,) in query(
            applied.duckdb_path,
            f"select column_name from information_schema.columns where table_schema = 'console' and table_name = '{table}'",
        )
    }
    assert column not in stored
    with duckdb.connect(str(applied.duckdb_path)) as connection:
        connection.execute(f"alter table console.{table} add column {column} double")
    applied.views.apply(unless_current=True)
    assert len(drops) == 1
    applied.views.apply(unless_current=True)
    assert len(drops) == 1


@pytest.mark.parametrize("missing", ["stale_gates", views.APPLIED_VIEWS])
def test_a_view_that_is_gone_applies_them_again(applied, drops, missing):
    # the digest's view goes too when an older gatehouse applies its own views (dropped as a leftover)
    with duckdb.connect(str(applied.duckdb_path)) as connection:
        connection.execute(f"drop view analytics.{missing}")
    applied.views.apply(unless_current=True)
    assert len(drops) == 1
    assert query(
        applied.duckdb_path, f"select count(*) from duckdb_views() where schema_name = 'analytics' and view_name = '{missing}'"
    ) == [(1,)]


def test_a_digest_of_other_statements_applies_them_again(applied, drops):
    with duckdb.connect(str(applied.duckdb_path)) as connection:
        connection.execute(f"create or replace view analytics.{views.APPLIED_VIEWS} as select 'another version' as digest")
    applied.views.apply(unless_current=True)
    assert len(drops) == 1


def test_a_parameter_given_is_always_applied(applied):
    applied.views.apply(parameters={"stall_days": 9}, unless_current=True)
    assert query(applied.duckdb_path, "select value from analytics.view_parameters where name = 'stall_days'") == [(9.0,)]


def test_a_current_snapshot_is_not_copied_again(applied, monkeypatch):
    assert applied.snapshot.is_current()

    def no_copy(*args, **kwargs):
        raise AssertionError("copied again")

    monkeypatch.setattr(shutil, "copyfile", no_copy)
    assert applied.snapshot.publish(unless_current=True).path == applied.snapshot.path
    with pytest.raises(AssertionError, match="copied again"):
        applied.snapshot.publish()


def test_a_report_after_a_load_reads_the_load(applied, drops):
    # what a load does to the file: rows change; the views stay this version's
    with duckdb.connect(str(applied.duckdb_path)) as connection:
        connection.execute("update console.gates set name = 'renamed by the next load'")
    assert not applied.snapshot.is_current()
    refresh(applied)
    assert drops == []
    assert applied.snapshot.is_current()
    with applied.for_reading().reader() as reader:
        names = {name for (name,) in reader.rows("select gate_name from analytics.current_gates")}
    assert names == {"renamed by the next load"}


def test_a_pending_write_ahead_log_is_never_current(applied, tmp_path):
    wal = applied.duckdb_path.with_name(applied.duckdb_path.name + ".wal")
    wal.write_bytes(b"")
    try:
        assert not applied.snapshot.is_current()
    finally:
        wal.unlink()
    assert applied.snapshot.is_current()
