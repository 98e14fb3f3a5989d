"""In `gatehouse report`'s one kernel, each query is read once for the three notebooks and the summary."""

from __future__ import annotations

import pytest

from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.reports import lists, notebook
from gatehouse.pipelines.reports.notebook import NotebookData
from gatehouse.pipelines.reports.report import summarise, summary_of_the_notebooks
from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.pipelines.warehouse.reader import Reader


@pytest.fixture
def counted(record_calls):
    """The queries read from the database, one entry a read."""
    return record_calls(Reader, "frame", lambda self, sql: sql)


def test_a_notebook_opened_by_hand_reads_afresh(hand_built_db, counted, monkeypatch):
    monkeypatch.setattr(notebook, "_shared", None)
    data = NotebookData.open("duckdb", str(hand_built_db))
    data.view("select * from analytics.stale_gates")
    data.view("select * from analytics.stale_gates")
    assert counted == ["select * from analytics.stale_gates"] * 2
    assert NotebookData.open("duckdb", str(hand_built_db)) is not data


def test_in_the_report_each_query_is_read_once_and_each_notebook_gets_its_own_copy(hand_built_db, counted, monkeypatch):
    monkeypatch.setattr(notebook, "_shared", None)
    notebook.share_reads()
    data = NotebookData.open("duckdb", str(hand_built_db))
    assert NotebookData.open("duckdb", str(hand_built_db)) is data
    first = data.view("select * from analytics.stale_gates")
    first["added_by_one_notebook"] = 1
    second = data.view("select * from analytics.stale_gates")
    assert "added_by_one_notebook" not in second.columns
    assert counted == ["select * from analytics.stale_gates"]
    monkeypatch.setenv("GATEHOUSE__DESTINATION", "duckdb")
    monkeypatch.setenv("GATEHOUSE__DUCKDB", str(hand_built_db))
    text = summary_of_the_notebooks("hand_built.duckdb")
    assert counted.count("select * from analytics.stale_gates") == 1  # the summary took the notebook's
    with Destination(duckdb_path=hand_built_db, read_only=True).reader() as reader:
        assert text == summarise(reader, "hand_built.duckdb")


def test_a_notebook_opens_the_database_once_to_check_and_read_it(demo_db, record_calls, monkeypatch):
    # the demo has two projects: the newest extraction is looked up in each project's dataset, on the same connection
    monkeypatch.setattr(notebook, "_shared", None)
    opened = record_calls(Destination, "_connect_duckdb", lambda self: self.duckdb_path.name)
    data = NotebookData.open("duckdb", str(demo_db))
    try:
        assert data.view("select count(*) as gates from analytics.stale_gates")["gates"][0] > 0
    finally:
        data.close()
    assert opened == ["demo.snapshot.duckdb"]


def test_a_notebook_on_a_database_no_run_loaded_is_one_line_and_leaves_nothing_open(tmp_path, record_calls, monkeypatch):
    import duckdb

    monkeypatch.setattr(notebook, "_shared", None)
    empty = tmp_path / "gatehouse.duckdb"
    duckdb.connect(str(empty)).close()
    closed = record_calls(NotebookData, "close", lambda self: self.destination.duckdb_path.name)
    with pytest.raises(GatehouseError, match="no run has loaded .* yet"):
        NotebookData.open("duckdb", str(empty))
    assert closed == ["gatehouse.duckdb"]


def test_every_query_of_the_summary_is_one_a_notebook_reads():
    # word for word: else the summary would read it a second time, and the read-ahead would be wasted
    import json

    from gatehouse.pipelines.reports.lanes import NOTEBOOK_DIR
    from gatehouse.pipelines.reports.report import NOTEBOOKS, SUMMARY_FRAMES

    sources = "\n".join(
        "".join(cell["source"])
        for name in NOTEBOOKS
        for cell in json.loads((NOTEBOOK_DIR / f"{name}.ipynb").read_text())["cells"]
    )
    for sql in SUMMARY_FRAMES:
        assert (
            f'view("{sql}")' in sources or sql == lists.EXPERIMENT_NAMES_SQL and "view(lists.EXPERIMENT_NAMES_SQL)" in sources
        ), sql


def test_the_summary_is_read_ahead_once_and_a_failed_read_ahead_is_read_again(hand_built_db, counted, monkeypatch):
    import threading

    monkeypatch.setattr(notebook, "_shared", None)
    notebook.share_reads()
    monkeypatch.setenv("GATEHOUSE__DESTINATION", "duckdb")
    monkeypatch.setenv("GATEHOUSE__DUCKDB", str(hand_built_db))
    notebook.read_ahead(["select * from analytics.no_such_view", "select * from analytics.stale_gates"])
    data = NotebookData.open("duckdb", str(hand_built_db))
    assert len(data.view("select * from analytics.stale_gates")) > 0
    for thread in threading.enumerate():
        if thread.name == "gatehouse-read-ahead":
            thread.join(timeout=60)
    assert counted.count("select * from analytics.stale_gates") == 1
    # the read-ahead's failure is not the notebook's: it reads the query itself, and fails with its own error
    with pytest.raises(Exception, match="no_such_view"):
        data.view("select * from analytics.no_such_view")
    assert counted.count("select * from analytics.no_such_view") == 2
