"""Translating the views is most of a refresh: a run after which neither the view files, the raw columns
nor the destination changed takes the statements it translated last time, and gets the same views."""

from __future__ import annotations

import shutil

import duckdb

from gatehouse.pipelines.models import build as views
from gatehouse.pipelines.warehouse.views import apply_views
from tests.views.conftest import query


def view_texts(database) -> list[tuple]:
    return query(database, "select view_name, sql from duckdb_views() where schema_name = 'analytics' order by 1")


def test_the_same_inputs_take_the_statements_translated_last_time(writable_db, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    with duckdb.connect(str(writable_db)) as connection:
        apply_views(connection, rendered_cache=cache)
    translated = view_texts(writable_db)
    assert len(list(cache.glob("views-*.json"))) == 1

    def no_translation(*args, **kwargs):
        raise AssertionError("translated again")

    monkeypatch.setattr(views, "render_view", no_translation)
    monkeypatch.setattr(views, "_translated", views.Kept(8))  # a new process: only the file remembers
    with duckdb.connect(str(writable_db)) as connection:
        apply_views(connection, rendered_cache=cache)
    assert view_texts(writable_db) == translated


def test_a_raw_column_that_appears_translates_again(writable_db, tmp_path):
    cache = tmp_path / "cache"
    with duckdb.connect(str(writable_db)) as connection:
        apply_views(connection, rendered_cache=cache)
        [first] = cache.glob("views-*.json")
        present = {table: columns for table, columns in views.SOURCE_COLUMNS.items()}
        table, columns = next((t, c) for t, c in present.items() if c)
        column = sorted(columns)[0]
        stored = {
            name
            for (name,) in connection.execute(
                "select column_name from information_schema.columns where table_schema = 'console' and table_name = ?", [table]
            ).fetchall()
        }
        if column in stored:  # take one away instead, so the raw columns differ either way
            connection.execute(f"create or replace table console.{table} as select * exclude ({column}) from console.{table}")
        else:
            connection.execute(f"alter table console.{table} add column {column} varchar")
        apply_views(connection, rendered_cache=cache)
    [second] = cache.glob("views-*.json")
    assert second != first


def test_a_process_translates_once_for_every_new_database_of_the_same_inputs(writable_db, tmp_path, monkeypatch):
    """A scheduler's worker loads one new database after another: the second translates nothing, and its own file
    cache is written all the same, for the next process."""
    monkeypatch.setattr(views, "_translated", views.Kept(8))
    second = tmp_path / "second.duckdb"
    shutil.copyfile(writable_db, second)
    with duckdb.connect(str(writable_db)) as connection:
        apply_views(connection, rendered_cache=tmp_path / "first_cache")
    translated = view_texts(writable_db)

    def no_translation(*args, **kwargs):
        raise AssertionError("translated again")

    monkeypatch.setattr(views, "render_view", no_translation)
    with duckdb.connect(str(second)) as connection:
        apply_views(connection, rendered_cache=tmp_path / "second_cache")
    assert view_texts(second) == translated
    assert [path.name for path in (tmp_path / "second_cache").glob("views-*.json")] == [
        path.name for path in (tmp_path / "first_cache").glob("views-*.json")
    ]
