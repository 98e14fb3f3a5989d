"""The views on a DuckDB file are created unbound and bound together before they commit: a view DuckDB refuses is
still one line naming it and the destination, and nothing is changed (the raw tables, the old views, the
parameters). A process binds the same statements over tables of the same columns and types once."""

from __future__ import annotations

import duckdb
import pytest

from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.models import build as views
from gatehouse.pipelines.models.build import ViewDefinition, ViewsReplaced, view_definitions
from gatehouse.pipelines.warehouse.views import apply_views
from tests.views.conftest import query

BROKEN = ViewDefinition(
    "zz_broken", "one row", ("as_of_at",), "-- grain: one row; key: as_of_at\nselect no_such_column from analytics.as_of\n"
)
# reads the broken view: binding it is what finds the broken one, which must still be the view named
READER = ViewDefinition(
    "zz_reader",
    "one row",
    ("as_of_at",),
    "-- grain: one row; key: as_of_at\nselect * from analytics.zz_broken\n",
    depends_on=("zz_broken",),
)
VIEWS_SQL = "select view_name, sql from duckdb_views() where schema_name = 'analytics' order by 1"


@pytest.fixture
def applied(writable_db, record_calls, monkeypatch):
    """The hand-built console with this version's views, and how each later application made them (unbound or not);
    nothing bound before in this process."""
    monkeypatch.setattr(views, "_bound", views.Kept(8))
    apply_views(writable_db)
    return writable_db, record_calls(ViewsReplaced, "apply", lambda self, *args, unbound: unbound)


def state(database):
    return (
        query(database, VIEWS_SQL),
        query(database, "select name, value from analytics.view_parameters order by name"),
        query(database, "select count(*) from console.gates"),
        query(database, "select digest from analytics.applied_views"),
    )


def test_views_are_made_unbound_and_each_answers(applied):
    database, made = applied
    names = apply_views(database)
    assert made == [True]
    with duckdb.connect(str(database), read_only=True) as connection:
        for name in names:
            connection.execute(f"select * from analytics.{name} limit 1").fetchall()
        columns = connection.execute(
            "select column_name from information_schema.columns where table_schema = 'analytics'"
            " and table_name = 'stale_gates' order by ordinal_position"
        ).fetchall()
    assert columns[0] == ("project",)


@pytest.mark.parametrize("added", [[BROKEN], [BROKEN, READER]], ids=["a view nothing reads", "a view another reads"])
def test_a_view_duckdb_refuses_is_one_line_naming_it_and_changes_nothing(applied, monkeypatch, added):
    database, made = applied
    before = state(database)
    monkeypatch.setattr(views, "view_definitions", lambda: [*view_definitions(), *added])
    with pytest.raises(GatehouseError) as raised:
        apply_views(database, parameters={"stall_days": 9})
    message = str(raised.value)
    assert message.startswith("view zz_broken failed on duckdb: ") and "no_such_column" in message, message
    assert "\n" not in message
    # unbound first, then one by one to name the view refused
    assert made == [True, False]
    assert state(database) == before


def test_the_same_views_over_the_same_tables_are_bound_once_per_process(applied, record_calls):
    database, made = applied
    bound = record_calls(ViewsReplaced, "bind", lambda self, bind, names: names)
    apply_views(database)
    assert made == [True] and bound == []  # bound by the fixture's application, in this process
    # the same raw columns, one of them of another type: the statements are the same, their binding may not be
    with duckdb.connect(str(database)) as connection:
        connection.execute("alter table console.gates alter column checks_per_hour set data type double")
    apply_views(database)
    assert made == [True, True] and len(bound) == 1
    assert "stale_gates_by_owner" in bound[0] and "stale_gates" not in bound[0]  # only the views nothing reads
    apply_views(database)
    assert len(bound) == 1
